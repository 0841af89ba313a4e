"""Table leases in Redis: one owner process per table at a time, each lease with a fencing
token that strictly increases per table across every owner (docs/cluster.md).

A lease is the key ``ginrummy:table:{<id>}:lease`` holding ``"<token>:<owner>"`` with a time
to live; the token comes from ``INCR`` of ``ginrummy:table:{<id>}:token`` in the same Lua
script that sets the lease, so no two leases of a table ever share a token. The braces make
both keys of a table hash to the same Redis Cluster slot.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import RedisError

log = logging.getLogger("ginrummy.cluster")

PREFIX = "ginrummy"
OWNER_MAX = 120
"""The longest owner id (the ``table_owners.owner`` column)."""

_ACQUIRE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return false end
local token = redis.call('INCR', KEYS[2])
local floor = tonumber(ARGV[3])
if token <= floor then
  token = floor + 1
  redis.call('SET', KEYS[2], token)
end
redis.call('SET', KEYS[1], token .. ':' .. ARGV[1], 'PX', ARGV[2])
return token
"""
"""Set the lease when nobody holds it, with the table's next token (above ``floor``: Redis
keeps nothing on disk, so after its restart the stored tokens of PostgreSQL set the floor)."""

_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""
"""Extend the lease only while it is still exactly this holder's (same owner, same token)."""

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
"""Delete the lease only when it is this holder's."""


def make_owner_id() -> str:
    """A process's owner id: a random uuid, the host name and the pid (unique even when a pid
    is reused or two hosts share a name; the host and pid say where to look)."""
    host = socket.gethostname()[:60] or "host"
    return f"{uuid.uuid4().hex}@{host}:{os.getpid()}"[:OWNER_MAX]


def table_key(table_id: str, part: str, prefix: str = PREFIX) -> str:
    """The Redis key ``part`` (``lease``, ``token``, ``in``, ``out``) of a table."""
    return f"{prefix}:table:{{{table_id}}}:{part}"


def _check_table_id(table_id: str) -> None:
    if not table_id or any(c in table_id for c in "{}: \n"):
        raise ValueError(f"bad table id {table_id!r}: it must be non-empty, without "
                         "braces, colons or spaces")


@dataclass(frozen=True)
class Lease:
    """A table's lease as its holder knows it."""

    table_id: str
    owner: str
    token: int
    ttl_ms: int
    valid_until: float
    """``time.monotonic()`` before which the lease is surely still held (measured from before
    the request that set or renewed it)."""

    @property
    def value(self) -> str:
        """The lease key's value: ``"<token>:<owner>"``."""
        return f"{self.token}:{self.owner}"

    def valid(self, now: float | None = None) -> bool:
        """Whether the lease is surely still held at ``now`` (default: the current time)."""
        return (time.monotonic() if now is None else now) < self.valid_until


@dataclass(frozen=True)
class Holder:
    """Who holds a table's lease now (the directory's answer)."""

    owner: str
    token: int

    @classmethod
    def parse(cls, value: str | bytes) -> Holder:
        """From a lease key's value."""
        text = value.decode() if isinstance(value, bytes) else value
        token, _, owner = text.partition(":")
        return cls(owner, int(token))


class LeaseStore:
    """Acquire, renew and release table leases, and read who holds them."""

    def __init__(self, redis: Redis, owner: str | None = None, prefix: str = PREFIX) -> None:
        self.redis = redis
        self.owner = owner if owner is not None else make_owner_id()
        if not self.owner or len(self.owner) > OWNER_MAX:
            raise ValueError(f"owner id must be 1 to {OWNER_MAX} characters: {self.owner!r}")
        self.prefix = prefix
        self._acquire = redis.register_script(_ACQUIRE)
        self._renew = redis.register_script(_RENEW)
        self._release = redis.register_script(_RELEASE)

    def key(self, table_id: str, part: str) -> str:
        """A table's key under this store's prefix."""
        return table_key(table_id, part, self.prefix)

    async def acquire(self, table_id: str, ttl_ms: int, floor: int = 0) -> Lease | None:
        """The table's lease with a new token (above ``floor``), or ``None`` when another
        holder (or this process, by another lease) has it."""
        _check_table_id(table_id)
        if ttl_ms <= 0:
            raise ValueError(f"lease ttl_ms must be positive, not {ttl_ms}")
        started = time.monotonic()
        token = await self._acquire(
            keys=[self.key(table_id, "lease"), self.key(table_id, "token")],
            args=[self.owner, ttl_ms, floor])
        if token is None:
            return None
        return Lease(table_id, self.owner, int(token), ttl_ms, started + ttl_ms / 1000)

    async def acquire_many(self, floors: Mapping[str, int],
                           ttl_ms: int) -> dict[str, Lease]:
        """The leases won among several tables (table id to its floor), in one round trip
        (a pipeline)."""
        if ttl_ms <= 0:
            raise ValueError(f"lease ttl_ms must be positive, not {ttl_ms}")
        ids = list(floors)
        for table_id in ids:
            _check_table_id(table_id)
        if not ids:
            return {}
        started = time.monotonic()
        async with self.redis.pipeline(transaction=False) as pipe:
            for table_id in ids:
                await self._acquire(
                    keys=[self.key(table_id, "lease"), self.key(table_id, "token")],
                    args=[self.owner, ttl_ms, floors[table_id]], client=pipe)
            tokens = await pipe.execute()
        return {t: Lease(t, self.owner, int(token), ttl_ms, started + ttl_ms / 1000)
                for t, token in zip(ids, tokens, strict=True) if token is not None}

    async def renew(self, lease: Lease) -> Lease | None:
        """The lease extended by its ttl, or ``None`` when it is no longer this holder's."""
        started = time.monotonic()
        done = await self._renew(keys=[self.key(lease.table_id, "lease")],
                                 args=[lease.value, lease.ttl_ms])
        if not done:
            return None
        return Lease(lease.table_id, lease.owner, lease.token, lease.ttl_ms,
                     started + lease.ttl_ms / 1000)

    async def renew_many(self, leases: Iterable[Lease]) -> list[Lease | None]:
        """Renew several leases in one round trip (a pipeline); ``None`` for each one lost."""
        leases = list(leases)
        started = time.monotonic()
        async with self.redis.pipeline(transaction=False) as pipe:
            for lease in leases:
                await self._renew(keys=[self.key(lease.table_id, "lease")],
                                  args=[lease.value, lease.ttl_ms], client=pipe)
            results = await pipe.execute()
        return [Lease(lease.table_id, lease.owner, lease.token, lease.ttl_ms,
                      started + lease.ttl_ms / 1000) if done else None
                for lease, done in zip(leases, results, strict=True)]

    async def release(self, lease: Lease) -> bool:
        """Give the lease up (only when it is still this holder's); whether it was."""
        done = await self._release(keys=[self.key(lease.table_id, "lease")],
                                   args=[lease.value])
        return bool(done)

    async def holder(self, table_id: str) -> Holder | None:
        """Who holds the table's lease now, or ``None``."""
        value = await self.redis.get(self.key(table_id, "lease"))
        return None if value is None else Holder.parse(value)

    async def holders(self, table_ids: Iterable[str]) -> dict[str, Holder]:
        """The holders of the tables that have one (one ``MGET``)."""
        ids = list(table_ids)
        if not ids:
            return {}
        values = await self.redis.mget([self.key(t, "lease") for t in ids])
        return {t: Holder.parse(v) for t, v in zip(ids, values, strict=True) if v is not None}


