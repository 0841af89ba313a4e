"""Load benchmark of several ``ginrummy serve`` processes on one PostgreSQL and one Redis
(issue 14): the same people as ``load_server.py``, the tables and the clients spread over 1,
2, 4... processes.

Run (only on a quiet machine: it measures latency):
``.venv/bin/python benchmarks/load_cluster.py --processes 1,2,4 --repeat 3 --tables 1000``

For each process count and repeat it makes a fresh PostgreSQL database (``--db``, the server
whose ``postgres`` database may create databases) and a fresh Redis key prefix, migrates the
database, starts the processes (``serve --redis``, :class:`tests/server/cluster/procs.Cluster`)
and waits for every ``/readyz``. Table ``k`` is created through process ``k mod n`` (so its
owner is spread too) and its seat ``s`` connects to process ``(k + s) mod n`` (``--seats
spread``, the default: with several processes half the seats play through a process that does
not own their table, as behind a load balancer; ``--seats owner``: both at the creating
process). The client processes (``--client-procs``) and the measured window are those of
``load_server.py``: actions acknowledged per second, send-to-ack latency (p50, p99, max), the
CPU of the server processes, of PostgreSQL and Redis ("services") and of the clients, and
actions per second per core used (server processes plus services). After the window every
process is SIGKILLed and every acknowledged action is looked up in PostgreSQL. The summary
gives, per process count, the median of the repeats and their range (the spread).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from statistics import median
from typing import Any

import httpx
import psutil

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "tests" / "server" / "cluster"))
from procs import Cluster  # noqa: E402

from load_clients import (  # noqa: E402
    Seat,
    Timeline,
    WorkerPlan,
    WorkerResult,
    open_table,
    play_tables,
)
from load_server import (  # noqa: E402
    METRICS_TOKEN,
    CpuSample,
    RunReport,
    _fill,
    _int_list,
    counters,
    describe,
    fresh_database,
    largest_within,
    start_profiler,
    verify_stored,
)

SERVICES = ("postgres", "redis-server")
"""The programs whose CPU is counted as the cluster's services."""


@dataclass(frozen=True)
class ClusterPlan:
    """What one client process does: its tables (by global index) and the processes' URLs."""

    plan: WorkerPlan
    urls: tuple[str, ...]
    spread: bool


@dataclass
class ClusterReport:
    """One run: the single-server figures of ``load_server.py`` plus the cluster's."""

    processes: int
    repeat: int
    run: RunReport
    services_cpu_percent: float = 0.0
    """PostgreSQL and Redis together, in % of one core."""
    cores_used: float = 0.0
    """Server processes plus services, in cores."""
    actions_per_core: float = 0.0
    per_process_cpu_percent: list[float] = field(default_factory=list)
    owners: dict[str, int] = field(default_factory=dict)
    """Tables owned by each process (by index) at the end of the window, from the leases."""


# ---------------------------------------------------------------------- clients
async def _open(index: int, client: httpx.AsyncClient, cplan: ClusterPlan, timeline: Timeline,
                result: WorkerResult, seats: list[Seat], tasks: list[asyncio.Task[None]]) -> None:
    """Create table ``index`` of this process at its process; its seats play through the
    processes after it (``spread``) or through it."""
    position = cplan.plan.first_table + index
    urls = cplan.urls
    home = urls[position % len(urls)]

    def seat_base(seat_no: int) -> str:
        return urls[(position + seat_no) % len(urls)] if cplan.spread else home

    await open_table(index, client, cplan.plan, timeline, result, seats, tasks, home=home,
                     seat_base=seat_base)


async def _play(cplan: ClusterPlan, timeline: Timeline) -> WorkerResult:
    """This process's share of the tables for the whole timeline (as ``load_clients.play``,
    with a process per table and seat)."""
    plan = cplan.plan
    client = httpx.AsyncClient(timeout=60, limits=httpx.Limits(max_connections=20))

    def opener(index: int, result: WorkerResult, seats: list[Seat],
               tasks: list[asyncio.Task[None]]) -> Awaitable[None]:
        return _open(index, client, cplan, timeline, result, seats, tasks)

    return await play_tables(plan.worker, plan.tables, client, opener, timeline)


