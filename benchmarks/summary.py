"""The README's headline figures, measured in one run, as a Markdown table.

Run: ``scripts/bench --summary [--write-readme]`` (it sets up OpenSpiel and a PettingZoo 1.26.1
interpreter first), or ``.venv/bin/python benchmarks/summary.py [--write-readme] [--json]
[--pettingzoo-python PATH] [--note TEXT] [--quick]``.

It runs the existing benchmark scripts with ``--json`` one after the other, never writing a
figure of its own:

* ``bench_deadwood.py``: ``deadwood`` against OpenSpiel's C++ ``min_deadwood``, CPU time per
  call, each round's ratio on the same hands;
* ``bench_game.py``: complete hands per second against OpenSpiel's C++ game loop, uniform
  random and simple baseline players, each round's ratio;
* ``bench_env.py``: ``ginrummy.env.env()`` steps per CPU second against PettingZoo 1.26.1's
  ``gin_rummy_v4`` (needs its interpreter: ``--pettingzoo-python``, by default
  ``.venv-pettingzoo/bin/python`` that ``scripts/bench --summary`` creates), each round's ratio;
* ``ginrummy tournament``: the expert's match win rate against ``beginner`` (Neller's player)
  over duplicate ``eaai`` matches, with its 95% interval;
* ``load_server.py``: one server process (SQLite) under a moderate number of tables, p99
  latency of an action's acknowledgement and the server's CPU per action, repeated runs.

Every speed figure is a ratio against the peer measured in the same run; each row gives the
median and the spread (min-max) of its repetitions. The table is printed; ``--write-readme``
also puts it, with the date, the machine (cores, CPU model, Python, load average) and the
command, between the ``<!-- figures:begin -->`` and ``<!-- figures:end -->`` lines of
README.md, leaving the rest of the file as it is. About 6-10 minutes on the project's 2-core
machine (the tournament takes the most: the expert's budget is wall-clock time). ``--quick``
runs every benchmark on tiny sizes, side by side (its figures mean nothing: it checks the
plumbing, see tests/benchmarks/test_summary.py).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
BEGIN = "<!-- figures:begin -->"
END = "<!-- figures:end -->"
HISTORY = "<!-- summary-history -->"
"""The line of docs/benchmarks.md after which the README's previous block is kept."""
COMMAND = "scripts/bench --summary --write-readme"
DEFAULT_PETTINGZOO = ROOT / ".venv-pettingzoo" / "bin" / "python"


@dataclass(frozen=True)
class Sizes:
    """How much each benchmark runs."""

    deadwood_hands: int
    deadwood_rounds: int
    game_hands: int
    game_rounds: int
    env_seconds: float
    env_rounds: int
    expert: str
    """The expert's bot spec (``expert`` plays at its default budget)."""
    matches: int
    """Duplicate deals of the tournament: each a match played twice, seats swapped."""
    jobs: int
    tables: int
    duration: float
    server_runs: int
    load_extra: tuple[str, ...] = ()
    parallel: bool = False
    """Run the benchmarks side by side (only for ``--quick``: it spoils the figures)."""


FULL = Sizes(deadwood_hands=20000, deadwood_rounds=7, game_hands=400, game_rounds=5,
             env_seconds=3.0, env_rounds=3, expert="expert", matches=100, jobs=2,
             tables=200, duration=20.0, server_runs=3)
QUICK = Sizes(deadwood_hands=200, deadwood_rounds=3, game_hands=2, game_rounds=1,
              env_seconds=0.2, env_rounds=1, expert="expert:2", matches=1, jobs=1,
              tables=2, duration=2.0, server_runs=1,
              load_extra=("--think", "0.2", "--ramp", "1", "--settle", "0.5", "--drain", "5",
                          "--client-procs", "1"),
              parallel=True)

ROW_KEYS = ("deadwood", "game-random", "game-simple", "env-pettingzoo", "expert",
            "server-p99", "server-cpu")
"""The table's rows, in order."""


@dataclass
class Row:
    """One line of the table. ``figure`` is the median (or the point estimate), ``spread`` its
    range over the repetitions (or its interval), ``how`` the command that measured it."""

    key: str
    what: str
    figure: str
    spread: str
    how: str


class NotMeasured(Exception):
    """A benchmark could not run (its peer is missing, or it failed): the row says why."""


