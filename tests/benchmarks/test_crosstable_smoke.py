"""The cross-table benchmark still runs: tiny sizes, every pair once, the table mirrored.

Strength itself is the benchmark's business (docs/bots.md); here only the plumbing is
checked: one row per pair, the stronger level of each pair first, intervals around the
figures, and the markdown table whose lower half mirrors its upper half.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "crosstable.py"


def run_script(*args: str) -> subprocess.CompletedProcess[str]:
    """The benchmark script with ``args``."""
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True,
                          text=True, timeout=240, check=False)


def test_every_pair_is_played_once_and_the_table_mirrors_it() -> None:
    done = run_script("--levels", "random,simple,beginner", "--matches", "3", "--jobs", "1",
                      "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    pairs = [(p["row"], p["column"]) for p in report["pairs"]]
    assert pairs == [("simple", "random"), ("beginner", "random"), ("beginner", "simple")]
    for pair in report["pairs"]:
        low, high = pair["win_rate_ci"]
        assert low <= pair["win_rate"] <= high and pair["games"] == 6
        plow, phigh = pair["points_per_hand_ci"]
        assert plow <= pair["points_per_hand"] <= phigh
    assert report["pairs"][0]["win_rate"] > 0.5  # simple beats random even in 3 deals
    shown = run_script("--levels", "random,simple", "--matches", "2", "--jobs", "1")
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    random_row = next(line for line in lines if line.startswith("| **random**"))
    simple_row = next(line for line in lines if line.startswith("| **simple**"))
    assert random_row.split("|")[2].strip() == ""  # no level plays itself
    won = simple_row.split("|")[2].strip().split(" ")[0]
    lost = random_row.split("|")[3].strip().split(" ")[0]
    assert float(won.rstrip("%")) + float(lost.rstrip("%")) == 100.0


def test_bad_arguments_get_a_message_not_a_traceback() -> None:
    for args, message in ((["--levels", "simple"], "at least two"),
                          (["--levels", "simple,nobody"], "unknown player"),
                          (["--matches", "1"], "at least 2")):
        done = run_script(*args)
        assert done.returncode == 2, args
        assert message in done.stderr, (args, done.stderr)
        assert "Traceback" not in done.stderr
