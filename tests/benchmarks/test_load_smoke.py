"""The server load benchmark still runs: two tables for a few seconds, every ack stored.

No timing is asserted (speed is the benchmark's business, not a test's): only that the script
starts a server, plays legal actions over WebSockets without an error, reports its figures and
finds every acknowledged action in the database after killing the server.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "load_server.py"


def run_script(*args: str) -> subprocess.CompletedProcess[str]:
    """The benchmark script with ``args``."""
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          timeout=240, check=False)


@pytest.mark.slow
@pytest.mark.soak
def test_two_tables_play_and_every_ack_is_stored() -> None:
    done = run_script("--tables", "2", "--duration", "4", "--think", "0.2", "--ramp", "1",
                      "--settle", "1", "--drain", "10", "--client-procs", "2", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    run = report["runs"][0]
    assert run["ok"] is True
    assert run["tables_opened"] == 2
    assert run["errors"] == {}  # no delta that did not apply (delta_gap) either
    assert run["deltas_per_second"] > 0 and 0 < run["delta_bytes_mean"] < run["state_bytes_mean"]
    assert run["bytes_per_action"] > 0
    assert run["acks_in_window"] > 0
    assert run["actions_per_second"] > 0
    assert 0 < run["p50_ms"] <= run["p99_ms"] <= run["max_ms"]
    assert run["acked_total"] >= run["acks_in_window"]
    assert run["stored_acked"] == run["acked_total"]
    assert run["missing_in_db"] == 0
    assert run["server_cpu_percent"] is not None
    assert run["commits_per_second"] > 0
    assert report["largest_tables_within_target"] in (None, 2)


def test_bad_arguments_are_refused_by_name() -> None:
    done = run_script("--tables", "0")
    assert done.returncode == 2
    assert "--tables" in done.stderr
    done = run_script("--sweep", "1,x")
    assert done.returncode == 2
    assert "--sweep" in done.stderr
