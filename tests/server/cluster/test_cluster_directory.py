"""The lobby across processes in the machine's Redis: each process's tables listed, the
newer owner's entry during a takeover, a dead process's entries gone with their ttl."""

from __future__ import annotations

import asyncio

import pytest
from cluster_helpers import with_redis
from redis.asyncio import Redis

from ginrummy.server.cluster import LobbyBoard


def test_every_processs_tables_are_listed_the_newer_owner_wins(prefix: str) -> None:
    async def check(client: Redis) -> None:
        one = LobbyBoard(client, "p1", prefix=prefix)
        two = LobbyBoard(client, "p2", prefix=prefix)
        await one.publish({"t1": (1, {"name": "Ann's"}), "t2": (4, {"name": "Bob's"})})
        await two.publish({"t3": (2, {"name": "Cy's", "seats": [None, "Cy"]})})
        listing = await one.listing()
        assert {t: (x.process, x.entry) for t, x in listing.items()} == {
            "t1": ("p1", {"name": "Ann's"}), "t2": ("p1", {"name": "Bob's"}),
            "t3": ("p2", {"name": "Cy's", "seats": [None, "Cy"]})}
        # p2 took t2 over (token 5) before p1 republished without it: p2's entry wins
        await two.publish({"t3": (2, {"name": "Cy's"}), "t2": (5, {"name": "Bob's, moved"})})
        listing = await two.listing()
        assert (listing["t2"].process, listing["t2"].token) == ("p2", 5)
        await one.publish({"t1": (1, {"name": "Ann's"})})  # a publication replaces the last
        assert set(await one.listing()) == {"t1", "t2", "t3"}
        await one.withdraw()
        assert set(await two.listing()) == {"t2", "t3"}
        assert await client.sismember(one.processes_key, "p1") == 0

    with_redis(check)


def test_a_dead_processs_entries_expire_and_leave_the_set(prefix: str) -> None:
    async def check(client: Redis) -> None:
        dead = LobbyBoard(client, "dead", ttl_ms=1000, prefix=prefix)
        live = LobbyBoard(client, "live", ttl_ms=5000, prefix=prefix)
        await dead.publish({"t1": (1, {"name": "gone soon"})})
        await live.publish({"t2": (1, {"name": "stays"})})
        assert set(await live.listing()) == {"t1", "t2"}
        await asyncio.sleep(1.2)  # the dead process published nothing since
        assert set(await live.listing()) == {"t2"}
        assert await client.smembers(live.processes_key) == {b"live"}

    with_redis(check)


def test_a_bad_ttl_is_refused(prefix: str) -> None:
    async def check(client: Redis) -> None:
        with pytest.raises(ValueError, match="lobby ttl_ms must be positive"):
            LobbyBoard(client, "p", ttl_ms=0, prefix=prefix)

    with_redis(check)