LostCallback = Callable[[Lease], Awaitable[None] | None]


class LeaseKeeper:
    """Keeps a process's leases: renews all of them every ttl/3 in one round trip and calls
    ``on_lost`` for each lease it could not renew before it expired, or found taken."""

    def __init__(self, store: LeaseStore, on_lost: LostCallback,
                 ttl_ms: int = 6000) -> None:
        if ttl_ms < 30:
            raise ValueError(f"lease ttl_ms must be at least 30, not {ttl_ms}")
        self.store = store
        self.on_lost = on_lost
        self.ttl_ms = ttl_ms
        self.leases: dict[str, Lease] = {}
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    @property
    def interval(self) -> float:
        """Seconds between renewals: a third of the ttl."""
        return self.ttl_ms / 3000

    async def acquire(self, table_id: str, floor: int = 0) -> Lease | None:
        """Acquire a table's lease and keep it (``None``: someone holds it)."""
        lease = await self.store.acquire(table_id, self.ttl_ms, floor)
        if lease is not None:
            self.leases[table_id] = lease
        return lease

    async def acquire_many(self, floors: Mapping[str, int]) -> dict[str, Lease]:
        """Acquire and keep the leases of several tables (table id to its floor) in one round
        trip; those won."""
        won = await self.store.acquire_many(floors, self.ttl_ms)
        self.leases.update(won)
        return won

    async def release(self, table_id: str) -> bool:
        """Stop keeping a table's lease and release it (graceful hand-over)."""
        lease = self.leases.pop(table_id, None)
        return lease is not None and await self.store.release(lease)

    def start(self) -> None:
        """Start the renewal task."""
        if self._task is None or self._task.done():
            self._stopping = False
            self._task = asyncio.get_running_loop().create_task(self._run(),
                                                                name="lease-keeper")

    async def stop(self) -> None:
        """Stop renewing (the leases expire unless released). The renewal loop also ends at
        its next turn by itself, should a library turn the cancellation into an error."""
        task, self._task = self._task, None
        if task is not None:
            self._stopping = True
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def renew_now(self) -> None:
        """One renewal round: every kept lease renewed, or reported lost."""
        kept = list(self.leases.values())
        if not kept:
            return
        try:
            async with asyncio.timeout(self.interval):
                renewed: list[Lease | None] = await self.store.renew_many(kept)
        except (RedisError, OSError, TimeoutError) as exc:  # lost only once expired
            task = asyncio.current_task()
            if task is not None and task.cancelling():  # a stop() that came as this error
                raise asyncio.CancelledError from exc
            log.warning("lease renewal failed: %s", exc)
            now = time.monotonic()
            await self._lose([lease for lease in kept if not lease.valid(now)])
            return
        lost: list[Lease] = []
        for old, new in zip(kept, renewed, strict=True):
            if self.leases.get(old.table_id) is not old:
                continue  # released or replaced while renewing
            if new is None:
                lost.append(old)
            else:
                self.leases[old.table_id] = new
        await self._lose(lost)

    async def _lose(self, lost: list[Lease]) -> None:
        for lease in lost:
            if self.leases.get(lease.table_id) is not lease:
                continue  # released or replaced meanwhile: not lost
            del self.leases[lease.table_id]
            result: Any = self.on_lost(lease)
            if asyncio.iscoroutine(result):
                await result

    async def _run(self) -> None:
        while not self._stopping:
            await asyncio.sleep(self.interval)
            try:
                await self.renew_now()
            except Exception:  # a failing callback must not stop the renewals
                log.exception("lease renewal round failed")
