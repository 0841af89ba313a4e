"""The server's commit path alone: ``GroupCommitter`` fed the writes of live play.

N producer tasks (tables) each commit, one after another, what an action writes: an
``InsertEvent`` and the ``UpdateTable`` of version, status and clock; one in 20 also resets
both seats' ``rematch`` (``UpdateSeat``, as at the start of a match). With ``--rate`` the
producers pace themselves to that many actions a second in all (live play: batches of a few
writes); without it they commit as fast as the committer lets them (the largest batches).

The database is what ``ginrummy serve`` opens: a fresh SQLite file in WAL mode with
``synchronous=FULL`` and background checkpoints, or a fresh schema on PostgreSQL (``--db
postgresql://...``). Reported per run: commits a second, writes (producer calls) and actions
a second, the mean batch, and CPU per write in the event loop's thread and in the other
threads (the committer's database thread), from ``/proc`` thread times.

``--raw`` adds the floor: plain ``sqlite3`` doing the same inserts and updates with the same
pragmas, one transaction per batch of the size the committer made (and of 1 write).

    .venv/bin/python benchmarks/bench_commits.py --producers 200 --seconds 5 --repeat 3 --raw
    .venv/bin/python benchmarks/bench_commits.py --rate 1000 --producers 1000
    .venv/bin/python benchmarks/bench_commits.py --db postgresql://postgres@127.0.0.1/test
    PYTHONPATH=/tmp/base_commit/src .venv/bin/python benchmarks/bench_commits.py   # other code
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import secrets
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import psutil
from sqlalchemy import text

import ginrummy
from ginrummy.server.play.committer import GroupCommitter
from ginrummy.storage import (
    Checkpointer,
    InsertEvent,
    InsertTable,
    Repository,
    StoredEvent,
    StoredSeat,
    StoredTable,
    UpdateSeat,
    UpdateTable,
    WriteOp,
    migrate,
    open_engine,
)

PAYLOAD = '{"type":"discard","card":"QH"}'
"""An action's stored notation (the size of a real one)."""


@dataclass
class RunResult:
    """One run's figures."""

    db: str
    producers: int
    rate: float
    busy: float
    seconds: float
    writes: int
    commits: int
    commits_per_s: float
    writes_per_s: float
    actions_per_s: float
    mean_batch: float
    loop_cpu_ms_per_write: float
    db_cpu_ms_per_write: float
    commit_p50_ms: float
    commit_p99_ms: float


def a_table(table_id: str) -> StoredTable:
    """A two-seat table as the lobby stores it."""
    return StoredTable(
        id=table_id, name=f"bench {table_id}", preset="classic", rules={}, players=2,
        public=True, invite_hash=None, clock_ms=30_000, pool_chips=None, status="playing",
        version=1, seats=[StoredSeat(0, "human", "Ann"), StoredSeat(1, "human", "Bob")])


def action_ops(table_id: str, version: int, with_seats: bool) -> list[WriteOp]:
    """The writes of one action (and, at a match start, the seats' rematch reset)."""
    seat = version % 2
    ops: list[WriteOp] = [InsertEvent(table_id, StoredEvent(
        version, "action", PAYLOAD, seat, "human", f"c{version}"))]
    if with_seats:
        ops.extend(UpdateSeat(table_id, s, {"rematch": False}) for s in (0, 1))
    ops.append(UpdateTable(table_id, {"version": version, "status": "playing",
                                      "clock_seat": 1 - seat,
                                      "clock_deadline": time.time() + 30.0}))
    return ops


def thread_cpu() -> dict[int, float]:
    """CPU seconds (user + system) of every thread of this process, by native id."""
    return {t.id: t.user_time + t.system_time for t in psutil.Process().threads()}


class Database:
    """A fresh database for one run (SQLite file or PostgreSQL schema), removed after."""

    def __init__(self, url: str | None, workdir: Path) -> None:
        self.schema: str | None = None
        if url is None:
            self.path: Path | None = workdir / f"bench-{secrets.token_hex(4)}.db"
            self.url = f"sqlite:///{self.path}"
        else:
            self.path = None
            self.schema = f"bench_commits_{secrets.token_hex(4)}"
            self._admin = open_engine(url)
            with self._admin.begin() as conn:
                conn.execute(text(f'CREATE SCHEMA "{self.schema}"'))
            joiner = "&" if "?" in url else "?"
            self.url = f"{url}{joiner}options=-csearch_path%3D{self.schema}"

    def drop(self) -> None:
        """Remove what the run created."""
        if self.schema is not None:
            with self._admin.begin() as conn:
                conn.execute(text(f'DROP SCHEMA IF EXISTS "{self.schema}" CASCADE'))
            self._admin.dispose()
        elif self.path is not None:
            for suffix in ("", "-wal", "-shm"):
                self.path.with_name(self.path.name + suffix).unlink(missing_ok=True)


