"""Fencing tokens checked by the database: a stale owner's commit fails whole, the new owner
commits (the partition test of issue 14 at the storage level), on PostgreSQL with leases from
the machine's Redis, and the same statement on SQLite."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
from cluster_helpers import with_redis
from redis.asyncio import Redis
from sqlalchemy import Engine, select
from sqlalchemy.engine import Connection

from ginrummy.rules import Ruleset
from ginrummy.server.cluster import (
    Fence,
    FencedOut,
    Fencer,
    Lease,
    LeaseKeeper,
    LeaseStore,
    NoFencer,
    check_fences,
    claim,
    claim_many,
    fenced,
    stored_token,
    stored_tokens,
)
from ginrummy.server.cluster.fencing import OWNERS
from ginrummy.storage import migrate, open_engine
from ginrummy.storage.database import schema_tables
from ginrummy.storage.repository import (
    Apply,
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
    return StoredTable(
        id=table_id, name="Ann's table", preset="classic",
        rules=Ruleset.preset("classic").to_dict(), players=2, public=True, invite_hash=None,
        clock_ms=0, pool_chips=None, status="playing", version=0,
        seats=[StoredSeat(0, "human", "Ann"), StoredSeat(1, "bot", "Bot", "simple")])


def action(table_id: str, version: int) -> list[WriteOp]:
    """What an accepted action writes: its event and its table's version."""
    return [InsertEvent(table_id, StoredEvent(version, "action", f"move {version}", 0)),
            UpdateTable(table_id, {"version": version, "status": "playing",
                                   "clock_seat": None, "clock_deadline": None})]


def owner_row(engine: Engine, table_id: str) -> tuple[int, str] | None:
    with engine.connect() as conn:
        row = conn.execute(select(OWNERS.c.token, OWNERS.c.owner)
                           .where(OWNERS.c.table_id == table_id)).first()
    return None if row is None else (row[0], row[1])


def test_the_migration_adds_table_owners(pg_engine: Engine) -> None:
    assert "table_owners" in schema_tables(pg_engine)
    assert stored_token(pg_engine, "nothing") == 0


def test_partition_the_stale_owner_cannot_commit_the_new_one_does(
        prefix: str, pg_engine: Engine) -> None:
    repo = Repository(pg_engine)

    async def scenario(client: Redis) -> None:
        lost: list[Lease] = []
        old_keeper = LeaseKeeper(LeaseStore(client, "old-process", prefix=prefix),
                                 lost.append, ttl_ms=600)
        old = await old_keeper.acquire("t1")
        assert old is not None
        old_keeper.start()
        repo.write(fenced([InsertTable(a_table("t1"))], [Fence.of(old)]))
        for version in (1, 2):
            repo.write(fenced(action("t1", version), [Fence.of(old)]))
            await asyncio.sleep(0.4)  # renewals keep it past its ttl meanwhile
        assert owner_row(pg_engine, "t1") == (old.token, "old-process")

        await old_keeper.stop()  # the old owner pauses: no renewal, the lease expires
        await asyncio.sleep(0.7)
        new_store = LeaseStore(client, "new-process", prefix=prefix)
        new = await new_store.acquire("t1", 5000, floor=stored_token(pg_engine, "t1"))
        assert new is not None and new.token > old.token
        claim(pg_engine, Fence.of(new))
        loaded = repo.load_table("t1")
        assert loaded is not None and loaded.version == 2

        # the old process wakes up, believes it still owns the table, and commits
        with pytest.raises(FencedOut, match="t1") as caught:
            repo.write(fenced(action("t1", 3), [Fence.of(old)]))
        assert caught.value.table_ids == ("t1",)
        after = repo.load_table("t1")
        assert after is not None and after.version == 2 and len(after.events) == 2

        repo.write(fenced(action("t1", 3), [Fence.of(new)]))  # the new owner commits
        with pytest.raises(FencedOut):  # and the old one still cannot
            repo.write(fenced(action("t1", 4), [Fence.of(old)]))
        final = repo.load_table("t1")
        assert final is not None and final.version == 3
        assert [e.payload for e in final.events] == ["move 1", "move 2", "move 3"]
        assert owner_row(pg_engine, "t1") == (new.token, "new-process")

    with_redis(scenario)
    repo.close()