# ------------------------------------------------------------------------ running the scripts
def run_json(cmd: Sequence[str], timeout: float = 1800) -> Any:
    """Run a benchmark command that prints JSON; its parsed output (kept even when the exit
    status says a run was not OK: the row says so). No JSON (a missing peer: exit status 2,
    the scripts' convention; or a failure) raises NotMeasured with the last line of stderr."""
    done = subprocess.run(list(cmd), capture_output=True, text=True, cwd=ROOT, timeout=timeout,
                          check=False)
    try:
        data = json.loads(done.stdout)
    except json.JSONDecodeError:
        data = None
    if data is None:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise NotMeasured(f"exit status {done.returncode}, no JSON: {last}")
    return data


def _script(name: str) -> list[str]:
    return [sys.executable, str(HERE / name)]


def spread(values: Sequence[float], fmt: str, unit: str = "", of: str = "round") -> str:
    """``min-max`` of ``values`` over their count, e.g. ``0.71-0.78x over 7 rounds``."""
    return _range(min(values), max(values), len(values), fmt, unit, of)


def deadwood(sizes: Sizes) -> tuple[list[Row], Any]:
    """``deadwood`` against OpenSpiel's ``min_deadwood``: time per call, ours / theirs."""
    args = ["--hands", str(sizes.deadwood_hands), "--rounds", str(sizes.deadwood_rounds),
            "--clock", "cpu"]
    data = run_json([*_script("bench_deadwood.py"), *args, "--json"])
    ratios = data["ratio_deadwood_vs_openspiel_rounds"]
    row = Row("deadwood", "`deadwood` of a random 10-card hand, CPU time per call, against "
              "OpenSpiel's C++ `min_deadwood` called from Python",
              f"**{statistics.median(ratios):.2f}x** the time ({data['deadwood_us']:.2f} µs "
              f"against {data['openspiel_min_deadwood_us']:.2f} µs)",
              spread(ratios, ".2f", "x"),
              f"`benchmarks/bench_deadwood.py {' '.join(args)}`")
    return [row], data


def game(sizes: Sizes) -> tuple[list[Row], Any]:
    """Complete hands per second against OpenSpiel's C++ loop, two kinds of players."""
    args = ["--hands", str(sizes.game_hands), "--rounds", str(sizes.game_rounds)]
    data = run_json([*_script("bench_game.py"), *args, "--json"])
    rows = []
    for kind, players in (("random", "uniform random players"),
                          ("simple", "simple baseline players")):
        d = data[kind]
        rows.append(Row(
            f"game-{kind}", f"complete hands per second, {players} (`eaai`), against "
            "OpenSpiel's C++ game loop",
            f"**{d['ratio']:.2f}x** as fast ({d['ginrummy_hands_per_second']:,.0f} against "
            f"{d['openspiel_hands_per_second']:,.0f})",
            _range(d["ratio_min"], d["ratio_max"], d["rounds"], ".2f", "x"),
            f"`benchmarks/bench_game.py {' '.join(args)}`"))
    return rows, data


def _range(low: float, high: float, count: int, fmt: str, unit: str = "",
           of: str = "round") -> str:
    if count == 1:
        return f"one {of} only ({format(low, fmt)}{unit})"
    return f"{format(low, fmt)}-{format(high, fmt)}{unit} over {count} {of}s"


def env(sizes: Sizes, pettingzoo: Path | None) -> tuple[list[Row], Any]:
    """``env()`` steps per CPU second against PettingZoo 1.26.1's ``gin_rummy_v4``."""
    if pettingzoo is None or not pettingzoo.exists():
        raise NotMeasured("no PettingZoo 1.26.1 interpreter (`scripts/bench --summary` makes "
                          "one; or --pettingzoo-python)")
    args = ["--seconds", f"{sizes.env_seconds:g}", "--rounds", str(sizes.env_rounds),
            "--only", "ginrummy,pettingzoo"]
    data = run_json([*_script("bench_env.py"), *args, "--pettingzoo-python", str(pettingzoo),
                     "--json"])
    ours, theirs = data["ginrummy"], data["pettingzoo"]
    ratios = [a / b for a, b in zip(ours["runs"], theirs["runs"], strict=True)]
    row = Row("env-pettingzoo", "PettingZoo environment `ginrummy.env.env()`, random legal "
              "moves, steps per CPU second, against PettingZoo 1.26.1 `gin_rummy_v4`",
              f"**{statistics.median(ratios):.1f}x** as many ({ours['median']:,.0f} against "
              f"{theirs['median']:,.0f})",
              spread(ratios, ".1f", "x"),
              f"`benchmarks/bench_env.py {' '.join(args)} --pettingzoo-python ...`")
    return [row], data


