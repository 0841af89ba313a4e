"""Installs of the built package, for tests/test_install.py (no extra, offline) and
scripts/check-installs (each extra, from PyPI): build the sdist and wheel from a copy of the
sources, install the wheel with an extra into a fresh venv, and run the ``ginrummy`` command
there. Each check raises AssertionError with what went wrong.

``python tests/install_checks.py [EXTRA...]`` (what scripts/check-installs runs) prints the
table extra x check -> result.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import ginrummy

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "ginrummy"
DATA_DIRS = ("web/static", "storage/migrations")
"""Directories whose every file (Python or not) the wheel must carry."""
EXTRAS = ("cli", "env", "server", "ray")
MODULES = {"cli": ("rich",), "env": ("numpy", "gymnasium", "pettingzoo"),
           "server": ("sqlalchemy", "alembic", "starlette", "uvicorn", "pydantic"),
           "ray": ("ray",)}
"""Top-level modules that each extra installs (some of them)."""
HAND = "3s 5s 6s 5c 6c 3d 6d 4h 5h 6h 7h"
TIMEOUT = 600
Proc = subprocess.CompletedProcess[str]


def run(argv: list[str | Path], cwd: Path, stdin: str = "", env: dict[str, str] | None = None,
        timeout: float = TIMEOUT) -> Proc:
    """``argv`` run to its end, its output captured."""
    return subprocess.run([str(a) for a in argv], cwd=cwd, input=stdin, capture_output=True,
                          text=True, encoding="utf-8", timeout=timeout, env=env)


def ok(proc: Proc) -> Proc:
    """``proc``, which must have succeeded."""
    assert proc.returncode == 0, f"{proc.args}: {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


def build(tmp: Path) -> Path:
    """The wheel built from the sdist of a copy of the sources (both pass ``twine check``)."""
    source = tmp / "source"
    shutil.copytree(PACKAGE.parent, source / "src", ignore=shutil.ignore_patterns(
        "__pycache__", "*.pyc", "*.egg-info"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    dist = tmp / "dist"
    ok(run([sys.executable, "-m", "build", "--no-isolation", "--outdir", dist, source], tmp))
    sdists, wheels = sorted(dist.glob("*.tar.gz")), sorted(dist.glob("*.whl"))
    assert len(sdists) == 1 and len(wheels) == 1, sorted(dist.iterdir())
    ok(run([sys.executable, "-m", "twine", "check", "--strict", sdists[0], wheels[0]], tmp))
    return wheels[0]


def check_wheel_files(wheel: Path) -> None:
    """The wheel is this version's and carries py.typed, the web client and the migrations."""
    assert wheel.name == f"ginrummy-{ginrummy.__version__}-py3-none-any.whl"
    names = set(zipfile.ZipFile(wheel).namelist())
    wanted = {"ginrummy/py.typed", "ginrummy/storage/migrations/script.py.mako"}
    for folder in DATA_DIRS:
        wanted |= {f"ginrummy/{path.relative_to(PACKAGE).as_posix()}"
                   for path in (PACKAGE / folder).rglob("*")
                   if path.is_file() and "__pycache__" not in path.parts}
    assert any(name.startswith("ginrummy/storage/migrations/versions/r0") for name in wanted)
    assert any(name.endswith(".js") for name in wanted)
    assert wanted <= names, sorted(wanted - names)


@dataclass
class Install:
    """A fresh venv holding the wheel with ``extra`` (``""``: none) and a work folder."""

    venv: Path
    extra: str
    work: Path
    env: dict[str, str] = field(default_factory=dict)

    @classmethod
    def create(cls, tmp: Path, wheel: Path, extra: str = "") -> Install:
        """Install the wheel into ``tmp/venv``: offline without an extra, else from the
        index (the extra's packages)."""
        venv = tmp / "venv"
        ok(run([sys.executable, "-m", "venv", "--without-pip", venv], tmp))
        spec = f"{wheel}[{extra}]" if extra else str(wheel)
        where = [] if extra else ["--isolated", "--no-index"]
        ok(run([sys.executable, "-m", "pip", "--python", venv / "bin" / "python", "install",
                *where, "--disable-pip-version-check", "--quiet", spec], tmp))
        work = tmp / "work"
        work.mkdir()
        env = {k: v for k, v in os.environ.items()
               if k not in ("PYTHONPATH", "PYTHONHOME", "GINRUMMY_DB", "FORCE_COLOR")}
        env |= {"PYTHONIOENCODING": "utf-8", "GINRUMMY_DB": f"sqlite:///{work / 'ginrummy.db'}"}
        return cls(venv, extra, work, env)

    def gin(self, *argv: str, stdin: str = "", env: dict[str, str] | None = None) -> Proc:
        """``ginrummy argv`` in the venv, run in the work folder."""
        return run([self.venv / "bin" / "ginrummy", *argv], self.work, stdin,
                   self.env | (env or {}))

    def python(self, code: str, *argv: str) -> Proc:
        """The venv's Python running ``code``."""
        return run([self.venv / "bin" / "python", "-c", code, *argv], self.work, "", self.env)

    def present(self) -> set[str]:
        """The extras' modules that are importable in the venv."""
        wanted = [m for modules in MODULES.values() for m in modules]
        proc = ok(self.python("import importlib.util, sys; print(' '.join(m for m in "
                              "sys.argv[1:] if importlib.util.find_spec(m)))", *wanted))
        return set(proc.stdout.split())


