"""Table leases in the machine's Redis: one holder at a time, tokens that only grow, release
and renewal only by the holder, and the keeper that renews them and reports their loss."""

from __future__ import annotations

import asyncio
import time

import pytest
from cluster_helpers import redis_client, with_redis
from redis.asyncio import Redis

from ginrummy.server.cluster import Holder, Lease, LeaseKeeper, LeaseStore, make_owner_id


def stores(client: Redis, prefix: str, count: int) -> list[LeaseStore]:
    return [LeaseStore(client, f"owner{i}", prefix=prefix) for i in range(count)]


def test_racing_holders_exactly_one_wins(prefix: str) -> None:
    async def race(client: Redis) -> None:
        for table in ("t1", "t2", "t3"):
            contenders = [LeaseStore(redis_client(), f"owner{i}", prefix=prefix)
                          for i in range(12)]
            try:
                leases = await asyncio.gather(*(s.acquire(table, 5000) for s in contenders))
            finally:
                for store in contenders:
                    await store.redis.aclose()
            won = [lease for lease in leases if lease is not None]
            assert len(won) == 1
            holder = await LeaseStore(client, "reader", prefix=prefix).holder(table)
            assert holder == Holder(won[0].owner, won[0].token)

    with_redis(race)


def test_tokens_strictly_increase_across_owners(prefix: str) -> None:
    async def cycles(client: Redis) -> None:
        owners = stores(client, prefix, 3)
        tokens = []
        for round_ in range(9):
            store = owners[round_ % 3]
            lease = await store.acquire("t1", 5000)
            assert lease is not None and lease.owner == store.owner
            tokens.append(lease.token)
            assert await store.release(lease)
        assert tokens == sorted(set(tokens)) and len(tokens) == 9
        other = await owners[0].acquire("t2", 5000)  # each table counts on its own
        assert other is not None and other.token == 1

    with_redis(cycles)


def test_release_and_renewal_by_a_non_holder_do_nothing(prefix: str) -> None:
    async def check(client: Redis) -> None:
        ann, bob = stores(client, prefix, 2)
        lease = await ann.acquire("t1", 5000)
        assert lease is not None
        assert await bob.acquire("t1", 5000) is None  # held: nobody else gets it
        forged = Lease("t1", bob.owner, lease.token, 5000, lease.valid_until)
        assert not await bob.release(forged)
        assert await bob.renew(forged) is None
        stale = Lease("t1", ann.owner, lease.token - 1, 5000, lease.valid_until)
        assert not await ann.release(stale)  # the holder's older lease is not this one
        assert await bob.holder("t1") == Holder(ann.owner, lease.token)
        assert await ann.release(lease)
        assert await bob.holder("t1") is None
        assert not await ann.release(lease)  # released once

    with_redis(check)


def test_renewal_extends_and_expiry_frees_the_table(prefix: str) -> None:
    async def check(client: Redis) -> None:
        ann, bob = stores(client, prefix, 2)
        lease = await ann.acquire("t1", 600)
        assert lease is not None and lease.valid()
        for _ in range(4):  # 800 ms held by renewals at 200 ms, past the 600 ms ttl
            await asyncio.sleep(0.2)
            renewed = await ann.renew(lease)
            assert renewed is not None and renewed.valid_until > lease.valid_until
            lease = renewed
        assert await bob.acquire("t1", 600) is None
        await asyncio.sleep(0.7)  # no renewal: it expires
        assert not lease.valid()
        assert await ann.renew(lease) is None
        taken = await bob.acquire("t1", 600)
        assert taken is not None and taken.token == lease.token + 1

    with_redis(check)


def test_floor_lifts_the_token_after_redis_lost_its_counters(prefix: str) -> None:
    async def check(client: Redis) -> None:
        (ann,) = stores(client, prefix, 1)
        lease = await ann.acquire("t1", 5000, floor=41)
        assert lease is not None and lease.token == 42
        await ann.release(lease)
        again = await ann.acquire("t1", 5000, floor=3)  # a lower floor changes nothing
        assert again is not None and again.token == 43

    with_redis(check)


def test_directory_reads_every_holder(prefix: str) -> None:
    async def check(client: Redis) -> None:
        ann, bob = stores(client, prefix, 2)
        a = await ann.acquire("t1", 5000)
        b = await bob.acquire("t2", 5000)
        assert a is not None and b is not None
        found = await ann.holders(["t1", "t2", "t3"])
        assert found == {"t1": Holder("owner0", a.token), "t2": Holder("owner1", b.token)}
        assert await ann.holders([]) == {}

    with_redis(check)


def test_bad_input_is_refused_naming_it(prefix: str) -> None:
    async def check(client: Redis) -> None:
        (ann,) = stores(client, prefix, 1)
        with pytest.raises(ValueError, match="bad table id"):
            await ann.acquire("t:1", 5000)
        with pytest.raises(ValueError, match="ttl_ms must be positive"):
            await ann.acquire("t1", 0)
        with pytest.raises(ValueError, match="owner id"):
            LeaseStore(client, "x" * 200, prefix=prefix)
        with pytest.raises(ValueError, match="at least 30"):
            LeaseKeeper(ann, lambda lease: None, ttl_ms=10)

    with_redis(check)


