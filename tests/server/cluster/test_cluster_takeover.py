"""Taking over a dead owner's tables (Redis and PostgreSQL): within the lease's ttl and one
sweep, with tokens above the old owner's, whose commits then fail."""

from __future__ import annotations

import asyncio
import time

from cluster_helpers import with_redis
from redis.asyncio import Redis
from sqlalchemy import Engine

from ginrummy.rules import Ruleset
from ginrummy.server.cluster import (
    Fence,
    FencedOut,
    Lease,
    LeaseKeeper,
    LeaseStore,
    fenced,
    orphans,
    stored_token,
    sweep,
    take_over,
)
from ginrummy.storage.repository import (
    InsertEvent,
    InsertTable,
    Repository,
    StoredEvent,
    StoredSeat,
    StoredTable,
)

TABLES = ["t1", "t2", "t3", "t4"]


def a_table(table_id: str) -> StoredTable:
    return StoredTable(
        id=table_id, name="table", preset="classic", rules=Ruleset.preset("classic").to_dict(),
        players=2, public=True, invite_hash=None, clock_ms=0, pool_chips=None,
        status="playing", version=0, seats=[StoredSeat(0, "human", "Ann"), StoredSeat(1, "empty")])


def test_a_dead_owners_tables_are_taken_over_within_ttl_and_one_sweep(
        prefix: str, pg_engine: Engine) -> None:
    repo = Repository(pg_engine)
    repo.write([InsertTable(a_table(t)) for t in TABLES])

    async def scenario(client: Redis) -> None:
        lost: list[Lease] = []
        dying = LeaseKeeper(LeaseStore(client, "dying", prefix=prefix), lost.append, ttl_ms=1000)
        heir = LeaseKeeper(LeaseStore(client, "heir", prefix=prefix), lost.append, ttl_ms=1000)
        first = await sweep(dying, pg_engine, TABLES)
        assert sorted(lease.table_id for lease in first) == TABLES
        assert await sweep(heir, pg_engine, TABLES) == []  # all held
        dying.start()
        await asyncio.sleep(1.2)  # renewed past the ttl: still dying's
        assert await orphans(heir.store, TABLES) == []
        await dying.stop()  # SIGKILL: no release, no renewal
        last = dict(dying.leases)  # as last renewed
        died = time.monotonic()
        taken: list[Lease] = []
        while len(taken) < len(TABLES) and time.monotonic() - died < 10:  # 10 ttls at most
            taken += await sweep(heir, pg_engine, TABLES)
            await asyncio.sleep(0.05)
        assert sorted(lease.table_id for lease in taken) == TABLES
        old = {lease.table_id: lease for lease in first}
        for lease in taken:
            assert lease.token > old[lease.table_id].token
            # never while the dying owner could still believe it held the table
            assert lease.valid_until - lease.ttl_ms / 1000 >= last[lease.table_id].valid_until
            assert stored_token(pg_engine, lease.table_id) == lease.token
            try:
                repo.write(fenced([InsertEvent(lease.table_id, StoredEvent(1, "action", "x"))],
                                  [Fence.of(old[lease.table_id])]))
                raise AssertionError("the dead owner committed")
            except FencedOut:
                pass
            repo.write(fenced([InsertEvent(lease.table_id, StoredEvent(1, "action", "y"))],
                              [Fence.of(lease)]))
        assert lost == []

    with_redis(scenario)
    for table_id in TABLES:
        stored = repo.load_table(table_id)
        assert stored is not None and [e.payload for e in stored.events] == ["y"]
    repo.close()


def test_after_redis_lost_its_counters_tokens_continue_above_the_stored_ones(
        prefix: str, pg_engine: Engine) -> None:
    Repository(pg_engine).write([InsertTable(a_table("t1"))])

    async def scenario(client: Redis) -> None:
        keeper = LeaseKeeper(LeaseStore(client, "one", prefix=prefix), print, ttl_ms=5000)
        for _ in range(3):
            lease = await take_over(keeper, pg_engine, "t1")
            assert lease is not None
            await keeper.release("t1")
        assert stored_token(pg_engine, "t1") == 3
        await client.delete(keeper.store.key("t1", "token"))  # a Redis restart
        again = await take_over(keeper, pg_engine, "t1")
        assert again is not None and again.token == 4
        other = LeaseKeeper(LeaseStore(client, "two", prefix=prefix), print, ttl_ms=5000)
        assert await take_over(other, pg_engine, "t1") is None  # held

    with_redis(scenario)