def expert(sizes: Sizes) -> tuple[list[Row], Any]:
    """The expert's match win rate against ``beginner`` over duplicate ``eaai`` matches."""
    from ginrummy.bots.expert import DEFAULT_BUDGET_MS

    args = ["tournament", "--players", f"{sizes.expert},beginner", "--preset", "eaai",
            "--matches", str(sizes.matches), "--seed", "1", "--jobs", str(sizes.jobs)]
    data = run_json([sys.executable, "-m", "ginrummy.cli.main", *args, "--json", "--no-progress"])
    data.pop("deals", None)  # every game's result: too long to keep with the summary
    me = data["players"][0]
    budget = me["budget_ms"] if me["budget_ms"] is not None else DEFAULT_BUDGET_MS
    low, high = me["win_rate_ci"]
    if low is None:  # one deal: no interval over deals, the Wilson one instead
        low, high = me["win_rate_wilson"]
    row = Row("expert", f"`expert` ({budget:g} ms a move) against `beginner` (Neller's "
              f"player), match win rate, {me['games']} duplicate `eaai` matches",
              f"**{me['win_rate']:.1%}**, {me['points_per_hand']:+.2f} points per hand",
              f"95% CI [{low:.1%}, {high:.1%}]",
              f"`ginrummy {' '.join(args)}`")
    return [row], data


def _trouble(run: dict[str, Any]) -> str:
    """Why a load run is not OK, in a few words."""
    parts = []
    if run["tables_opened"] != run["tables"]:
        parts.append(f"{run['tables_opened']} of {run['tables']} tables opened")
    if run["tables_late"]:
        parts.append(f"{run['tables_late']} tables opened after the window began")
    if run["errors"]:
        parts.append("errors " + ", ".join(f"{k} {v}" for k, v in sorted(run["errors"].items())))
    if run["missing_in_db"]:
        parts.append(f"{run['missing_in_db']} acknowledged actions missing")
    if not run["acks_in_window"]:
        parts.append("no action acknowledged in the window")
    return "; ".join(parts) or "see its JSON"


def server(sizes: Sizes) -> tuple[list[Row], Any]:
    """One server process under ``tables`` tables: p99 ack latency and CPU per action."""
    args = ["--tables", str(sizes.tables), "--duration", f"{sizes.duration:g}",
            "--repeat", str(sizes.server_runs), *sizes.load_extra]
    data = run_json([*_script("load_server.py"), *args, "--json"])
    runs = data["runs"]
    p99 = [r["p99_ms"] for r in runs]
    cpu = [r["server_cpu_ms_per_action"] for r in runs if r["server_cpu_ms_per_action"]]
    rate = statistics.median(r["actions_per_second"] for r in runs)
    others = statistics.median(r["others_cpu_percent"] for r in runs)
    stored = ("every acknowledged action stored" if all(r["missing_in_db"] == 0 for r in runs)
              else "**some acknowledged actions missing**")
    not_ok = "".join(f"; **run {i} of {len(runs)} not OK**: {_trouble(r)}"
                     for i, r in enumerate(runs, 1) if not r["ok"])
    how = f"`benchmarks/load_server.py {' '.join(args)}`"
    what = (f"one server process (SQLite), {sizes.tables} tables of two people answering "
            f"{runs[0]['think']:g} s after their turn comes")
    rows = [Row("server-p99", f"{what}: p99 latency of an action's acknowledgement",
                f"**{statistics.median(p99):.1f} ms** ({rate:,.0f} actions/s, {stored}; "
                f"other programs {others:.0f}% of a core{not_ok})",
                spread(p99, ".1f", " ms", "run"), how)]
    if cpu:
        rows.append(Row("server-cpu", f"{what}: server CPU per action",
                        f"**{statistics.median(cpu):.2f} ms**",
                        spread(cpu, ".2f", " ms", "run"), how))
    else:
        rows.append(Row("server-cpu", f"{what}: server CPU per action", "not measured",
                        "", how))
    return rows, data


