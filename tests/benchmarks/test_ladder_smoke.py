"""The ladder benchmark still runs: tiny sizes, every table, a verdict per row.

Strength itself is the benchmark's business (README); here only the script's plumbing is
checked: the rows it reports, their intervals around the figure, and a step so lopsided
(``simple`` against ``random``) that even a few deals show it in every table.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "ladder.py"
TABLES = ["eaai", "classic", "playok", "playok+oklahoma", "arena", "arena3", "arena4"]


def run_script(*args: str) -> subprocess.CompletedProcess[str]:
    """The benchmark script with ``args``."""
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True,
                          text=True, timeout=240, check=False)


def test_every_table_reports_a_verdict() -> None:
    done = run_script("--steps", "simple>random", "--hands", "12", "--matches", "4",
                      "--jobs", "1", "--json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)["rows"]
    assert [row["table"] for row in rows] == TABLES
    for row in rows:
        low, high = row["interval"]
        assert low <= row["value"] <= high
        assert row["verdict"] == "shown", row
        seats = 3 if row["table"] == "arena3" else 4 if row["table"] == "arena4" else 2
        assert row["players"] == ["simple"] + ["random"] * (seats - 1)
    assert rows[0]["measure"] == "match win rate"
    assert {row["measure"] for row in rows[1:]} == {"points per hand"}


def test_bad_arguments_get_a_message_not_a_traceback() -> None:
    for args, message in ((["--steps", "simple"], "upper>lower"),
                          (["--presets", "poker"], "unknown table"),
                          (["--steps", "simple>nobody"], "unknown player"),
                          (["--hands", "1"], "at least 2")):
        done = run_script(*args)
        assert done.returncode == 2, args
        assert message in done.stderr, (args, done.stderr)
        assert "Traceback" not in done.stderr
