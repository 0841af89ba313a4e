"""One process of a cluster drives the tournaments (server/cluster/duty.py, docs/
tournaments.md): the tables' leases (Redis, owner and expiry, renewed) and a fencing token
in PostgreSQL. Two drivers on one database: only the holder takes steps; when it stops, the
other takes over at once; when it dies (no more renewals), the other takes over once the
lease expired; and the dead driver, should it wake up believing it still holds the lease,
commits nothing."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from datetime import timedelta

from cluster_helpers import with_redis
from redis.asyncio import Redis
from sqlalchemy import Engine
from test_tournament_driver import START, Clock, FakeTables, create, make_accounts, register

from ginrummy.server.cluster.duty import TOURNAMENTS_DUTY, DutyLease, DutyLost, stored_token
from ginrummy.server.cluster.lease import LeaseStore
from ginrummy.server.players.tournaments import TournamentDriver
from ginrummy.storage import ledger
from ginrummy.storage.tournaments import TournamentStore

TTL_MS = 600


def driver(engine: Engine, client: Redis, prefix: str, owner: str,
           clock: Clock) -> TournamentDriver:
    """A process's driver, with its own owner id and duty lease."""
    lease = DutyLease(LeaseStore(client, owner, prefix), engine, TOURNAMENTS_DUTY, TTL_MS)
    return TournamentDriver(engine, FakeTables(), 60.0, clock, lease=lease)


def two_players_registered(engine: Engine) -> tuple[int, int, Clock]:
    """A 2-player knock-out starting in a second, both registered; the clock before it."""
    a, b = make_accounts(engine, 2)
    create(engine, "knockout", None)
    register(engine, "t1", [a, b])
    return a, b, Clock(START - timedelta(seconds=1))


def status(engine: Engine) -> str:
    t = TournamentStore(engine).get("t1")
    assert t is not None
    return t.status


def test_only_the_holder_drives_and_a_stop_hands_over_at_once(prefix: str,
                                                              pg_engine: Engine) -> None:
    a, b, clock = two_players_registered(pg_engine)

    async def scenario(client: Redis) -> None:
        first = driver(pg_engine, client, prefix, "first@test:1", clock)
        second = driver(pg_engine, client, prefix, "second@test:2", clock)
        assert await first.lease.held() and not await second.lease.held()
        clock.move(1)
        assert await second.tick() == 0  # not the holder: no step
        assert status(pg_engine) == "open"
        await asyncio.sleep(TTL_MS / 1000 * 1.5)  # renewed: still the first's
        assert not await second.lease.held()
        await first.stop()  # a graceful stop gives the lease back
        assert await second.tick() > 0  # taken over at once
        assert status(pg_engine) == "running"
        assert [m.players for m in TournamentStore(pg_engine).matches("t1")] == [(a, b)]
        await second.stop()

    with_redis(scenario)
    with pg_engine.connect() as conn:
        assert stored_token(conn, TOURNAMENTS_DUTY) == 2  # one token per holder
        assert ledger.check(conn).ok


def test_a_dead_drivers_lease_expires_and_it_is_fenced_out_if_it_wakes(
        prefix: str, pg_engine: Engine) -> None:
    _a, _b, clock = two_players_registered(pg_engine)

    async def scenario(client: Redis) -> None:
        first = driver(pg_engine, client, prefix, "first@test:1", clock)
        second = driver(pg_engine, client, prefix, "second@test:2", clock)
        assert await first.tick() == 0 and await first.lease.held()  # nothing due yet
        old = first.lease.lease  # type: ignore[attr-defined]
        assert old is not None
        await first.lease.keeper.stop()  # type: ignore[attr-defined]  # dies: no renewal
        died = time.monotonic()
        while not await second.lease.held():  # free once the lease expired
            assert time.monotonic() - died < 5
            await asyncio.sleep(0.02)
        assert time.monotonic() - died >= TTL_MS / 1000 * 0.5
        # the first wakes up believing its lease good (a process paused, its clock too)
        first.lease.keeper.leases[TOURNAMENTS_DUTY] = replace(  # type: ignore[attr-defined]
            old, valid_until=time.monotonic() + 60)
        clock.move(1)
        assert await first.tick() == 0  # its start is refused by the fence
        assert status(pg_engine) == "open"
        assert TOURNAMENTS_DUTY not in first.lease.keeper.leases  # type: ignore[attr-defined]
        try:
            with pg_engine.begin() as conn:
                first.lease.keeper.leases[TOURNAMENTS_DUTY] = old  # type: ignore[attr-defined]
                first.lease.check(conn)
            raise AssertionError("a stale holder passed the fence")
        except DutyLost:
            pass
        assert await second.tick() > 0  # the new holder drives
        assert status(pg_engine) == "running"
        await second.stop()

    with_redis(scenario)
