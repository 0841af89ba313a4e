"""Load benchmark of the online server: N two-player tables of people over real WebSockets.

Run: ``.venv/bin/python benchmarks/load_server.py --tables 1000 [--duration 60] [--json]``,
or ``--sweep 250,500,1000,1500`` for the largest N whose p99 stays within ``--target-ms``.

It starts one ``ginrummy serve`` process on a free port (a fresh SQLite file in a temporary
folder by default; ``--db postgresql://...`` creates a fresh database on that server for each
run and drops it afterwards), or uses a running server (``--url``). Client processes
(``--client-procs``, separate from the server so they never run on its event loop) open the
tables evenly over ``--ramp`` seconds; every seat is a person who answers one second
(``--think``) after its turn comes. After the ramp-up and a short settling time the window of
``--duration`` seconds is measured: actions acknowledged per second, latency from sending an
action to its acknowledgement (the ``state`` or ``delta`` carrying its ``ack``; p50, p90, p99,
max), the bytes the clients received per acknowledged action (``--protocol 3``, the default:
deltas; ``--protocol 2``: a whole state after every change), errors, and the CPU used by the
server process, the clients and everything else on the machine. After the run the server is
killed (SIGKILL) and every acknowledged action is looked up in the database: each one must be
stored.

The clients share the machine's cores with the server: on a small machine their CPU is part
of what limits the result, and the report says how much they used.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import median
from typing import Any

import httpx
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from load_clients import Timeline, WorkerPlan, WorkerResult, worker_main

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class ServerHandle:
    """The server under load: its URL, process id (when known) and database URL."""

    url: str
    pid: int | None
    db: str | None
    process: subprocess.Popen[bytes] | None = None
    log_path: Path | None = None


@dataclass
class CpuSample:
    """CPU seconds at one moment: the server, the client processes, the whole machine."""

    wall: float
    server: float
    clients: float
    machine_busy: float
    server_threads: dict[str, float] = field(default_factory=dict)
    """CPU seconds of each server thread by name (``/proc/<pid>/task/<tid>/comm``)."""


@dataclass
class RunReport:
    """The figures of one run."""

    tables: int
    duration: float
    think: float
    client_procs: int
    database: str
    tables_opened: int = 0
    tables_late: int = 0
    """Tables opened after the window began (the ramp-up overran: the run is not valid)."""
    actions_per_second: float = 0.0
    expected_actions_per_second: float = 0.0
    acks_in_window: int = 0
    sent_in_window: int = 0
    p50_ms: float = 0.0
    p90_ms: float = 0.0
    p99_ms: float = 0.0
    max_ms: float = 0.0
    client_lag_p99_ms: float = 0.0
    slow_seconds: int = 0
    """Seconds of the window in which some action took longer than the target."""
    worst_seconds: list[dict[str, float]] = field(default_factory=list)
    """The three seconds with the slowest actions: offset into the window, max, p99, count."""
    errors: dict[str, int] = field(default_factory=dict)
    unanswered: int = 0
    server_cpu_percent: float | None = None
    """CPU of the server process in the window, in % of one core (its threads included)."""
    server_threads_cpu_percent: dict[str, float] = field(default_factory=dict)
    """The server's CPU in % of one core: ``event loop`` (the main thread) and ``other
    threads`` (the group committer's database thread, mostly)."""
    server_cpu_ms_per_action: float | None = None
    """Server CPU per acknowledged action (its states, deals and commits included)."""
    clients_cpu_percent: float = 0.0
    others_cpu_percent: float = 0.0
    """The rest of the machine (other programs) in % of one core."""
    machine_cores: int = 0
    commits_per_second: float | None = None
    writes_per_commit: float | None = None
    states_per_second: float = 0.0
    state_bytes_mean: float = 0.0
    deltas_per_second: float = 0.0
    delta_bytes_mean: float = 0.0
    bytes_per_action: float = 0.0
    """Every byte of text the clients received (all seats) per acknowledged action."""
    bytes_per_action_after_first: float = 0.0
    """The same without each connection's first ``state`` (sent once, on ``hello``)."""
    acked_total: int = 0
    stored_acked: int | None = None
    missing_in_db: int | None = None
    """Acknowledged actions not found in the database (must be 0)."""
    stored_unacked: int | None = None
    """Actions stored whose ack never reached the client (allowed: in flight at the end)."""
    ok: bool = False


def percentile(values: list[float], fraction: float) -> float:
    """The ``fraction`` quantile (nearest rank) of ``values``; 0 for none."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, round(fraction * len(ordered) + 0.5) - 1))
    return ordered[rank]


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# ---------------------------------------------------------------------- databases
@contextlib.contextmanager
def fresh_database(db: str | None, folder: Path) -> Iterator[str]:
    """The database of one run: a new SQLite file, or a new PostgreSQL database on the
    server of ``db`` (dropped afterwards)."""
    if db is None or not db.startswith(("postgres", "postgresql")):
        yield db or f"sqlite:///{folder / 'load.db'}"
        return
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    from ginrummy.storage.database import normalise_url

    url = make_url(normalise_url(db))
    name = f"ginrummy_load_{uuid.uuid4().hex[:10]}"
    admin = create_engine(url.set(database="postgres"), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield url.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def verify_stored(db: str, acked: list[tuple[str, str]],
                  table_ids: list[str]) -> tuple[int, int, int]:
    """(acknowledged and stored, acknowledged but missing, stored but never acknowledged),
    read from the ``events`` rows of the human actions of the benchmark's tables."""
    from sqlalchemy import select

    from ginrummy.storage import open_engine
    from ginrummy.storage.repository import EVENTS

    engine = open_engine(db)
    stored: set[tuple[str, str]] = set()
    try:
        with engine.connect() as conn:
            for i in range(0, len(table_ids), 500):
                chunk = table_ids[i:i + 500]
                query = (select(EVENTS.c.table_id, EVENTS.c.client_id)
                         .where(EVENTS.c.table_id.in_(chunk), EVENTS.c.source == "human",
                                EVENTS.c.client_id.is_not(None)))
                stored.update((str(t), str(c)) for t, c in conn.execute(query))
    finally:
        engine.dispose()
    acked_set = set(acked)
    return len(acked_set & stored), len(acked_set - stored), len(stored - acked_set)


# ---------------------------------------------------------------------- the server
def start_server(db: str, folder: Path, extra_args: list[str], *, log_level: str = "warning",
                 env: dict[str, str] | None = None,
                 preexec_fn: Callable[[], None] | None = None) -> ServerHandle:
    """``ginrummy serve`` on a free port; waits until ``/api/health`` answers. ``env`` replaces
    the default environment (this one's, the per-address quotas raised); ``preexec_fn`` runs
    in the child before it starts."""
    port = free_port()
    log_path = folder / "server.log"
    cmd = [sys.executable, "-m", "ginrummy.cli.main", "serve", "--port", str(port),
           "--db", db, "--log-level", log_level, *extra_args]
    if env is None:
        # every table and connection comes from 127.0.0.1: the per-address quotas are raised
        env = {"GINRUMMY_TABLES_PER_ADDRESS": "1000000", "GINRUMMY_CONNECTIONS_PER_ADDRESS":
               "1000000", "GINRUMMY_MAX_CONNECTIONS": "1000000", **os.environ}
    env = {"GINRUMMY_METRICS_TOKEN": METRICS_TOKEN, **env}  # the commit counters: counters()
    if env.get("PYTHONPATH"):  # the server runs in ``folder``: PYTHONPATH=src must still be ours
        env["PYTHONPATH"] = os.pathsep.join(str(Path(part).resolve())
                                            for part in env["PYTHONPATH"].split(os.pathsep) if part)
    with log_path.open("wb") as log:
        process = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=folder,
                                   env=env, preexec_fn=preexec_fn)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server stopped at start-up (exit {process.returncode}):\n"
                               + log_path.read_text(errors="replace")[-2000:])
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{url}/api/health", timeout=2).status_code == 200:
                return ServerHandle(url, process.pid, db, process, log_path)
        time.sleep(0.2)
    process.kill()
    raise RuntimeError("the server did not answer /api/health within 60 s")