def test_owner_ids_name_the_process_and_differ() -> None:
    first, second = make_owner_id(), make_owner_id()
    assert first != second
    assert first.endswith(f":{__import__('os').getpid()}") and "@" in first


def test_keeper_holds_leases_past_their_ttl_and_releases_them(prefix: str) -> None:
    async def check(client: Redis) -> None:
        ann, bob = stores(client, prefix, 2)
        lost: list[Lease] = []
        keeper = LeaseKeeper(ann, lost.append, ttl_ms=900)
        assert await keeper.acquire("t1") is not None
        assert await keeper.acquire("t2") is not None
        keeper.start()
        await asyncio.sleep(2.0)  # over two ttls
        assert lost == []
        assert await bob.acquire("t1", 900) is None and await bob.acquire("t2", 900) is None
        assert await keeper.release("t1")
        assert await bob.acquire("t1", 900) is not None
        await keeper.stop()
        assert lost == []

    with_redis(check)


class SwallowingStore(LeaseStore):
    """A store whose renewal, once ``convert`` is set, turns a cancellation into a timeout, as
    a client library may when a cancel and its own timeout meet (seen once under load: a
    keeper's stop() that never returned, its task renewing on)."""

    def __init__(self, owner: str) -> None:
        self.owner = owner
        self.renewing = asyncio.Event()
        self.convert = False

    async def renew_many(self, leases: list[Lease]) -> list[Lease | None]:
        self.renewing.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            if not self.convert:
                raise
            self.convert = False
            raise TimeoutError("the renewal timed out") from None
        return list(leases)


def test_keeper_stops_even_when_its_cancellation_comes_back_as_a_timeout() -> None:
    async def check() -> None:
        store = SwallowingStore("ann@test:1")
        keeper = LeaseKeeper(store, lambda lease: None, ttl_ms=3000)  # renewals every 1 s
        keeper.leases["t1"] = Lease("t1", store.owner, 1, 30_000, time.monotonic() + 30)
        keeper.start()
        task = keeper._task
        assert task is not None
        await store.renewing.wait()  # inside the first renewal (its own timeout is 1 s)
        store.convert = True
        stopping = asyncio.get_running_loop().create_task(keeper.stop())
        await asyncio.wait({stopping}, timeout=5)  # waits, cancels nothing
        assert not store.convert  # the stop came back as a timeout
        assert stopping.done(), "stop() still waits for a keeper that renews on"
        assert task.done()

    asyncio.run(check())


def test_keeper_reports_a_lease_found_taken(prefix: str) -> None:
    async def check(client: Redis) -> None:
        ann, bob = stores(client, prefix, 2)
        lost: list[Lease] = []
        keeper = LeaseKeeper(ann, lost.append, ttl_ms=3000)
        lease = await keeper.acquire("t1")
        assert lease is not None and await keeper.acquire("t2") is not None
        await client.delete(ann.key("t1", "lease"))  # as if it expired in a pause
        taken = await bob.acquire("t1", 3000)
        assert taken is not None and taken.token > lease.token
        await keeper.renew_now()
        assert [x.table_id for x in lost] == ["t1"]
        assert set(keeper.leases) == {"t2"}

    with_redis(check)


def test_keeper_reports_loss_only_once_expired_when_redis_is_unreachable(prefix: str) -> None:
    async def check(client: Redis) -> None:
        (ann,) = stores(client, prefix, 1)
        lease = await ann.acquire("t1", 1500)
        assert lease is not None
        cut_off = Redis(host="127.0.0.1", port=1, socket_connect_timeout=0.05)
        try:
            lost: list[Lease] = []
            keeper = LeaseKeeper(LeaseStore(cut_off, ann.owner, prefix=prefix),
                                 lost.append, ttl_ms=1500)
            keeper.leases["t1"] = lease
            await keeper.renew_now()
            assert lost == [] and lease.valid()  # cannot renew, but still valid: not lost
            await asyncio.sleep(max(0.0, lease.valid_until - asyncio.get_running_loop().time()))
            await asyncio.sleep(0.05)
            await keeper.renew_now()
            assert lost == [lease] and keeper.leases == {}
        finally:
            await cut_off.aclose()

    with_redis(check)


def test_acquire_many_wins_the_free_tables_in_one_round_trip(prefix: str) -> None:
    async def check(client: Redis) -> None:
        ann, bob = stores(client, prefix, 2)
        held = await bob.acquire("t2", 5000)
        assert held is not None
        won = await ann.acquire_many({"t1": 0, "t2": 0, "t3": 9}, 5000)
        assert sorted(won) == ["t1", "t3"]
        assert won["t3"].token == 10 and won["t1"].owner == ann.owner
        assert await ann.holders(["t1", "t2", "t3"]) == {
            "t1": Holder(ann.owner, won["t1"].token), "t2": Holder(bob.owner, held.token),
            "t3": Holder(ann.owner, 10)}
        assert await ann.acquire_many({}, 5000) == {}
        with pytest.raises(ValueError, match="bad table id"):
            await ann.acquire_many({"a b": 0}, 5000)

    with_redis(check)