async def drive(url: str, producers: int, seconds: float, rate: float,
                busy: float = 0.0, synchronous: str = "FULL", spacing_ms: float = 0.0) -> RunResult:
    """Run the committer under ``producers`` tables for ``seconds``; ``busy``: the share of
    the event loop's time spent running Python meanwhile (the server's own work)."""
    engine = open_engine(url, synchronous, background_checkpoint=True)
    migrate(engine)
    checkpointer = Checkpointer(engine) if Checkpointer.wanted(engine) else None
    if checkpointer is not None:
        checkpointer.start()
    repository = Repository(engine)
    ids = [f"b{i:05d}" for i in range(producers)]
    repository.write([InsertTable(a_table(t)) for t in ids])
    # spacing_ms only when asked: the same script drives older trees (PYTHONPATH), whose
    # GroupCommitter has no such argument
    committer = (GroupCommitter(repository, spacing_ms=spacing_ms) if spacing_ms
                 else GroupCommitter(repository))
    committer.start()
    durations: list[float] = []
    measuring = False
    stop = False
    writes = 0
    actions = 0
    think = producers / rate if rate > 0 else 0.0

    async def produce(table_id: str) -> None:
        nonlocal writes, actions
        version = 1
        if think:
            await asyncio.sleep(random.uniform(0, think))
        while not stop:
            version += 1
            ops = action_ops(table_id, version, version % 20 == 0)
            started = time.perf_counter()
            await committer.commit(ops)
            if measuring:
                durations.append(time.perf_counter() - started)
                writes += 1
                actions += 1
            if think:
                await asyncio.sleep(think * random.uniform(0.9, 1.1))

    spun = 0.0

    async def spin() -> None:
        """Keep the loop busy ``busy`` of the time, in slices of 2 ms, as a server is."""
        nonlocal spun
        while not stop:
            cpu = time.thread_time()
            until = time.perf_counter() + 0.002 * busy
            while time.perf_counter() < until:
                pass
            spun += time.thread_time() - cpu
            await asyncio.sleep(0.002 * (1 - busy))

    tasks = [asyncio.create_task(produce(t)) for t in ids]
    if busy > 0:
        tasks.append(asyncio.create_task(spin()))
    await asyncio.sleep(1.0)  # warm up
    loop_id = threading.get_native_id()
    skip = {checkpointer._thread.native_id} if checkpointer is not None else set()
    before_stats = (committer.stats.batches, committer.stats.writes)
    cpu_before = thread_cpu()
    spun_before = spun
    measuring = True
    started = time.perf_counter()
    await asyncio.sleep(seconds)
    measuring = False
    elapsed = time.perf_counter() - started
    cpu_after = thread_cpu()
    spun_during = spun - spun_before
    commits = committer.stats.batches - before_stats[0]
    committed = committer.stats.writes - before_stats[1]
    stop = True
    await asyncio.gather(*tasks)
    await committer.close()
    if checkpointer is not None:
        checkpointer.stop()
    engine.dispose()
    loop_cpu = cpu_after.get(loop_id, 0.0) - cpu_before.get(loop_id, 0.0) - spun_during
    other_cpu = sum(v - cpu_before.get(k, 0.0) for k, v in cpu_after.items()
                    if k != loop_id and k not in skip)
    durations.sort()
    return RunResult(
        db=engine.dialect.name, producers=producers, rate=rate, busy=busy,
        seconds=round(elapsed, 2),
        writes=writes, commits=commits, commits_per_s=round(commits / elapsed, 1),
        writes_per_s=round(writes / elapsed, 1), actions_per_s=round(actions / elapsed, 1),
        mean_batch=round(committed / max(commits, 1), 2),
        loop_cpu_ms_per_write=round(1000 * loop_cpu / max(writes, 1), 4),
        db_cpu_ms_per_write=round(1000 * other_cpu / max(writes, 1), 4),
        commit_p50_ms=round(1000 * durations[len(durations) // 2], 2) if durations else 0.0,
        commit_p99_ms=round(1000 * durations[int(len(durations) * 0.99)], 2)
        if durations else 0.0)


def raw_sqlite(path: Path, batch: int, seconds: float, tables: int,
               synchronous: str = "FULL") -> dict[str, float]:
    """Plain ``sqlite3``: the same rows, one transaction per ``batch`` actions."""
    conn = sqlite3.connect(path, isolation_level=None)
    for pragma in ("journal_mode=WAL", f"synchronous={synchronous}", "foreign_keys=ON",
                   "busy_timeout=30000"):
        conn.execute(f"PRAGMA {pragma}")
    insert_event = ("INSERT INTO events (table_id, version, kind, seat, payload, source, "
                    "client_id, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
    update_move = ("UPDATE game_tables SET version = ?, status = ?, clock_seat = ?, "
                   "clock_deadline = ?, updated_at = ? WHERE id = ? ")
    ids = [f"b{i:05d}" for i in range(tables)]
    version = 10_000_000
    commits = writes = 0
    cpu = time.thread_time()
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        version += 1
        chosen = random.sample(ids, min(batch, tables))
        now = time.time()
        stamp = time.strftime("%Y-%m-%d %H:%M:%S.000000", time.gmtime(now))
        conn.execute("BEGIN")
        conn.executemany(insert_event, [(t, version, "action", 0, PAYLOAD, "human", "c", stamp)
                                        for t in chosen])
        conn.executemany(update_move, [(version, "playing", 1, now + 30, stamp, t)
                                       for t in chosen])
        conn.execute("COMMIT")
        commits += 1
        writes += len(chosen)
    elapsed = time.perf_counter() - started
    cpu = time.thread_time() - cpu
    conn.close()
    return {"batch": batch, "commits_per_s": round(commits / elapsed, 1),
            "writes_per_s": round(writes / elapsed, 1),
            "cpu_ms_per_write": round(1000 * cpu / max(writes, 1), 4)}


def raw_run(workdir: Path, batch: int, seconds: float, tables: int,
            synchronous: str = "FULL") -> dict[str, float]:
    """:func:`raw_sqlite` on a fresh migrated file with ``tables`` tables."""
    database = Database(None, workdir)
    assert database.path is not None
    engine = open_engine(database.url)
    migrate(engine)
    Repository(engine).write([InsertTable(a_table(f"b{i:05d}")) for i in range(tables)])
    engine.dispose()
    try:
        return raw_sqlite(database.path, batch, seconds, tables, synchronous)
    finally:
        database.drop()


def summary(values: list[float]) -> str:
    """Median and range."""
    return f"{statistics.median(values):.4g} ({min(values):.4g}-{max(values):.4g})"


def main(argv: list[str] | None = None) -> int:
    """Parse the options, run, print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", help="postgresql://... (default: a SQLite file)")
    parser.add_argument("--producers", type=int, default=200)
    parser.add_argument("--rate", type=float, default=0.0,
                        help="actions a second in all (0: as fast as possible)")
    parser.add_argument("--busy", type=float, default=0.0,
                        help="share of the event loop kept busy running Python (0-0.95)")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--synchronous", default="FULL",
                        help="SQLite synchronous (OFF: no fsync, the CPU of the path alone)")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--spacing", type=float, default=0.0,
                        help="the committer's commit_spacing_ms (default 0)")
    parser.add_argument("--raw", action="store_true", help="also plain sqlite3 (SQLite only)")
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.producers < 1 or args.seconds <= 0 or args.repeat < 1 or args.rate < 0:
        parser.error("--producers and --repeat must be >= 1, --seconds > 0, --rate >= 0")
    if not 0 <= args.busy <= 0.95:
        parser.error("--busy must be between 0 and 0.95")
    sys.setswitchinterval(0.001)  # as ginrummy serve
    results: list[RunResult] = []
    with tempfile.TemporaryDirectory(dir=args.workdir or Path.cwd()) as tmp:
        workdir = Path(tmp)
        for _ in range(args.repeat):
            database = Database(args.db, workdir)
            try:
                results.append(asyncio.run(drive(database.url, args.producers, args.seconds,
                                                 args.rate, args.busy, args.synchronous,
                                                 args.spacing)))
            finally:
                database.drop()
            if not args.json:
                print(json.dumps(asdict(results[-1])), flush=True)
        raw: list[dict[str, float]] = []
        if args.raw and args.db is None:
            batch = max(1, round(statistics.median(r.mean_batch for r in results)))
            for size in sorted({1, batch}):
                raw.append(raw_run(workdir, size, args.seconds, args.producers,
                                   args.synchronous))
    report: dict[str, Any] = {"code": str(Path(ginrummy.__file__).parent),
                              "runs": [asdict(r) for r in results], "raw_sqlite": raw}
    if args.json:
        print(json.dumps(report))
    else:
        print(f"code: {report['code']}")
        for key in ("commits_per_s", "writes_per_s", "mean_batch", "loop_cpu_ms_per_write",
                    "db_cpu_ms_per_write", "commit_p50_ms", "commit_p99_ms"):
            print(f"{key:24} {summary([getattr(r, key) for r in results])}")
        for row in raw:
            print(f"raw sqlite3, batch {row['batch']:>4}: {row['commits_per_s']} commits/s, "
                  f"{row['writes_per_s']} writes/s, {row['cpu_ms_per_write']} ms CPU/write")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