def kill_server(server: ServerHandle) -> None:
    """SIGKILL, as a crash would: what was acknowledged must already be in the database."""
    if server.process is not None and server.process.poll() is None:
        server.process.send_signal(signal.SIGKILL)
        server.process.wait(timeout=30)


def start_profiler(path: str | None, pid: int | None, duration: float,
                   tables: int) -> subprocess.Popen[bytes] | None:
    """``py-spy record`` of the server during the window (collapsed stacks of every thread,
    samples of running code only), into ``path`` (``{tables}`` is replaced by the table count)."""
    if path is None or pid is None:
        return None
    out = path.replace("{tables}", str(tables))
    beside = Path(sys.executable).parent / "py-spy"
    exe = str(beside) if beside.exists() else shutil.which("py-spy")
    if exe is None:
        raise RuntimeError("--profile needs py-spy: pip install py-spy")
    return subprocess.Popen([exe, "record", "--pid", str(pid), "--duration",
                             str(max(1, int(duration))), "--rate", "200", "--threads",
                             "--format", "raw", "--output", out, "--nonblocking"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


METRICS_TOKEN = f"bench-{uuid.uuid4().hex}"
"""The ``/metrics`` token of the servers the benchmarks start (the commit counters are there,
not in the public ``/api/health``)."""
_COUNTERS = {"ginrummy_commits_total": "commits", "ginrummy_commit_writes_total": "writes"}


def counters(url: str, token: str = METRICS_TOKEN) -> dict[str, Any] | None:
    """The group committer's counters (``commits``, ``writes``) from ``/metrics``, or ``None``
    when it does not answer."""
    try:
        answer = httpx.get(f"{url}/metrics", timeout=10,
                           headers={"Authorization": f"Bearer {token}"})
    except httpx.HTTPError:
        return None
    if answer.status_code != 200:
        return None
    found: dict[str, Any] = {}
    for line in answer.text.splitlines():
        name, _, value = line.partition(" ")
        if name in _COUNTERS:
            found[_COUNTERS[name]] = int(float(value))
    return found if len(found) == len(_COUNTERS) else None


def health(url: str) -> dict[str, Any] | None:
    """The commit counters (:func:`counters`), or ``None`` when the server does not answer."""
    return counters(url)


def cpu_sample(server_pid: int | None,
               clients: Sequence[multiprocessing.process.BaseProcess]) -> CpuSample:
    """CPU seconds used so far by the server, the clients and the whole machine."""
    def seconds(pid: int | None) -> float:
        if pid is None:
            return 0.0
        try:
            times = psutil.Process(pid).cpu_times()
        except psutil.Error:
            return 0.0
        return float(times.user + times.system)

    machine = psutil.cpu_times()
    busy = float(machine.user + machine.system + machine.nice
                 + getattr(machine, "irq", 0.0) + getattr(machine, "softirq", 0.0))
    return CpuSample(time.time(), seconds(server_pid),
                     sum(seconds(p.pid) for p in clients), busy, thread_seconds(server_pid))


def thread_seconds(pid: int | None) -> dict[str, float]:
    """CPU seconds of a process's main thread (the server's event loop) and of its other
    threads together (the database writer, mostly)."""
    found: dict[str, float] = {}
    if pid is None:
        return found
    with contextlib.suppress(psutil.Error, OSError):
        for thread in psutil.Process(pid).threads():
            name = "event loop" if thread.id == pid else "other threads"
            found[name] = found.get(name, 0.0) + thread.user_time + thread.system_time
    return found


# ---------------------------------------------------------------------- one run
def run_load(args: argparse.Namespace, tables: int, server: ServerHandle) -> RunReport:
    """Open ``tables`` tables against ``server``, measure the window, verify the database."""
    procs = max(1, min(args.client_procs, tables))
    report = RunReport(tables, args.duration, args.think, procs,
                       _scheme(server.db) if server.db else "unknown")
    context = multiprocessing.get_context("spawn")
    pipes = []
    workers = []
    first = 0
    for worker in range(procs):
        share = tables // procs + (1 if worker < tables % procs else 0)
        plan = WorkerPlan(worker, server.url, share, first, tables, args.think, args.jitter,
                          args.preset, args.clock, args.seed, args.protocol)
        first += share
        parent_end, child_end = context.Pipe()
        process = context.Process(target=worker_main, args=(plan, child_end), daemon=True)
        process.start()
        pipes.append(parent_end)
        workers.append(process)
    for pipe in pipes:
        if not pipe.poll(120) or pipe.recv() != "ready":
            raise RuntimeError("a client process did not start")
    start = time.time() + 0.5
    window_start = start + args.ramp + args.settle
    timeline = Timeline(start, args.ramp, window_start, window_start + args.duration,
                        args.drain)
    for pipe in pipes:
        pipe.send(timeline)

    time.sleep(max(0.0, window_start - time.time()))
    profiler = start_profiler(args.profile, server.pid, args.duration, tables)
    before, health_before = cpu_sample(server.pid, workers), health(server.url)
    time.sleep(max(0.0, timeline.window_end - time.time()))
    after, health_after = cpu_sample(server.pid, workers), health(server.url)
    if profiler is not None:
        profiler.wait(timeout=args.drain + 60)

    results: list[WorkerResult] = []
    for pipe in pipes:
        if not pipe.poll(args.drain + 120):
            raise RuntimeError("a client process did not report")
        results.append(pipe.recv())
    for process in workers:
        process.join(timeout=30)

    _fill(report, results, before, after, health_before, health_after, args.target_ms)
    if server.pid is None:
        report.server_cpu_percent = report.server_cpu_ms_per_action = None
    kill_server(server)
    acked = [pair for r in results for pair in r.acked]
    table_ids = [t for r in results for t in r.table_ids]
    if server.db is not None:
        report.stored_acked, report.missing_in_db, report.stored_unacked = verify_stored(
            server.db, acked, table_ids)
    report.ok = (report.tables_opened == tables and not report.tables_late and not report.errors
                 and report.missing_in_db in (0, None) and report.acks_in_window > 0)
    return report


def _fill(report: RunReport, results: list[WorkerResult], before: CpuSample, after: CpuSample,
          health_before: dict[str, Any] | None, health_after: dict[str, Any] | None,
          target_ms: float) -> None:
    latencies = [x for r in results for x in r.latencies_ms]
    lags = [x for r in results for x in r.lags_ms]
    errors: Counter[str] = Counter()
    for r in results:
        errors.update(r.errors)
    window = max(1e-9, after.wall - before.wall)
    report.tables_opened = sum(r.tables_opened for r in results)
    report.tables_late = sum(r.tables_late for r in results)
    report.acks_in_window = sum(r.acks_in_window for r in results)
    report.sent_in_window = sum(r.sent_in_window for r in results)
    report.actions_per_second = report.acks_in_window / report.duration
    report.expected_actions_per_second = report.tables / report.think
    report.p50_ms = percentile(latencies, 0.50)
    report.p90_ms = percentile(latencies, 0.90)
    report.p99_ms = percentile(latencies, 0.99)
    report.max_ms = max(latencies, default=0.0)
    report.client_lag_p99_ms = percentile(lags, 0.99)
    seconds: dict[int, list[float]] = {}
    for r in results:
        for wall, latency in zip(r.sent_at, r.latencies_ms, strict=True):
            seconds.setdefault(int(wall - before.wall), []).append(latency)
    report.slow_seconds = sum(1 for v in seconds.values() if max(v) > target_ms)
    worst = sorted(seconds.items(), key=lambda kv: -max(kv[1]))[:3]
    report.worst_seconds = [{"second": k, "max_ms": round(max(v), 1),
                             "p99_ms": round(percentile(v, 0.99), 1), "actions": len(v)}
                            for k, v in worst]
    report.errors = dict(sorted(errors.items()))
    report.unanswered = sum(r.unanswered for r in results)
    report.acked_total = sum(r.acks_total for r in results)
    states = sum(r.states for r in results)
    report.states_per_second = states / max(1e-9, report.duration)
    report.state_bytes_mean = sum(r.state_bytes for r in results) / max(1, states)
    deltas = sum(r.deltas for r in results)
    report.deltas_per_second = deltas / max(1e-9, report.duration)
    report.delta_bytes_mean = sum(r.delta_bytes for r in results) / max(1, deltas)
    report.bytes_per_action = (sum(r.received_bytes for r in results)
                               / max(1, report.acked_total))
    report.bytes_per_action_after_first = (
        sum(r.received_bytes - r.first_state_bytes for r in results)
        / max(1, report.acked_total))
    server_cpu = after.server - before.server
    clients_cpu = after.clients - before.clients
    report.machine_cores = psutil.cpu_count() or 1
    report.server_cpu_percent = 100 * server_cpu / window
    report.clients_cpu_percent = 100 * clients_cpu / window
    report.server_threads_cpu_percent = {
        name: round(100 * (after.server_threads[name] - before.server_threads.get(name, 0.0))
                    / window, 1)
        for name in after.server_threads
        if after.server_threads[name] - before.server_threads.get(name, 0.0) >= 0.005 * window}
    if report.acks_in_window:
        report.server_cpu_ms_per_action = 1000 * server_cpu / report.acks_in_window
    report.others_cpu_percent = max(
        0.0, 100 * (after.machine_busy - before.machine_busy - server_cpu - clients_cpu) / window)
    if health_before and health_after:
        commits = health_after["commits"] - health_before["commits"]
        writes = health_after["writes"] - health_before["writes"]
        report.commits_per_second = commits / window
        report.writes_per_commit = writes / commits if commits else None


def _scheme(db: str) -> str:
    return "postgresql" if db.startswith("postgres") else "sqlite"


def one_run(args: argparse.Namespace, tables: int) -> RunReport:
    """A fresh server and database (unless ``--url``), then the load."""
    if args.url:
        server = ServerHandle(args.url.rstrip("/"), args.server_pid, args.db)
        return run_load(args, tables, server)
    with tempfile.TemporaryDirectory(prefix="ginrummy-load-") as tmp:
        folder = Path(tmp)
        with fresh_database(args.db, folder) as db:
            server = start_server(db, folder, args.server_arg or [])
            try:
                return run_load(args, tables, server)
            finally:
                kill_server(server)


# ---------------------------------------------------------------------- output
def describe(report: RunReport) -> str:
    """A human-readable summary of one run."""
    lines = [
        f"{report.tables} tables ({report.tables_opened} opened, {report.tables_late} late), "
        f"{report.database}, "
        f"think {report.think:g} s, window {report.duration:g} s, "
        f"{report.client_procs} client process(es)",
        f"  actions/s {report.actions_per_second:.1f} (at most "
        f"{report.expected_actions_per_second:.0f} with no latency); latency p50 "
        f"{report.p50_ms:.1f} ms, p90 {report.p90_ms:.1f} ms, "
        f"p99 {report.p99_ms:.1f} ms, max {report.max_ms:.1f} ms",
        f"  CPU (% of one core; {report.machine_cores} cores): server "
        + ("n/a" if report.server_cpu_percent is None else
           f"{report.server_cpu_percent:.0f}% ({report.server_cpu_ms_per_action or 0:.2f} ms "
           "per action)")
        + f", clients {report.clients_cpu_percent:.0f}%, other programs "
        f"{report.others_cpu_percent:.0f}%; client send lag p99 "
        f"{report.client_lag_p99_ms:.1f} ms",
    ]
    if report.server_threads_cpu_percent:
        lines.append("  server threads: " + ", ".join(
            f"{name} {pct:.0f}%" for name, pct in report.server_threads_cpu_percent.items()))
    if report.commits_per_second is not None:
        per = "n/a" if report.writes_per_commit is None else f"{report.writes_per_commit:.1f}"
        lines.append(f"  commits/s {report.commits_per_second:.1f}, writes per commit {per}; "
                     f"states/s {report.states_per_second:.0f} of "
                     f"{report.state_bytes_mean / 1024:.1f} KiB, deltas/s "
                     f"{report.deltas_per_second:.0f} of {report.delta_bytes_mean:.0f} B; "
                     f"{report.bytes_per_action:.0f} B received per action, "
                     f"{report.bytes_per_action_after_first:.0f} B without each "
                     f"connection's first state")
    worst = "; ".join(f"at {w['second']:.0f} s max {w['max_ms']:.0f} ms over {w['actions']:.0f}"
                      for w in report.worst_seconds)
    lines.append(f"  seconds with an action over the target: {report.slow_seconds}; worst: "
                 f"{worst or 'none'}")
    lines.append(f"  errors {report.errors or 'none'}, unanswered at the end "
                 f"{report.unanswered}")
    if report.missing_in_db is not None:
        lines.append(f"  database: {report.acked_total} acknowledged, {report.stored_acked} "
                     f"of them stored, {report.missing_in_db} missing, "
                     f"{report.stored_unacked} stored without an ack")
    lines.append(f"  {'OK' if report.ok else 'NOT OK'}")
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--tables", type=int, default=100, help="concurrent tables (default 100)")
    size.add_argument("--sweep", type=_int_list, metavar="N,N,...",
                      help="one run per table count, each on a fresh server and database")
    parser.add_argument("--duration", type=float, default=30.0,
                        help="measured window in seconds (default 30)")
    parser.add_argument("--ramp", type=float, default=None,
                        help="seconds to open every table (default: tables / 40, at least 3)")
    parser.add_argument("--settle", type=float, default=3.0,
                        help="seconds between the ramp-up and the window (default 3)")
    parser.add_argument("--drain", type=float, default=10.0,
                        help="longest wait for the last acks after the window (default 10)")
    parser.add_argument("--think", type=float, default=1.0,
                        help="seconds a person takes to answer (default 1.0)")
    parser.add_argument("--jitter", type=float, default=0.1,
                        help="think time varies by this fraction either way (default 0.1)")
    parser.add_argument("--client-procs", type=int, default=2,
                        help="client processes (default 2)")
    parser.add_argument("--preset", default="classic", help="rules of every table")
    parser.add_argument("--clock", type=float, default=30.0,
                        help="turn clock of every table in seconds, 0 for none (default 30)")
    parser.add_argument("--db", default=None, metavar="URL",
                        help="postgresql://user@host/db: a fresh database on that server per "
                        "run (default: a fresh SQLite file); with --url: the server's database, "
                        "to check that every acknowledged action is stored")
    parser.add_argument("--url", default=None,
                        help="use this running server instead of starting one")
    parser.add_argument("--server-pid", type=int, default=None,
                        help="with --url: the server's process id, for its CPU share")
    parser.add_argument("--server-arg", action="append", metavar="ARG",
                        help="extra argument for ginrummy serve (repeatable)")
    parser.add_argument("--profile", metavar="FILE",
                        help="py-spy record the server during the window into FILE "
                        "(collapsed stacks; {tables} in the name becomes the table count)")
    parser.add_argument("--target-ms", type=float, default=100.0,
                        help="p99 limit of a sweep (default 100)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs per table count; a sweep decides on the median p99")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--protocol", type=int, choices=(2, 3), default=3,
                        help="the seats' protocol: 3 (deltas, default) or 2 (whole states)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    if args.url and args.sweep:
        parser.error("--sweep starts its own servers; it cannot be used with --url")
    counts = args.sweep or [args.tables]
    if min(counts) < 1:
        parser.error("--tables: at least 1")
    if args.think <= 0 or args.duration <= 0:
        parser.error("--think and --duration must be positive")
    if not 0 <= args.jitter < 1:
        parser.error("--jitter: 0 to below 1")
    if args.repeat < 1:
        parser.error("--repeat: at least 1")
    if args.client_procs < 1:
        parser.error("--client-procs: at least 1")
    return args


def _int_list(text: str) -> list[int]:
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of integers") from None


def largest_within(reports: list[RunReport], target_ms: float) -> int | None:
    """The largest table count that holds the target, and so does every smaller count tried:
    all its runs without error or missing action, and the median of their p99 within
    ``target_ms``."""
    best = None
    for tables in sorted({r.tables for r in reports}):
        runs = [r for r in reports if r.tables == tables]
        if not all(r.ok for r in runs) or median(r.p99_ms for r in runs) > target_ms:
            break
        best = tables
    return best


def main(argv: list[str] | None = None) -> int:
    """Run the load (or the sweep) and print the report."""
    args = parse_args(argv)
    counts = args.sweep or [args.tables]
    reports: list[RunReport] = []
    for tables in counts:
        for _ in range(args.repeat):
            args_ramp = max(3.0, tables / 40) if args.ramp is None else args.ramp
            run_args = argparse.Namespace(**{**vars(args), "ramp": args_ramp})
            report = one_run(run_args, tables)
            reports.append(report)
            if not args.json:
                print(describe(report), flush=True)
    best = largest_within(reports, args.target_ms)
    if args.json:
        out: dict[str, Any] = {"runs": [vars(r) for r in reports], "target_ms": args.target_ms,
                               "largest_tables_within_target": best,
                               "command": " ".join(["benchmarks/load_server.py",
                                                    *(argv if argv is not None
                                                      else sys.argv[1:])])}
        print(json.dumps(out, indent=2))
    elif args.sweep or args.repeat > 1:
        print(f"largest N with a median p99 <= {args.target_ms:g} ms (and every smaller N "
              f"too): {best if best else 'none'}")
    return 0 if all(r.ok for r in reports) else 1


if __name__ == "__main__":
    sys.exit(main())