def cluster_worker_main(cplan: ClusterPlan, pipe: Connection) -> None:
    """Entry point of a client process: ready, the timeline, play, the results."""
    loop_factory = None
    with contextlib.suppress(ImportError):
        import uvloop

        loop_factory = uvloop.new_event_loop
    pipe.send("ready")
    timeline: Timeline = pipe.recv()
    with asyncio.Runner(loop_factory=loop_factory) as runner:
        result = runner.run(_play(cplan, timeline))
    result.cpu_seconds = time.process_time()
    pipe.send(result)
    pipe.close()


# ---------------------------------------------------------------------- measuring
def _seconds(pids: list[int]) -> float:
    total = 0.0
    for pid in pids:
        with contextlib.suppress(psutil.Error):
            times = psutil.Process(pid).cpu_times()
            total += times.user + times.system
    return total


def service_pids() -> list[int]:
    """The PostgreSQL and Redis processes of this machine."""
    found = []
    for proc in psutil.process_iter(["name"]):
        name = proc.info.get("name") or ""
        if name.startswith(SERVICES):
            found.append(proc.pid)
    return found


def sample(servers: list[int], clients: list[int],
           services: list[int]) -> tuple[CpuSample, float, list[float]]:
    """A CPU sample (servers together), the services' CPU seconds and each server's."""
    machine = psutil.cpu_times()
    busy = float(machine.user + machine.system + machine.nice
                 + getattr(machine, "irq", 0.0) + getattr(machine, "softirq", 0.0))
    each = [_seconds([pid]) for pid in servers]
    return (CpuSample(time.time(), sum(each), _seconds(clients), busy, {}),
            _seconds(services), each)


def health_sum(urls: list[str]) -> dict[str, Any] | None:
    """The commit counters of every process added up (``None`` if one does not answer)."""
    total = {"commits": 0, "writes": 0}
    for url in urls:
        found = counters(url)  # /metrics, with the token the members were started with
        if found is None:
            return None
        total["commits"] += found["commits"]
        total["writes"] += found["writes"]
    return total


# ---------------------------------------------------------------------- one run
def run_cluster(args: argparse.Namespace, processes: int, repeat: int,
                tables: int) -> ClusterReport:
    """A fresh database, Redis prefix and ``processes`` servers, ``tables`` tables of load;
    the check."""
    with tempfile.TemporaryDirectory(prefix="ginrummy-cluster-") as tmp, \
            fresh_database(args.db, Path(tmp)) as db:
        prefix = f"gload{secrets.token_hex(4)}"
        env = {"GINRUMMY_LEASE_TTL_MS": str(args.lease_ttl_ms),
               "GINRUMMY_METRICS_TOKEN": METRICS_TOKEN}
        cluster = Cluster(processes, db, Path(tmp) / "procs", redis=args.redis, prefix=prefix,
                          env=env, args=args.server_arg or [], log_level=args.log_level)
        try:
            cluster.migrate()
            cluster.start()
            return _load(args, cluster, processes, repeat, tables)
        except BaseException:
            print(cluster.logs(2000), file=sys.stderr)
            raise
        finally:
            cluster.close()
            _drop_prefix(args.redis, prefix)
            if args.logs:
                keep = Path(args.logs) / f"p{processes}-t{tables}-r{repeat + 1}"
                keep.mkdir(parents=True, exist_ok=True)
                for proc in cluster.procs:
                    if proc.log_path.exists():
                        shutil.copy(proc.log_path, keep / proc.log_path.name)


