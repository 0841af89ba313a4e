"""The optional extras and the command line: building the parser imports no optional package,
a command whose extra is missing says in one line which one to install (exit status 2), and
``--version`` prints the one version of the package.

The optional packages are installed in the test environment; a child process hides them
(``sys.modules[name] = None`` makes ``import name`` fail) to stand for an install without
them. tests/test_install.py checks the same on a real install from the built wheel.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_helpers import Run

import ginrummy

OPTIONAL = ("sqlalchemy", "alembic", "starlette", "uvicorn", "pydantic", "orjson", "psycopg",
            "argon2", "redis", "rich", "numpy", "gymnasium", "pettingzoo", "ray", "pyspiel")
"""Top-level modules of the extras' packages (server, cli, env, ray, bench)."""
SERVER = ("sqlalchemy", "alembic", "starlette", "uvicorn", "pydantic", "orjson", "psycopg",
          "argon2", "redis")

CHILD = """\
import json, sys
sys.modules.update(dict.fromkeys(json.loads(sys.argv[1]), None))
from ginrummy.cli.main import build_parser, main
if sys.argv[2] == "--imported":
    build_parser()
    print(json.dumps(sorted({name.partition(".")[0] for name in sys.modules})))
    sys.exit(0)
sys.exit(main(sys.argv[2:]))
"""


def _child(hidden: tuple[str, ...], *argv: str, cwd: Path | None = None, stdin: str = ""
           ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", CHILD, json.dumps(hidden), *argv],
                          capture_output=True, text=True, timeout=120, cwd=cwd, input=stdin,
                          encoding="utf-8", env=os.environ | {"PYTHONIOENCODING": "utf-8"})


def test_the_parser_imports_no_optional_package() -> None:
    proc = _child((), "--imported")
    assert proc.returncode == 0, proc.stderr
    imported = set(json.loads(proc.stdout))
    assert "ginrummy" in imported
    assert imported.isdisjoint(OPTIONAL), sorted(imported & set(OPTIONAL))


@pytest.mark.parametrize("argv", [("serve", "--port", "0"), ("admin", "create", "ann"),
                                  ("ledger", "check")])
def test_a_server_command_without_the_server_extra(argv: tuple[str, ...], tmp_path: Path
                                                   ) -> None:
    proc = _child(SERVER, *argv, "--db", f"sqlite:///{tmp_path / 'g.db'}", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    command = " ".join(argv[:2]) if argv[0] != "serve" else "serve"
    assert proc.stderr.startswith(f"ginrummy {command} needs the server extra: "
                                  f"pip install 'ginrummy[server]' ("), proc.stderr
    assert list(tmp_path.iterdir()) == []  # nothing created


@pytest.mark.parametrize("argv", [("--help",), ("serve", "--help"), ("ledger", "check", "--help"),
                                  ("admin", "create", "--help")])
def test_help_works_without_any_extra(argv: tuple[str, ...]) -> None:
    proc = _child(OPTIONAL, *argv)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: ginrummy")


def test_play_without_rich_is_plain_text(tmp_path: Path) -> None:
    proc = _child(OPTIONAL, "play", "--seed", "8", "--no-record", cwd=tmp_path,
                  stdin="\n" * 3000)  # Enter takes the proposed choice, to the match's end
    assert "Match over" in proc.stdout and "Traceback" not in proc.stderr
    assert "♠" in proc.stdout  # UTF-8 output: suit symbols, printed plainly without rich
    assert proc.returncode == 0, proc.stderr


def test_version_is_the_package_version(cli: Callable[..., Run]) -> None:
    run = cli("--version")
    assert run.code == 0
    assert run.out == f"ginrummy {ginrummy.__version__}\n"
    assert importlib.metadata.version("ginrummy") == ginrummy.__version__