# ------------------------------------------------------------------------------ the summary
def machine() -> dict[str, Any]:
    """What the figures were measured on."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, cwd=ROOT, check=False).stdout.strip() or None
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--",
                                ".", ":(exclude)*.md"],
                               capture_output=True, text=True, cwd=ROOT,
                               check=False).stdout.strip()
        if commit and dirty:
            commit += " with uncommitted changes"
    except OSError:
        commit = None
    return {"cores": os.cpu_count(), "cpu": model, "python": platform.python_version(),
            "system": f"{platform.system()} {platform.release()}", "commit": commit}


def load_average() -> float | None:
    """The 1-minute load average (None where the system has none)."""
    try:
        return round(os.getloadavg()[0], 1)
    except (AttributeError, OSError):
        return None


Bench = Callable[[], tuple[list[Row], Any]]


def benches(sizes: Sizes, pettingzoo: Path | None) -> list[tuple[str, list[str], Bench]]:
    """Each benchmark: its name, the keys of its rows, the call that measures it."""
    return [
        ("deadwood", ["deadwood"], lambda: deadwood(sizes)),
        ("game", ["game-random", "game-simple"], lambda: game(sizes)),
        ("env", ["env-pettingzoo"], lambda: env(sizes, pettingzoo)),
        ("expert", ["expert"], lambda: expert(sizes)),
        ("server", ["server-p99", "server-cpu"], lambda: server(sizes)),
    ]


def _run_one(name: str, keys: list[str], bench: Bench, log: bool) -> tuple[list[Row], Any,
                                                                            float]:
    start = time.monotonic()
    try:
        rows, data = bench()
    except (NotMeasured, subprocess.TimeoutExpired, KeyError, TypeError) as error:
        reason = str(error) if isinstance(error, NotMeasured) else repr(error)
        rows = [Row(key, key, f"not measured: {reason}", "", "") for key in keys]
        data = {"error": reason}
    seconds = time.monotonic() - start
    if log:
        print(f"{name}: {seconds:.0f} s", file=sys.stderr, flush=True)
    return rows, data, seconds


def measure(sizes: Sizes, pettingzoo: Path | None, log: bool = False) -> dict[str, Any]:
    """Run every benchmark; the rows, each benchmark's raw JSON, the machine and timings."""
    started = datetime.now(UTC)
    load_start = load_average()
    t0 = time.monotonic()
    plan = benches(sizes, pettingzoo)
    if sizes.parallel:
        with ThreadPoolExecutor(len(plan)) as pool:
            outcomes = list(pool.map(lambda p: _run_one(*p, log), plan))
    else:
        outcomes = [_run_one(*p, log) for p in plan]
    rows = [row for out in outcomes for row in out[0]]
    return {
        "date": started.strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine() | {"load_average_start": load_start,
                                "load_average_end": load_average()},
        "seconds": round(time.monotonic() - t0, 1),
        "seconds_by_benchmark": {p[0]: round(o[2], 1) for p, o in zip(plan, outcomes,
                                                                        strict=True)},
        "quick": sizes.parallel,
        "rows": [asdict(r) for r in rows],
        "raw": {p[0]: o[1] for p, o in zip(plan, outcomes, strict=True)},
    }


def table(rows: Sequence[dict[str, str]]) -> str:
    """The Markdown table of the rows."""
    lines = ["| what | figure (median) | spread | measured with |", "|---|---|---|---|"]
    lines += [f"| {r['what']} | {r['figure']} | {r['spread']} | {r['how']} |" for r in rows]
    return "\n".join(lines)


def stamp(summary: dict[str, Any], note: str | None = None) -> str:
    """The line above the table: when, on what, how long, and the command."""
    m = summary["machine"]
    load = ""
    if m.get("load_average_start") is not None:
        load = (f"; load average {m['load_average_start']:g} at the start, "
                f"{m['load_average_end']:g} at the end")
        if max(m["load_average_start"], m["load_average_end"]) > (m["cores"] or 1):
            load += " (more than its cores: other jobs were running)"
    commit = f", code at commit {m['commit']}" if m.get("commit") else ""
    minutes, seconds = divmod(round(summary["seconds"]), 60)
    text = (f"Measured {summary['date']} on {m['cores']} cores ({m['cpu']}), "
            f"Python {m['python']}, {m['system']}{commit}{load}; "
            f"{minutes} min {seconds:02d} s. "
            f"Regenerate with `{COMMAND}`.")
    if summary.get("quick"):
        text += " **Quick run (`--quick`): tiny sizes, run side by side; the figures mean " \
                "nothing.**"
    if note:
        text += f" {note}"
    return text