def one_line_extra(proc: Proc, command: str, extra: str) -> None:
    """``proc`` said in one line that ``command`` needs ``extra``, exit status 2."""
    assert proc.returncode == 2, (proc.args, proc.returncode, proc.stdout, proc.stderr)
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.startswith(f"ginrummy {command} needs the {extra} extra: "
                                  f"pip install 'ginrummy[{extra}]'"), proc.stderr


# the checks: each takes the install and raises AssertionError when it fails

def check_extras_present(inst: Install) -> None:
    """The extra's packages are installed, and no other extra's (numpy and rich may come as
    dependencies of others)."""
    expected = set(MODULES.get(inst.extra, ()))
    incidental = {"numpy", "rich"} if inst.extra else set()
    present = inst.present()
    assert expected <= present and not present - expected - incidental, present


def check_version(inst: Install) -> None:
    assert ok(inst.gin("--version")).stdout == f"ginrummy {ginrummy.__version__}\n"


def check_help(inst: Install) -> None:
    usage = ok(inst.gin("--help")).stdout
    for command in ("play", "analyze", "simulate", "tournament", "replay", "verify", "coach",
                    "rules", "serve", "ledger", "admin"):
        assert re.search(rf"^    {command}\b", usage, re.MULTILINE), command
    assert "eaai" in ok(inst.gin("rules")).stdout


def check_analyze(inst: Install) -> None:
    """The installed command answers as the source tree's does."""
    source = ok(run([sys.executable, "-m", "ginrummy.cli.main", "analyze", HAND, "--json"],
                    inst.work))
    assert json.loads(ok(inst.gin("analyze", HAND, "--json")).stdout) == json.loads(source.stdout)


def check_simulate(inst: Install) -> None:
    simulated = json.loads(ok(inst.gin("simulate", "--players", "simple,random", "--hands", "20",
                                       "--seed", "1", "--json")).stdout)
    assert simulated["hands"] == 20 == sum(simulated["outcomes"].values())


def check_tournament(inst: Install) -> None:
    played = json.loads(ok(inst.gin("tournament", "--players", "simple,random", "--hands", "4",
                                    "--seed", "1", "--json", "--no-progress")).stdout)
    assert len(played["deals"]) == 4
    assert sum(played["outcomes"].values()) == 8  # each deal once per seat rotation


def check_play_replay_coach(inst: Install) -> None:
    """A match piped to the end (Enter takes the proposed choice), replayed and coached."""
    record = inst.work / "game.ginrec.json"
    match = ok(inst.gin("play", "--seed", "8", "--record", str(record), stdin="\n" * 3000))
    assert "Match over" in match.stdout and "♠" in match.stdout
    winner = [line for line in match.stdout.splitlines() if "wins the match by" in line][-1]
    assert winner.split(" wins the match by ")[1] in ok(inst.gin("replay", str(record))).stdout
    coached = json.loads(ok(inst.gin("coach", str(record), "--budget", "1", "--json")).stdout)
    assert coached["finished"] and coached["summary"]["decisions"] == len(coached["verdicts"]) > 0


def check_play_colours(inst: Install) -> None:
    """With rich (the cli extra) play draws in colour when asked to (FORCE_COLOR)."""
    match = ok(inst.gin("play", "--seed", "8", "--no-record", stdin="\n" * 3000,
                        env={"FORCE_COLOR": "1"}))
    assert "Match over" in match.stdout and "\x1b[" in match.stdout


def check_verify(inst: Install) -> None:
    sys.path.insert(0, str(ROOT / "tests"))
    from fair_helpers import fair_match_record

    fair = inst.work / "fair.ginrec.json"
    fair.write_text(json.dumps(fair_match_record(8, target=25)))
    hands = len(json.loads(fair.read_text())["hands"])
    last = ok(inst.gin("verify", str(fair))).stdout.splitlines()[-1]
    assert last == f"{hands} of {hands} hands verified", last