def _load(args: argparse.Namespace, cluster: Cluster, processes: int, repeat: int,
          tables: int) -> ClusterReport:
    procs = max(1, min(args.client_procs, tables))
    run = RunReport(tables, args.duration, args.think, procs, "postgresql")
    context = multiprocessing.get_context("spawn")
    pipes, workers = [], []
    first = 0
    urls = tuple(cluster.urls)
    for worker in range(procs):
        share = tables // procs + (1 if worker < tables % procs else 0)
        plan = WorkerPlan(worker, urls[0], share, first, tables, args.think, args.jitter,
                          args.preset, args.clock, args.seed + repeat)
        first += share
        parent_end, child_end = context.Pipe()
        process = context.Process(target=cluster_worker_main,
                                  args=(ClusterPlan(plan, urls, args.seats == "spread"),
                                        child_end), daemon=True)
        process.start()
        pipes.append(parent_end)
        workers.append(process)
    for pipe in pipes:
        if not pipe.poll(120) or pipe.recv() != "ready":
            raise RuntimeError("a client process did not start")
    ramp = max(3.0, tables / 40) if args.ramp is None else args.ramp
    start = time.time() + 0.5
    window_start = start + ramp + args.settle
    timeline = Timeline(start, ramp, window_start, window_start + args.duration, args.drain)
    for pipe in pipes:
        pipe.send(timeline)
    servers = [p.pid for p in cluster.procs if p.pid is not None]
    clients = [p.pid for p in workers if p.pid is not None]
    services = service_pids()
    time.sleep(max(0.0, window_start - time.time()))
    profiler = start_profiler(
        None if args.profile is None else args.profile.replace("{processes}", str(processes)),
        servers[0] if servers else None, args.duration, tables)
    before, services_before, each_before = sample(servers, clients, services)
    health_before = health_sum(list(urls))
    time.sleep(max(0.0, timeline.window_end - time.time()))
    after, services_after, each_after = sample(servers, clients, services)
    health_after = health_sum(list(urls))
    if profiler is not None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            profiler.wait(timeout=30)
    results: list[WorkerResult] = []
    for pipe in pipes:
        if not pipe.poll(args.drain + 120):
            raise RuntimeError("a client process did not report")
        results.append(pipe.recv())
    for process in workers:
        process.join(timeout=30)
    _fill(run, results, before, after, health_before, health_after, args.target_ms)
    table_ids = [t for r in results for t in r.table_ids]
    owners = _owners(cluster, table_ids)
    for i in range(processes):
        cluster.kill(i)
    acked = [pair for r in results for pair in r.acked]
    run.stored_acked, run.missing_in_db, run.stored_unacked = verify_stored(cluster.db, acked,
                                                                            table_ids)
    run.ok = (run.tables_opened == tables and not run.tables_late and not run.errors
              and run.missing_in_db == 0 and run.acks_in_window > 0)
    window = max(1e-9, after.wall - before.wall)
    report = ClusterReport(processes, repeat, run)
    report.services_cpu_percent = 100 * (services_after - services_before) / window
    report.per_process_cpu_percent = [round(100 * (a - b) / window, 1)
                                      for a, b in zip(each_after, each_before, strict=True)]
    report.cores_used = ((run.server_cpu_percent or 0.0) + report.services_cpu_percent) / 100
    report.actions_per_core = run.actions_per_second / max(1e-9, report.cores_used)
    report.owners = owners
    return report


def _owners(cluster: Cluster, table_ids: list[str]) -> dict[str, int]:
    """How many of the tables each process holds the lease of (``none``: no holder)."""
    counts: Counter[str] = Counter()
    for table_id in table_ids:
        with contextlib.suppress(Exception):
            owner = cluster.owner(table_id)
            counts["none" if owner is None else str(owner)] += 1
    return dict(sorted(counts.items()))


def _drop_prefix(redis_url: str, prefix: str) -> None:
    """Delete the run's Redis keys."""
    import redis

    client = redis.Redis.from_url(redis_url)
    try:
        keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
        for i in range(0, len(keys), 1000):
            client.delete(*keys[i:i + 1000])
    finally:
        client.close()


# ---------------------------------------------------------------------- output
def describe_cluster(report: ClusterReport) -> str:
    """One run in words: the single-server report plus the cluster's lines."""
    return (f"== {report.processes} process(es), repeat {report.repeat + 1}\n"
            + describe(report.run)
            + f"\n  services (PostgreSQL, Redis) {report.services_cpu_percent:.0f}%; each "
            f"server {report.per_process_cpu_percent}; cores used {report.cores_used:.2f}; "
            f"actions/s per core {report.actions_per_core:.0f}; owners {report.owners}")