def block(summary: dict[str, Any], note: str | None = None) -> str:
    """What goes between the README's markers."""
    return f"{stamp(summary, note)}\n\n{table(summary['rows'])}"


def replace_block(text: str, new: str) -> str:
    """``text`` with the lines between ``BEGIN`` and ``END`` replaced by ``new``; the markers
    and everything outside them are kept. ValueError if a marker is missing."""
    start = text.find(BEGIN)
    end = text.find(END, start + len(BEGIN)) if start >= 0 else -1
    if start < 0 or end < 0:
        raise ValueError(f"the README has no {BEGIN} ... {END} block")
    return f"{text[:start + len(BEGIN)]}\n{new.strip()}\n{text[end:]}"


def current_block(text: str) -> str:
    """What stands between the markers of ``text`` (ValueError if a marker is missing)."""
    replace_block(text, "")  # checks the markers
    return text.split(BEGIN, 1)[1].split(END, 1)[0].strip()


def add_to_history(doc: str, old: str) -> str:
    """``doc`` (docs/benchmarks.md) with the README's previous block ``old`` added right after
    its ``HISTORY`` marker, newest first; unchanged if ``old`` is empty or already there.
    ValueError if the marker is missing."""
    if HISTORY not in doc:
        raise ValueError(f"the history file has no {HISTORY} line")
    if not old.strip() or old.strip() in doc:
        return doc
    head, tail = doc.split(HISTORY, 1)
    return f"{head}{HISTORY}\n\n{old.strip()}\n{tail}"


def main(argv: list[str] | None = None) -> int:
    """Command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write-readme", action="store_true",
                        help="put the table between the markers of the README")
    parser.add_argument("--readme", type=Path, default=ROOT / "README.md",
                        help="the file --write-readme rewrites (default: README.md)")
    parser.add_argument("--history", type=Path, default=ROOT / "docs" / "benchmarks.md",
                        help="where --write-readme keeps the block it replaces (default: "
                             "docs/benchmarks.md, after its summary-history marker)")
    parser.add_argument("--allow-missing", action="store_true",
                        help="write the README even if a row could not be measured")
    parser.add_argument("--pettingzoo-python", type=Path, default=DEFAULT_PETTINGZOO,
                        help="python of a pettingzoo[classic]==1.26.1 venv (default "
                             ".venv-pettingzoo/bin/python)")
    parser.add_argument("--note", help="a sentence added after the machine's line")
    parser.add_argument("--quick", action="store_true",
                        help="tiny sizes, side by side: checks the plumbing, not the speed")
    parser.add_argument("--save", type=Path, metavar="FILE",
                        help="write the rows, the machine and every benchmark's JSON to FILE")
    parser.add_argument("--json", action="store_true",
                        help="print the rows, the machine and every benchmark's JSON")
    args = parser.parse_args(argv)
    if args.write_readme:
        try:  # refuse before the ten minutes of measuring, not after
            current_block(args.readme.read_text(encoding="utf-8"))
            add_to_history(args.history.read_text(encoding="utf-8"), "")
        except (OSError, ValueError) as error:
            parser.error(str(error))
    summary = measure(QUICK if args.quick else FULL, args.pettingzoo_python,
                      log=not args.json)
    text = block(summary, args.note)
    missing = [r["key"] for r in summary["rows"] if r["figure"].startswith("not measured")]
    status = 0
    if args.write_readme and missing and not args.allow_missing:
        print(f"not measured: {', '.join(missing)}; the README is left as it was "
              "(--allow-missing writes it anyway)", file=sys.stderr)
        status = 1
    elif args.write_readme:
        readme = args.readme.read_text(encoding="utf-8")
        history = args.history.read_text(encoding="utf-8")
        args.history.write_text(add_to_history(history, current_block(readme)),
                                encoding="utf-8")
        args.readme.write_text(replace_block(readme, text), encoding="utf-8")
    if args.save:
        args.save.write_text(json.dumps(summary | {"block": text}, indent=1) + "\n",
                             encoding="utf-8")
    if args.json:
        print(json.dumps(summary | {"block": text}, indent=1))
    else:
        print(text)
    return status


if __name__ == "__main__":
    sys.exit(main())
