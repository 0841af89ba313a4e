"""``serve --workers N`` children outlive no supervisor (docs/cluster.md, *How to run it*):
when the supervisor is SIGKILLed, each child stops gracefully, as on SIGTERM, handing its
tables over (its leases released, not left to expire); the portable fallback (a child that
sees its parent pid change) stops a child whose parent died where no death signal was armed."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from cluster_helpers import REDIS_URL, redis_client
from test_cluster_node import children_of, closed_port, until

from ginrummy.server.cluster import LeaseStore
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


def lease_holders(prefix: str, ids: list[str]) -> dict[str, str]:
    """The owners of the tables' leases now."""
    async def read() -> dict[str, str]:
        redis = redis_client()
        try:
            store = LeaseStore(redis, "reader@test:1", prefix)
            return {t: h.owner for t, h in (await store.holders(ids)).items()}
        finally:
            await redis.aclose()

    return asyncio.run(read())


@pytest.mark.slow
def test_the_workers_stop_gracefully_when_their_supervisor_is_killed(
        prefix: str, tmp_path: Path) -> None:
    if not Path("/proc/self/task").exists():
        pytest.skip("reads the process tree from /proc (Linux)")
    with pg_schema("orphans") as schema:
        port = closed_port()
        # leases of 60 s: released within seconds only by a graceful stop, never by expiry
        env = {**os.environ, "GINRUMMY_REDIS_PREFIX": prefix, "GINRUMMY_SWEEP_SECONDS": "0.2",
               "GINRUMMY_LEASE_TTL_MS": "60000"}
        command = [sys.executable, "-c", "import sys; from ginrummy.cli.main import main; "
                   "sys.exit(main(sys.argv[1:]))", "serve", "--port", str(port),
                   "--db", schema_url(schema), "--redis", REDIS_URL, "--workers", "2",
                   "--log-level", "info", "--log-format", "text"]
        log_path = tmp_path / "workers.log"
        with log_path.open("wb") as log_file:
            parent = subprocess.Popen(command, env=env, stdout=log_file,
                                      stderr=subprocess.STDOUT)
        workers: list[int] = []
        try:
            base = f"http://127.0.0.1:{port}"

            def ready() -> bool:
                with contextlib.suppress(httpx.HTTPError):
                    return httpx.get(f"{base}/readyz", timeout=5,
                                     trust_env=False).status_code == 200
                return False

            until(lambda: len(children_of(parent.pid)) == 2 and ready(), timeout=60,
                  what="two server processes answer on the port")
            workers = children_of(parent.pid)
            ids = []
            for _ in range(6):  # new connections: the kernel spreads them over the workers
                with httpx.Client(base_url=base, trust_env=False, timeout=30,
                                  headers={"Origin": base}) as fresh:
                    answer = fresh.post("/api/tables", json={"nickname": "Ann",
                                                             "bots": {"1": "simple"}})
                assert answer.status_code == 201, answer.text
                ids.append(answer.json()["table_id"])
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


def test_a_child_that_sees_its_parent_die_stops_itself(tmp_path: Path) -> None:
    # the portable fallback alone: this grandchild has no death signal armed
    out = tmp_path / "orphan.out"
    with out.open("wb") as sink:
        middle = subprocess.Popen([sys.executable, "-c", ORPHAN], stdout=sink,
                                  stderr=subprocess.STDOUT)
    try:
        until(lambda: "watching" in out.read_text(), timeout=30, what="the child watches")
        grandchild = pid_in(out)
        assert alive(grandchild)
        middle.kill()
        middle.wait(10)
        until(lambda: not alive(grandchild), timeout=10, what="the orphan stops itself")
        assert "stopping" in out.read_text()  # through its SIGTERM handler: a graceful stop
    finally:
        if middle.poll() is None:
            middle.kill()
            middle.wait()


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
    out = tmp_path / "armed.out"
    with out.open("wb") as sink:
        middle = subprocess.Popen([sys.executable, "-c", ARMED], stdout=sink,
                                  stderr=subprocess.STDOUT)
    try:
        until(lambda: "armed" in out.read_text(), timeout=30, what="the child starts")
        grandchild = pid_in(out)
        middle.kill()
        middle.wait(10)
        until(lambda: not alive(grandchild), timeout=10, what="the kernel stops the child")
        assert "stopping" in out.read_text()  # SIGTERM, handled: a graceful stop
    finally:
        if middle.poll() is None:
            middle.kill()
            middle.wait()
