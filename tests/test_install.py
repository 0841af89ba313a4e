"""``pip install ginrummy`` with no extra: the sdist and wheel built from a copy of the sources
pass ``twine check``, the wheel carries the web client, the migrations and ``py.typed``, and
installed alone in a fresh venv (offline: the core has no dependencies) its ``ginrummy``
command runs every core subcommand, while the server commands and ``--backend ray`` say in
one line which extra to install (exit status 2). scripts/check-installs does the same for each
extra (from PyPI).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import ginrummy
from fair_helpers import fair_match_record

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "ginrummy"
DATA_DIRS = ("web/static", "storage/migrations")
"""Directories whose every file (Python or not) the wheel must carry."""
OPTIONAL = ("sqlalchemy", "alembic", "starlette", "uvicorn", "pydantic", "rich", "numpy",
            "gymnasium", "pettingzoo", "ray")
HAND = "3s 5s 6s 5c 6c 3d 6d 4h 5h 6h 7h"
TIMEOUT = 300


def _run(argv: list[str | Path], cwd: Path, stdin: str = "",
         env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in argv], cwd=cwd, input=stdin, capture_output=True,
                          text=True, encoding="utf-8", timeout=TIMEOUT, env=env)


def _ok(proc: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert proc.returncode == 0, f"{proc.args}: {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


def _build(tmp: Path) -> tuple[Path, Path]:
    """The sdist and the wheel (built from the sdist) of a copy of the sources."""
    source = tmp / "source"
    shutil.copytree(PACKAGE.parent, source / "src", ignore=shutil.ignore_patterns(
        "__pycache__", "*.pyc", "*.egg-info"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    dist = tmp / "dist"
    _ok(_run([sys.executable, "-m", "build", "--no-isolation", "--outdir", dist, source], tmp))
    sdists, wheels = sorted(dist.glob("*.tar.gz")), sorted(dist.glob("*.whl"))
    assert len(sdists) == 1 and len(wheels) == 1, sorted(dist.iterdir())
    _ok(_run([sys.executable, "-m", "twine", "check", "--strict", sdists[0], wheels[0]], tmp))
    return sdists[0], wheels[0]


def _check_wheel_files(wheel: Path) -> None:
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


def _venv(tmp: Path, wheel: Path) -> Path:
    """A fresh venv with the wheel alone, installed offline; its ``bin`` folder."""
    venv = tmp / "venv"
    _ok(_run([sys.executable, "-m", "venv", "--without-pip", venv], tmp))
    python = venv / "bin" / "python"
    _ok(_run([sys.executable, "-m", "pip", "--python", python, "install", "--isolated",
              "--no-index", "--disable-pip-version-check", "--quiet", wheel], tmp))
    present = _ok(_run([python, "-c", "import importlib.util, sys; print(' '.join(m for m in "
                        "sys.argv[1:] if importlib.util.find_spec(m)))", *OPTIONAL], tmp))
    assert present.stdout.split() == []  # nothing but the core
    return venv / "bin"


def _one_line_extra(proc: subprocess.CompletedProcess[str], command: str, extra: str) -> None:
    assert proc.returncode == 2, (proc.args, proc.stdout, proc.stderr)
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.startswith(f"ginrummy {command} needs the {extra} extra: "
                                  f"pip install 'ginrummy[{extra}]'"), proc.stderr


@pytest.mark.slow
def test_the_wheel_without_extras(tmp_path: Path) -> None:
    _, wheel = _build(tmp_path)
    _check_wheel_files(wheel)
    bin_dir = _venv(tmp_path, wheel)
    work = tmp_path / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env |= {"PYTHONIOENCODING": "utf-8", "GINRUMMY_DB": f"sqlite:///{work / 'ginrummy.db'}"}

    def gin(*argv: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return _run([bin_dir / "ginrummy", *argv], work, stdin, env)

    assert _ok(gin("--version")).stdout == f"ginrummy {ginrummy.__version__}\n"
    usage = _ok(gin("--help")).stdout
    for command in ("play", "analyze", "simulate", "tournament", "replay", "verify", "coach",
                    "serve", "ledger", "admin"):
        assert re.search(rf"^    {command}\b", usage, re.MULTILINE), command
    assert "eaai" in _ok(gin("rules")).stdout

    # the installed command answers as the source tree's does
    source = _ok(_run([sys.executable, "-m", "ginrummy.cli.main", "analyze", HAND, "--json"],
                      work))
    assert json.loads(_ok(gin("analyze", HAND, "--json")).stdout) == json.loads(source.stdout)

    simulated = json.loads(_ok(gin("simulate", "--players", "simple,random", "--hands", "20",
                                   "--seed", "1", "--json")).stdout)
    assert simulated["hands"] == 20
    played = json.loads(_ok(gin("tournament", "--players", "simple,random", "--hands", "4",
                                "--seed", "1", "--json", "--no-progress")).stdout)
    assert len(played["deals"]) == 4
    assert sum(played["outcomes"].values()) == 8  # each deal once per seat rotation

    record = work / "game.ginrec.json"
    match = _ok(gin("play", "--seed", "8", "--record", str(record), stdin="\n" * 3000))
    assert "Match over" in match.stdout and "♠" in match.stdout  # plain symbols, no rich
    winner = [line for line in match.stdout.splitlines() if "wins the match by" in line][-1]
    assert winner.split(" wins the match by ")[1] in _ok(gin("replay", str(record))).stdout
    coached = json.loads(_ok(gin("coach", str(record), "--budget", "1", "--json")).stdout)
    assert coached["finished"] and coached["summary"]["decisions"] == len(coached["verdicts"]) > 0

    fair = work / "fair.ginrec.json"
    fair.write_text(json.dumps(fair_match_record(3, target=25)))
    hands = len(json.loads(fair.read_text())["hands"])
    assert _ok(gin("verify", str(fair))).stdout.splitlines()[-1] == (
        f"{hands} of {hands} hands verified")

    _one_line_extra(gin("tournament", "--players", "simple,random", "--hands", "1",
                        "--backend", "ray"), "tournament --backend ray", "ray")
    _one_line_extra(gin("serve"), "serve", "server")
    _one_line_extra(gin("admin", "create", "ann", stdin="a long password\n"), "admin create",
                    "server")
    _one_line_extra(gin("ledger", "check"), "ledger check", "server")
    assert sorted(p.name for p in work.iterdir()) == ["fair.ginrec.json", "game.ginrec.json"]
