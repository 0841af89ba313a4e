"""``serve --workers N`` children outlive no supervisor (docs/cluster.md, *How to run it*):
when the supervisor is SIGKILLed, each child stops gracefully, as on SIGTERM, handing its
tables over (its leases released, not left to expire); the portable fallback (a child that
sees its parent pid change) stops a child whose parent died where no death signal was armed."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cluster_helpers import lease_holders
from test_cluster_node import open_tables, start_workers, until

from pg_helpers import pg_schema, schema_url


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for its new parent to reap it does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def pid_in(path: Path) -> int:
    """The pid a test's middle process printed (on a line of its own, before or after the
    child's own lines)."""
    def printed() -> list[str]:
        return [w for w in path.read_text().split() if w.isdigit()]

    until(lambda: bool(printed()), timeout=30, what="the pid printed")
    return int(printed()[0])


@pytest.mark.slow
def test_the_workers_stop_gracefully_when_their_supervisor_is_killed(
        prefix: str, tmp_path: Path) -> None:
    if not Path("/proc/self/task").exists():
        pytest.skip("reads the process tree from /proc (Linux)")
    with pg_schema("orphans") as schema:
        log_path = tmp_path / "workers.log"
        # leases of 60 s: released within seconds only by a graceful stop, never by expiry
        with log_path.open("wb") as log_file:
            parent, base, workers = start_workers(
                schema_url(schema), prefix, {"GINRUMMY_LEASE_TTL_MS": "60000"},
                stdout=log_file, stderr=subprocess.STDOUT)
        try:
            ids = open_tables(base, 6, {"nickname": "Ann", "bots": {"1": "simple"}})
            held = lease_holders(prefix, ids)
            assert set(held) == set(ids)
            assert all(owner.endswith(tuple(f":{pid}" for pid in workers))
                       for owner in held.values())

            killed_at = time.monotonic()
            parent.kill()  # SIGKILL: no signal forwarded to the children
            assert parent.wait(10) == -signal.SIGKILL
            until(lambda: not any(alive(pid) for pid in workers), timeout=20,
                  what="every worker stops after its supervisor was killed")
            stopped_in = time.monotonic() - killed_at
            assert stopped_in < 15, stopped_in
            assert lease_holders(prefix, ids) == {}  # handed over: released, not expired
            log = log_path.read_text(errors="replace")
            assert log.count("table(s) handed over") == 2, log[-3000:]
        finally:
            if parent.poll() is None:
                parent.kill()
                parent.wait()
            for pid in workers:
                with contextlib.suppress(ProcessLookupError):
                    if alive(pid):
                        os.kill(pid, signal.SIGKILL)


ORPHAN = """
import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", '''
import os, signal, sys, time
from ginrummy.cli.workers import watch_supervisor
def stop(*_):
    print("stopping", flush=True)
    sys.exit(0)
signal.signal(signal.SIGTERM, stop)
watch_supervisor(os.getppid(), every=0.1)
print("watching", flush=True)
time.sleep(60)
'''])
print(child.pid, flush=True)
time.sleep(60)
"""


def orphaned_child_stops(out: Path, script: str, started: str, what: str) -> None:
    """Run ``script`` (a middle process that starts a child and prints its pid), wait for
    ``started`` in the output, SIGKILL the middle process: the child stops through its
    SIGTERM handler (a graceful stop) within 10 s."""
    with out.open("wb") as sink:
        middle = subprocess.Popen([sys.executable, "-c", script], stdout=sink,
                                  stderr=subprocess.STDOUT)
    try:
        until(lambda: started in out.read_text(), timeout=30, what="the child starts")
        grandchild = pid_in(out)
        assert alive(grandchild)
        middle.kill()
        middle.wait(10)
        until(lambda: not alive(grandchild), timeout=10, what=what)
        assert "stopping" in out.read_text()  # through its SIGTERM handler: a graceful stop
    finally:
        if middle.poll() is None:
            middle.kill()
            middle.wait()


def test_a_child_that_sees_its_parent_die_stops_itself(tmp_path: Path) -> None:
    # the portable fallback alone: this grandchild has no death signal armed
    orphaned_child_stops(tmp_path / "orphan.out", ORPHAN, "watching",
                         "the orphan stops itself")


ARMED = """
import os, subprocess, sys, time
from ginrummy.cli.workers import stop_with
child = subprocess.Popen([sys.executable, "-c", '''
import signal, sys, time
def stop(*_):
    print("stopping", flush=True)
    sys.exit(0)
signal.signal(signal.SIGTERM, stop)
print("armed", flush=True)
time.sleep(60)
'''], preexec_fn=stop_with(os.getpid()))
print(child.pid, flush=True)
time.sleep(60)
"""


def test_the_kernel_sends_sigterm_to_a_child_whose_supervisor_died(tmp_path: Path) -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("PR_SET_PDEATHSIG is Linux's")
    # the death signal alone: this grandchild does not watch its parent
    orphaned_child_stops(tmp_path / "armed.out", ARMED, "armed", "the kernel stops the child")
