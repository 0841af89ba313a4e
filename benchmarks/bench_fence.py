"""What the fencing check adds to a commit (docs/cluster.md): ``--batches`` transactions of
``--tables`` actions each (an event and its table's version, as the group committer writes
them), without and with one ``fence_op`` for the batch's tables, alternating, on PostgreSQL
(a fresh schema, dropped after). Reported: the median and p95 milliseconds per commit.

    .venv/bin/python benchmarks/bench_fence.py --tables 20 --batches 300
"""

from __future__ import annotations

import argparse
import json
import secrets
import statistics
import time

from sqlalchemy import text

from ginrummy.rules import Ruleset
from ginrummy.server.cluster import Fence, fenced
from ginrummy.storage import migrate, open_engine
from ginrummy.storage.repository import (
    InsertEvent,
    InsertTable,
    Repository,
    StoredEvent,
    StoredSeat,
    StoredTable,
    UpdateTable,
    WriteOp,
)


def a_table(table_id: str) -> StoredTable:
    """A playing table with one guest."""
    return StoredTable(
        id=table_id, name="bench", preset="classic", rules=Ruleset.preset("classic").to_dict(),
        players=2, public=True, invite_hash=None, clock_ms=0, pool_chips=None,
        status="playing", version=0, seats=[StoredSeat(0, "human", "Ann"), StoredSeat(1, "empty")])


def main(args: argparse.Namespace) -> None:
    schema = f"bench_fence_{secrets.token_hex(4)}"
    admin = open_engine(args.db)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        engine = open_engine(f"{args.db}?options=-csearch_path%3D{schema}")
        migrate(engine)
        repo = Repository(engine)
        tables = [f"b{n}" for n in range(args.tables)]
        repo.write(fenced([InsertTable(a_table(t)) for t in tables],
                          [Fence(t, 1, "bench") for t in tables]))
        timings: dict[str, list[float]] = {"plain": [], "fenced": []}
        for version in range(1, args.batches + 1):
            ops: list[WriteOp] = []
            for t in tables:
                ops += [InsertEvent(t, StoredEvent(version, "action", "discard 7h", 0)),
                        UpdateTable(t, {"version": version, "status": "playing",
                                        "clock_seat": None, "clock_deadline": None})]
            kind = "fenced" if version % 2 else "plain"
            if kind == "fenced":
                ops = fenced(ops, [Fence(t, 1, "bench") for t in tables])
            started = time.perf_counter()
            repo.write(ops)
            timings[kind].append((time.perf_counter() - started) * 1000)
        repo.close()
        engine.dispose()
        report = {kind: {"median_ms": round(statistics.median(v), 2),
                         "p95_ms": round(statistics.quantiles(v, n=20)[-1], 2)}
                  for kind, v in timings.items()}
        print(json.dumps({"tables_per_batch": args.tables, "batches": args.batches, **report}))
    finally:
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--batches", type=int, default=300)
    parser.add_argument("--db", default="postgresql://postgres@127.0.0.1:5432/test")
    main(parser.parse_args())
