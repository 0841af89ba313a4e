"""A duty of the cluster that exactly one process does at a time (the tournament driver),
held with the tables' own leases (docs/cluster.md, docs/tournaments.md).

A :class:`DutyLease` is a table lease under a name that is no table's (the key
``ginrummy:table:{<name>}:lease`` with ``"<token>:<owner>"`` and a time to live, renewed
every ttl/3 by a :class:`~ginrummy.server.cluster.lease.LeaseKeeper` of its own) and a row
of ``duty_owners`` fencing it, as ``table_owners`` fences a table: a process takes the duty
the way it takes a table over (the lease with a token above the one stored, then the claim
of that token in the database), and each of its writes checks the fence in its own
transaction (:meth:`DutyLease.check`), so once another process has taken the duty over (the
lease expired: the holder died, paused or lost Redis) the old holder commits nothing more.
"""

from __future__ import annotations

import asyncio
import logging

from redis.exceptions import RedisError
from sqlalchemy import Engine, Table, select
from sqlalchemy.engine import Connection

from ginrummy.server.cluster.fencing import token_upsert
from ginrummy.server.cluster.lease import Lease, LeaseKeeper, LeaseStore
from ginrummy.storage.models import DutyOwnerRow
from ginrummy.storage.repository import utcnow

log = logging.getLogger("ginrummy.cluster")

TOURNAMENTS_DUTY = "tournament-driver"
"""The lease (and ``duty_owners`` row) of the process that drives the tournaments."""

DUTIES: Table = DutyOwnerRow.__table__  # type: ignore[assignment]


class DutyLost(RuntimeError):
    """This process does not hold the duty's lease (never took it, let it expire, or was
    fenced out by a newer holder): the write was not made."""


def stored_token(conn: Connection, name: str) -> int:
    """The duty's highest token stored (0: never taken)."""
    token = conn.execute(select(DUTIES.c.token).where(DUTIES.c.name == name)).scalar()
    return int(token or 0)


def fence(conn: Connection, lease: Lease) -> bool:
    """Store the lease's token as the duty's unless a larger one is stored (in the caller's
    transaction, locking the duty's row); whether it was stored."""
    stmt = token_upsert(conn, DUTIES, DUTIES.c.name, [
        {"name": lease.table_id, "token": lease.token, "owner": lease.owner,
         "updated_at": utcnow()}])
    return conn.execute(stmt).first() is not None


class DutyLease:
    """One cluster-wide duty, held by at most one process at a time (see the module)."""

    def __init__(self, store: LeaseStore, engine: Engine, name: str = TOURNAMENTS_DUTY,
                 ttl_ms: int = 6000) -> None:
        self.name = name
        self.engine = engine
        self.keeper = LeaseKeeper(store, self._on_lost, ttl_ms)
        self._unreachable = False

    @property
    def lease(self) -> Lease | None:
        """The duty's lease as this process holds it (``None``: not held)."""
        return self.keeper.leases.get(self.name)

    async def held(self) -> bool:
        """True when this process holds the duty, taking it when nobody does (its renewal
        started with the first call)."""
        self.keeper.start()
        lease = self.lease
        if lease is not None:  # expired before a renewal: the keeper reports it lost
            return lease.valid()
        try:
            floor = await asyncio.to_thread(self._floor)
            lease = await self.keeper.acquire(self.name, floor)
        except (RedisError, OSError, TimeoutError) as exc:  # logged once until Redis answers
            (log.debug if self._unreachable else log.warning)(
                "duty %s: lease not taken (%s)", self.name, exc)
            self._unreachable = True
            return False
        self._unreachable = False
        if lease is None:
            return False
        if not await asyncio.to_thread(self._claim, lease):  # a newer token was stored
            await self.keeper.release(self.name)
            return False
        log.info("duty %s taken (token %d)", self.name, lease.token,
                 extra={"event": "duty_taken", "duty": self.name})
        return True

    def _floor(self) -> int:
        with self.engine.connect() as conn:
            return stored_token(conn, self.name)

    def _claim(self, lease: Lease) -> bool:
        with self.engine.begin() as conn:
            return fence(conn, lease)

    def check(self, conn: Connection) -> None:
        """The fence of a write of the duty, in the write's transaction: :class:`DutyLost`
        (the caller rolls back) unless this process holds the lease and no newer holder's
        token is stored."""
        lease = self.lease
        if lease is None or not lease.valid():
            raise DutyLost(f"duty {self.name}: no lease held")
        if not fence(conn, lease):
            if self.keeper.leases.get(self.name) is lease:
                del self.keeper.leases[self.name]
            raise DutyLost(f"duty {self.name}: a newer holder's token is stored (this "
                           f"holder's: {lease.token})")

    async def release(self) -> None:
        """Stop renewing and give the lease back (the next process takes it at once)."""
        await self.keeper.stop()
        try:
            await self.keeper.release(self.name)
        except (RedisError, OSError) as exc:  # it expires anyway
            log.warning("duty %s: lease not released (%s)", self.name, exc)

    def _on_lost(self, lease: Lease) -> None:
        log.warning("duty %s: lease lost (token %d)", self.name, lease.token,
                    extra={"event": "lease_lost", "duty": self.name})