def summary(reports: list[ClusterReport]) -> str:
    """Per process count and table count: the median of the repeats and their range."""
    def cell(values: list[float], digits: int = 1) -> str:
        return (f"{median(values):.{digits}f} ({min(values):.{digits}f}-"
                f"{max(values):.{digits}f})")

    lines = ["| processes | tables | actions/s | p50 ms | p99 ms | cores used | "
             "actions/s per core | runs OK |", "|---|---|---|---|---|---|---|---|"]
    for n, tables in sorted({(r.processes, r.run.tables) for r in reports}):
        runs = [r for r in reports if r.processes == n and r.run.tables == tables]
        lines.append(
            f"| {n} | {tables} | "
            f"{cell([r.run.actions_per_second for r in runs], 0)} | "
            f"{cell([r.run.p50_ms for r in runs])} | {cell([r.run.p99_ms for r in runs])} | "
            f"{cell([r.cores_used for r in runs], 2)} | "
            f"{cell([r.actions_per_core for r in runs], 0)} | "
            f"{sum(r.run.ok for r in runs)} of {len(runs)} |")
    return "\n".join(lines)


def capacity(reports: list[ClusterReport], target_ms: float) -> dict[int, dict[str, Any]]:
    """Per process count: the largest table count whose runs all passed (every acknowledged
    action stored, no error, no late table) with a median p99 within ``target_ms``, every
    smaller count tried too (``load_server.largest_within``); the p99 of each repeat there
    and at the next count up, and the throughput there."""
    found: dict[int, dict[str, Any]] = {}
    for n in sorted({r.processes for r in reports}):
        runs = [r for r in reports if r.processes == n]
        best = largest_within([r.run for r in runs], target_ms)
        counts = sorted({r.run.tables for r in runs})
        above = [t for t in counts if best is None or t > best]
        nxt = above[0] if above else None
        at = [r for r in runs if r.run.tables == best]
        up = [r for r in runs if r.run.tables == nxt]
        found[n] = {
            "tables": best,
            "p99_ms": [round(r.run.p99_ms, 1) for r in at],
            "actions_per_second": [round(r.run.actions_per_second) for r in at],
            "actions_per_core": [round(r.actions_per_core) for r in at],
            "cores_used": [round(r.cores_used, 2) for r in at],
            "next_tables": nxt,
            "next_p99_ms": [round(r.run.p99_ms, 1) for r in up],
            "next_ok": [r.run.ok for r in up],
        }
    return found


def describe_capacity(found: dict[int, dict[str, Any]], target_ms: float) -> str:
    """The capacity table: per process count, the largest N within the target."""
    def listed(values: list[Any]) -> str:
        return ", ".join(str(v) for v in values) or "-"

    lines = [f"capacity: the largest N of live tables with a median p99 <= {target_ms:g} ms "
             "(every run OK, every smaller N too)",
             "| processes | N | p99 ms at N | actions/s | actions/s per core | cores used | "
             "next N | p99 ms at next N |", "|---|---|---|---|---|---|---|---|"]
    for n, c in found.items():
        lines.append(f"| {n} | {c['tables'] or 'none'} | {listed(c['p99_ms'])} | "
                     f"{listed(c['actions_per_second'])} | {listed(c['actions_per_core'])} | "
                     f"{listed(c['cores_used'])} | {c['next_tables'] or '-'} | "
                     f"{listed(c['next_p99_ms'])} |")
    return "\n".join(lines)


def _levels(text: str) -> tuple[int, list[int]]:
    """``P:N,N,...``: a process count and its table counts."""
    processes, sep, counts = text.partition(":")
    try:
        if not sep:
            raise ValueError
        return int(processes), _int_list(counts)
    except (ValueError, argparse.ArgumentTypeError):
        raise argparse.ArgumentTypeError(f"{text!r} is not P:N,N,... (a process count and "
                                         "its table counts)") from None