def check_no_ray(inst: Install) -> None:
    one_line_extra(inst.gin("tournament", "--players", "simple,random", "--hands", "1",
                            "--backend", "ray"), "tournament --backend ray", "ray")


def check_no_server(inst: Install) -> None:
    one_line_extra(inst.gin("serve"), "serve", "server")
    one_line_extra(inst.gin("admin", "create", "ann", stdin="a long password\n"),
                   "admin create", "server")
    one_line_extra(inst.gin("ledger", "check"), "ledger check", "server")
    assert not (inst.work / "ginrummy.db").exists()


def check_env(inst: Install) -> None:
    """The PettingZoo and Gymnasium environments pass those libraries' own checks."""
    ok(inst.python("from gymnasium.utils.env_checker import check_env\n"
                   "from pettingzoo.test import api_test\n"
                   "from ginrummy.env import GinRummyGym, env\n"
                   "check_env(GinRummyGym(), skip_render_check=True)\n"
                   "api_test(env(), num_cycles=200)\n"))


def check_server(inst: Install) -> None:
    """serve --help; an administrator on a fresh SQLite database, its ledger checked; the
    server started on a free port answers /healthz and serves the web client."""
    assert "--db" in ok(inst.gin("serve", "--help")).stdout
    db = f"sqlite:///{inst.work / 'fresh.db'}"
    assert "administrator ann created" in ok(inst.gin("admin", "create", "ann", "--db", db,
                                                      stdin="a long password 1\n")).stdout
    ok(inst.gin("ledger", "check", "--db", db))
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = subprocess.Popen([inst.venv / "bin" / "ginrummy", "serve", "--port", str(port),
                               "--db", db], cwd=inst.work, env=inst.env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        page = ""
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and server.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as reply:
                    page = reply.read().decode()
                break
            except OSError:
                time.sleep(0.5)
        assert server.poll() is None, server.communicate()[1]
        index = (PACKAGE / "web" / "static" / "index.html").read_text()
        assert "<html" in page and page.count("<script") == index.count("<script"), page[:300]
    finally:
        server.terminate()
        server.wait(30)


def check_ray(inst: Install) -> None:
    """A tournament on a local Ray."""
    played = json.loads(ok(inst.gin("tournament", "--players", "simple,random", "--hands", "2",
                                    "--seed", "1", "--json", "--no-progress", "--backend",
                                    "ray", "--jobs", "1")).stdout)
    assert played["settings"]["backend"] == "ray" and len(played["deals"]) == 2


CORE: tuple[Callable[[Install], None], ...] = (
    check_extras_present, check_version, check_help, check_analyze, check_simulate,
    check_tournament, check_play_replay_coach, check_verify)
CHECKS: dict[str, tuple[Callable[[Install], None], ...]] = {
    "": (*CORE, check_no_ray, check_no_server),
    "cli": (*CORE, check_play_colours, check_no_ray, check_no_server),
    "env": (*CORE, check_env, check_no_ray, check_no_server),
    "server": (*CORE, check_server, check_no_ray),
    "ray": (*CORE, check_ray, check_no_server),
}
"""What each install must do: the core commands, its extra's, and the others' messages."""


def main(extras: list[str]) -> int:
    """Check each install; print one line per check and a summary; 1 when any failed."""
    failed = 0
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        started = time.monotonic()
        wheel = build(tmp)
        check_wheel_files(wheel)
        print(f"build: {time.monotonic() - started:.1f} s", flush=True)
        for extra in extras:
            place = tmp / (extra or "none")
            place.mkdir()
            started = time.monotonic()
            try:
                inst = Install.create(place, wheel, extra)
            except AssertionError as exc:
                print(f"{extra or 'none':7} install FAILED: {exc}", flush=True)
                failed += 1
                continue
            print(f"{extra or 'none':7} install: {time.monotonic() - started:.1f} s",
                  flush=True)
            for check in CHECKS[extra]:
                started = time.monotonic()
                try:
                    check(inst)
                    result = "ok"
                except (AssertionError, subprocess.TimeoutExpired) as exc:
                    result = "FAILED: " + str(exc).replace("\n", " | ")[:300]
                    failed += 1
                name = check.__name__.removeprefix("check_")
                print(f"{extra or 'none':7} {name:18} {result} "
                      f"({time.monotonic() - started:.1f} s)", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main([("" if a == "none" else a) for a in sys.argv[1:]]
                  or ["", *EXTRAS]))