def test_a_claim_waits_for_the_old_owners_commit_in_flight(pg_engine: Engine) -> None:
    """PostgreSQL orders them: the commit that checked its fence first finishes, then the
    claim; every later commit of the old owner fails."""
    repo = Repository(pg_engine)
    old, new = Fence("t1", 1, "old"), Fence("t1", 2, "new")
    repo.write(fenced([InsertTable(a_table("t1"))], [old]))
    entered, gate = threading.Event(), threading.Event()
    outcome: dict[str, BaseException | None] = {}

    def hold(_conn: Connection) -> None:
        entered.set()
        assert gate.wait(10)

    def old_commit() -> None:
        try:
            repo.write(fenced([*action("t1", 1), Apply(hold)], [old]))
            outcome["old"] = None
        except BaseException as exc:
            outcome["old"] = exc

    def new_claim() -> None:
        try:
            claim(pg_engine, new)
            outcome["new"] = None
        except BaseException as exc:
            outcome["new"] = exc

    committing = threading.Thread(target=old_commit)
    committing.start()
    assert entered.wait(10)
    claiming = threading.Thread(target=new_claim)
    claiming.start()
    claiming.join(0.3)
    assert claiming.is_alive()  # blocked on the old owner's row lock
    gate.set()
    committing.join(10)
    claiming.join(10)
    assert outcome == {"old": None, "new": None}
    with pytest.raises(FencedOut):
        repo.write(fenced(action("t1", 2), [old]))
    stored = repo.load_table("t1")
    assert stored is not None and stored.version == 1 and len(stored.events) == 1
    repo.close()


def test_one_stale_table_rolls_back_the_whole_batch(pg_engine: Engine) -> None:
    repo = Repository(pg_engine)
    repo.write(fenced([InsertTable(a_table("t1")), InsertTable(a_table("t2"))],
                      [Fence("t1", 5, "a"), Fence("t2", 5, "a")]))
    claim(pg_engine, Fence("t1", 6, "b"))
    with pytest.raises(FencedOut) as caught:
        repo.write(fenced([*action("t1", 1), *action("t2", 1)],
                          [Fence("t2", 5, "a"), Fence("t1", 5, "a")]))
    assert caught.value.table_ids == ("t1",)  # only the stale one is named
    for table_id in ("t1", "t2"):
        stored = repo.load_table(table_id)
        assert stored is not None and stored.version == 0 and stored.events == []
    repo.write(fenced(action("t2", 1), [Fence("t2", 5, "a")]))  # t2 is still a's
    assert owner_row(pg_engine, "t1") == (6, "b")
    repo.close()


def test_fencing_on_sqlite_and_no_fence_for_one_process(tmp_path: Path) -> None:
    engine = open_engine(f"sqlite:///{tmp_path / 'one.db'}")
    migrate(engine)
    repo = Repository(engine)
    repo.write(fenced([InsertTable(a_table("t1"))], [Fence("t1", 1, "a")]))
    claim(engine, Fence("t1", 2, "b"))
    with pytest.raises(FencedOut):
        repo.write(fenced(action("t1", 1), [Fence("t1", 1, "a")]))
    ops = action("t1", 1)
    assert fenced(ops, NoFencer().fences(["t1"])) == ops  # one process: nothing added
    repo.write(fenced(ops, []))
    stored = repo.load_table("t1")
    assert stored is not None and stored.version == 1
    repo.close()
    engine.dispose()


def test_fencer_and_bad_fences_are_refused_naming_the_table() -> None:
    lease = Lease("t1", "me", 7, 5000, 0.0)
    assert Fencer({"t1": lease}).fences(["t1", "t1"]) == [Fence("t1", 7, "me")]
    with pytest.raises(FencedOut, match="t2: this process holds no lease"):
        Fencer({"t1": lease}).fences(["t2"])
    with pytest.raises(ValueError, match="must be positive"):
        Fence("t1", 0, "me")
    with pytest.raises(ValueError, match="two fences for table 't1'"):
        check_fences(None, [Fence("t1", 1, "a"), Fence("t1", 2, "a")])  # type: ignore[arg-type]


def test_claim_many_claims_all_but_the_tables_a_newer_token_holds(pg_engine: Engine) -> None:
    repo = Repository(pg_engine)
    repo.write([InsertTable(a_table(t)) for t in ("t1", "t2", "t3")])
    claim(pg_engine, Fence("t2", 5, "newer"))
    refused = claim_many(pg_engine, [Fence(t, 3, "me") for t in ("t1", "t2", "t3")])
    assert refused == ("t2",)
    assert stored_tokens(pg_engine, ["t1", "t2", "t3", "t4"]) == {"t1": 3, "t2": 5, "t3": 3}
    assert owner_row(pg_engine, "t2") == (5, "newer")
    assert claim_many(pg_engine, []) == ()
    repo.close()
