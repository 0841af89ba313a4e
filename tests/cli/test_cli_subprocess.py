"""The command as a real process: exit statuses and piped stdin end to end."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def _run(*argv: str, stdin: str = "", cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ginrummy.cli.main", *argv], input=stdin,
                          capture_output=True, text=True, timeout=60, cwd=cwd,
                          encoding="utf-8")


def test_bad_card_exit_status() -> None:
    proc = _run("analyze", "As Zz")
    assert proc.returncode == 2
    assert "'Zz'" in proc.stderr and "Traceback" not in proc.stderr


def test_piped_match_then_replay(tmp_path: Path) -> None:
    record = tmp_path / "piped.ginrec.json"
    proc = _run("play", "--seed", "8", "--record", str(record), "--ascii", stdin="\n" * 3000)
    assert proc.returncode == 0, proc.stderr
    assert "Match over" in proc.stdout
    last = [line for line in proc.stdout.splitlines() if "wins the match by" in line][-1]
    replay = _run("replay", str(record))
    assert replay.returncode == 0, replay.stderr
    assert last.split(" wins the match by ")[1] in replay.stdout
