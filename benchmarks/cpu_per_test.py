"""Where the test suite's CPU goes: a pytest plugin that records each test's CPU time.

The default run (scripts/test) is CPU-bound on the 2-core test machine (both cores 93-94%
busy over the whole run, 2026-12-08), so what shortens it is less CPU, not more waiting in
parallel. This plugin records, around each test (its setup, call and teardown), the CPU
seconds of the pytest process itself (in-thread servers included) and of the child
processes it waited for in that time (``getrusage(RUSAGE_CHILDREN)``: a browser module's
server, Playwright's driver and its Chromium count when the module's fixtures end them), then
sums them by folder and module.

Run (on xdist workers too; each appends its lines):

    PYTHONPATH=benchmarks .venv/bin/python -m pytest -n 3 --dist loadgroup -m "not soak" \\
        -p cpu_per_test --cpu-log /tmp/cpu.log
    .venv/bin/python benchmarks/cpu_per_test.py /tmp/cpu.log [--top 25]

Each line of the log is ``own children nodeid`` (seconds). The report adds the lines up by
folder, by module and by test. A child is counted on the test that ended it: a browser
module's server on its last test, and the Chromium a worker shares among its browser modules
(with Playwright's driver) on that worker's last browser test, so for the browser tests the
folder's sum is the figure to read.
"""

from __future__ import annotations

import argparse
import collections
import resource
import sys
from collections.abc import Generator, Iterable
from pathlib import Path
from typing import Any

import pytest

__all__ = ["Line", "parse", "report"]


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def pytest_addoption(parser: Any) -> None:
    """``--cpu-log PATH``: where each test's line is appended."""
    parser.addoption("--cpu-log", default="cpu.log",
                     help="file each test's CPU seconds go to (benchmarks/cpu_per_test.py)")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: Any, nextitem: Any) -> Generator[None, None, None]:
    """Time one test's protocol (setup, call, teardown) in CPU seconds."""
    own, children = _cpu(resource.RUSAGE_SELF), _cpu(resource.RUSAGE_CHILDREN)
    yield
    own = _cpu(resource.RUSAGE_SELF) - own
    children = _cpu(resource.RUSAGE_CHILDREN) - children
    with open(item.config.getoption("--cpu-log"), "a", encoding="utf-8") as log:
        log.write(f"{own:.3f} {children:.3f} {item.nodeid}\n")


Line = tuple[float, float, str]
"""A test's own and children's CPU seconds and its node id."""


def parse(text: str) -> list[Line]:
    """The lines of a log; a malformed line raises ``ValueError`` naming it."""
    lines = []
    for number, row in enumerate(text.splitlines(), 1):
        if not row.strip():
            continue
        parts = row.split(" ", 2)
        try:
            lines.append((float(parts[0]), float(parts[1]), parts[2]))
        except (IndexError, ValueError):
            raise ValueError(f"line {number} is not 'own children nodeid': {row!r}") from None
    return lines


def _sums(lines: Iterable[Line], key: Any) -> list[tuple[float, float, str]]:
    own: dict[str, float] = collections.defaultdict(float)
    children: dict[str, float] = collections.defaultdict(float)
    for mine, theirs, nodeid in lines:
        own[key(nodeid)] += mine
        children[key(nodeid)] += theirs
    return sorted(((own[k], children[k], k) for k in own), key=lambda row: -(row[0] + row[1]))


def report(lines: list[Line], top: int = 25) -> str:
    """The totals, then the ``top`` folders, modules and tests by CPU (own + children)."""
    out = [f"{len(lines)} tests: {sum(line[0] for line in lines):.1f} s own CPU, "
           f"{sum(line[1] for line in lines):.1f} s in the processes they ended"]
    folder = lambda nodeid: "/".join(nodeid.split("::")[0].split("/")[:2])  # noqa: E731
    module = lambda nodeid: nodeid.split("::")[0]  # noqa: E731
    for title, key in (("folder", folder), ("module", module), ("test", lambda n: n)):
        out.append(f"\nby {title}:   own  children")
        out += [f"{mine:8.1f} {theirs:9.1f}  {name}" for mine, theirs, name in
                _sums(lines, key)[:top]]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """Print the report of a log."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("log", type=Path)
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args(argv)
    try:
        lines = parse(args.log.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        print(f"cpu_per_test: {args.log}: {exc}", file=sys.stderr)
        return 2
    print(report(lines, args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
