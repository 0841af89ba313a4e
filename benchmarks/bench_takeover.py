"""How long a dead owner's tables stay without an owner (docs/cluster.md).

One keeper (the "dying" process) takes ``--tables`` tables over with the default lease (6 s,
renewed every 2 s) and renews them; at a random moment of its renewal cycle it stops, as
a SIGKILL would stop it (no release). An heir sweeps every second, as ``serve`` will, and
takes each orphan over (the lease above the stored token, then the claim in PostgreSQL).
Reported per repeat: the seconds the first sweep took (all tables free), from the death to
the first and the last table claimed, and leases the keepers lost (0 expected).

Needs Redis and PostgreSQL (a fresh schema is made and dropped):

    .venv/bin/python benchmarks/bench_takeover.py --tables 200 --repeat 3
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import secrets
import time

from redis.asyncio import Redis
from sqlalchemy import text

from ginrummy.rules import Ruleset
from ginrummy.server.cluster import Lease, LeaseKeeper, LeaseStore, sweep
from ginrummy.server.cluster.takeover import SWEEP_SECONDS, TTL_MS
from ginrummy.storage import migrate, open_engine
from ginrummy.storage.repository import InsertTable, Repository, StoredSeat, StoredTable


def a_table(table_id: str) -> StoredTable:
    """A playing table with one guest."""
    return StoredTable(
        id=table_id, name="bench", preset="classic", rules=Ruleset.preset("classic").to_dict(),
        players=2, public=True, invite_hash=None, clock_ms=0, pool_chips=None,
        status="playing", version=0, seats=[StoredSeat(0, "human", "Ann"), StoredSeat(1, "empty")])


async def one_run(redis: Redis, engine_url: str, tables: list[str],
                  prefix: str) -> dict[str, float]:
    """One death and takeover; the seconds it took."""
    engine = open_engine(engine_url)
    lost: list[Lease] = []
    dying = LeaseKeeper(LeaseStore(redis, "dying", prefix=prefix), lost.append, ttl_ms=TTL_MS)
    heir = LeaseKeeper(LeaseStore(redis, "heir", prefix=prefix), lost.append, ttl_ms=TTL_MS)
    dying.start()
    started = time.monotonic()
    assert len(await sweep(dying, engine, tables)) == len(tables)
    first_sweep = time.monotonic() - started
    await asyncio.sleep(dying.interval * (1 + random.random()))  # a random moment
    await dying.stop()
    died = time.monotonic()
    claimed: list[float] = []
    while len(claimed) < len(tables):
        won = await sweep(heir, engine, tables)
        claimed += [time.monotonic() - died] * len(won)
        if len(claimed) < len(tables):
            await asyncio.sleep(SWEEP_SECONDS)
    for table_id in tables:
        await heir.release(table_id)
    engine.dispose()
    return {"first_sweep_s": round(first_sweep, 3), "first_s": round(min(claimed), 3),
            "last_s": round(max(claimed), 3), "lost_early": len(lost)}


async def main(args: argparse.Namespace) -> None:
    schema = f"bench_takeover_{secrets.token_hex(4)}"
    admin = open_engine(args.db)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    url = f"{args.db}?options=-csearch_path%3D{schema}"
    prefix = f"benchtakeover{secrets.token_hex(4)}"
    redis = Redis.from_url(args.redis)
    try:
        engine = open_engine(url)
        migrate(engine)
        tables = [f"b{n}" for n in range(args.tables)]
        Repository(engine).write([InsertTable(a_table(t)) for t in tables])
        engine.dispose()
        runs = [await one_run(redis, url, tables, prefix) for _ in range(args.repeat)]
        print(json.dumps({"tables": args.tables, "ttl_ms": TTL_MS, "sweep_s": SWEEP_SECONDS,
                          "runs": runs}))
    finally:
        keys = [key async for key in redis.scan_iter(match=f"{prefix}:*")]
        if keys:
            await redis.delete(*keys)
        await redis.aclose()
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--db", default="postgresql://postgres@127.0.0.1:5432/test")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    asyncio.run(main(parser.parse_args()))