def schedule(args: argparse.Namespace) -> list[tuple[int, int, int]]:
    """The runs in order, as (repeat, processes, tables): each repeat goes through the table
    levels, and at each level alternates the process counts (1, 2, 4, 1, 2, 4, ...), so that
    a noisy minute of the machine does not fall on one count only."""
    levels: dict[int, list[int]] = ({p: counts for p, counts in args.levels} if args.levels
                                    else {p: [args.tables] for p in args.processes})
    depth = max(len(counts) for counts in levels.values())
    return [(repeat, p, levels[p][i]) for repeat in range(args.repeat) for i in range(depth)
            for p in levels if i < len(levels[p])]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=_int_list, default=[1, 2, 4], metavar="N,N,...",
                        help="server process counts to measure (default 1,2,4)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per count (default 3)")
    parser.add_argument("--tables", type=int, default=1000, help="live tables (default 1000)")
    parser.add_argument("--levels", type=_levels, action="append", metavar="P:N,N,...",
                        help="the capacity sweep: P processes at each table count N "
                        "(repeatable, one per process count; replaces --processes and "
                        "--tables); the report gives each count's largest N within "
                        "--target-ms")
    parser.add_argument("--duration", type=float, default=30.0, help="window in s (30)")
    parser.add_argument("--ramp", type=float, default=None,
                        help="seconds to open every table (default: tables / 40, at least 3)")
    parser.add_argument("--settle", type=float, default=3.0)
    parser.add_argument("--drain", type=float, default=10.0)
    parser.add_argument("--think", type=float, default=1.0)
    parser.add_argument("--jitter", type=float, default=0.1)
    parser.add_argument("--client-procs", type=int, default=2)
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--clock", type=float, default=30.0)
    parser.add_argument("--seats", choices=("spread", "owner"), default="spread",
                        help="spread: seat s of table k at process (k + s) mod n; owner: both "
                        "seats at the table's creating process")
    parser.add_argument("--db", default="postgresql://postgres@127.0.0.1/postgres",
                        metavar="URL", help="the PostgreSQL server (a fresh database per run)")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0", metavar="URL")
    parser.add_argument("--lease-ttl-ms", type=int, default=6000)
    parser.add_argument("--server-arg", action="append", metavar="ARG",
                        help="extra argument for ginrummy serve (repeatable)")
    parser.add_argument("--target-ms", type=float, default=100.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--profile", metavar="FILE",
                        help="py-spy record the first server process during the window into "
                        "FILE (raw collapsed stacks; {processes} and {tables} in the name "
                        "become the counts)")
    parser.add_argument("--logs", metavar="DIR", help="keep each run's server logs in "
                        "DIR/p<processes>-r<repeat>/ (default: deleted with the run)")
    parser.add_argument("--log-level", default="warning",
                        choices=("critical", "error", "warning", "info", "debug"),
                        help="the servers' log level (default warning)")
    args = parser.parse_args(argv)
    if not args.processes or min(args.processes) < 1:
        parser.error("--processes: counts of at least 1")
    if args.levels and (min(p for p, _ in args.levels) < 1
                        or min(min(c, default=0) for _, c in args.levels) < 1):
        parser.error("--levels: at least 1 process and 1 table in each")
    if args.tables < 1 or args.repeat < 1 or args.client_procs < 1:
        parser.error("--tables, --repeat and --client-procs: at least 1")
    if not args.db.startswith(("postgres://", "postgresql")):
        parser.error("--db: several processes share a PostgreSQL database")
    return args


def main(argv: list[str] | None = None) -> int:
    """Every (process count, table count) of the schedule ``--repeat`` times, then the
    summary and each process count's capacity."""
    args = parse_args(argv)
    reports: list[ClusterReport] = []
    for repeat, processes, tables in schedule(args):
        report = run_cluster(args, processes, repeat, tables)
        reports.append(report)
        if not args.json:
            print(describe_cluster(report), flush=True)
    found = capacity(reports, args.target_ms)
    if args.json:
        print(json.dumps({"runs": [{**vars(r), "run": vars(r.run)} for r in reports],
                          "target_ms": args.target_ms,
                          "capacity": {str(n): c for n, c in found.items()},
                          "command": " ".join(["benchmarks/load_cluster.py",
                                               *(argv if argv is not None else sys.argv[1:])])},
                         indent=2))
    else:
        print(summary(reports))
        print(describe_capacity(found, args.target_ms))
    return 0 if all(r.run.ok for r in reports) else 1


if __name__ == "__main__":
    sys.exit(main())
