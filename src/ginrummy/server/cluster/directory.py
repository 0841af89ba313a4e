"""Which process has which table, across processes (docs/cluster.md).

Who *owns* a table is its lease (:meth:`LeaseStore.holder`, :meth:`LeaseStore.holders`).
What the lobby lists is published by each process for its own tables: the hash
``ginrummy:lobby:<process>`` (table id to its lobby entry and the owner's lease token) with a
time to live, renewed with every publication, and the set ``ginrummy:lobby:processes`` that
names the hashes. A process that dies stops publishing and its hash expires; during a
takeover both processes may list a table, and the entry with the larger token wins.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson
from redis.asyncio import Redis

from ginrummy.server.cluster.lease import PREFIX

_PRUNE = """
for i = 2, #ARGV do
  if redis.call('EXISTS', ARGV[1] .. ARGV[i]) == 0 then redis.call('SREM', KEYS[1], ARGV[i]) end
end
return 0
"""
"""Drop from the set the processes whose entries expired (checked inside Redis)."""


@dataclass(frozen=True)
class Listed:
    """A table as the lobby lists it, with who published it."""

    table_id: str
    entry: dict[str, Any]
    process: str
    token: int


class LobbyBoard:
    """A process's lobby entries in Redis, and the listing of every live process's."""

    def __init__(self, redis: Redis, process: str, ttl_ms: int = 10_000,
                 prefix: str = PREFIX) -> None:
        if ttl_ms <= 0:
            raise ValueError(f"lobby ttl_ms must be positive, not {ttl_ms}")
        self.redis = redis
        self.process = process
        self.ttl_ms = ttl_ms
        self.prefix = prefix
        self._prune = redis.register_script(_PRUNE)

    @property
    def processes_key(self) -> str:
        """The set naming every publishing process."""
        return f"{self.prefix}:lobby:processes"

    def entries_key(self, process: str) -> str:
        """A process's hash of entries."""
        return f"{self.prefix}:lobby:{process}"

    async def publish(self, entries: Mapping[str, tuple[int, Mapping[str, Any]]]) -> None:
        """Replace this process's entries (table id to its lease token and lobby entry) in
        one transaction, and keep them ``ttl_ms`` longer."""
        key = self.entries_key(self.process)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.delete(key)
            if entries:
                pipe.hset(key, mapping={
                    table_id: orjson.dumps({"k": token, "e": dict(entry)})
                    for table_id, (token, entry) in entries.items()})
                pipe.pexpire(key, self.ttl_ms)
                pipe.sadd(self.processes_key, self.process)
            else:
                pipe.srem(self.processes_key, self.process)
            await pipe.execute()

    async def withdraw(self) -> None:
        """Remove this process's entries (graceful shutdown)."""
        await self.publish({})

    async def listing(self) -> dict[str, Listed]:
        """Every live process's tables by id (the larger token where two list one); the
        processes whose entries expired are dropped from the set."""
        processes = sorted(p.decode() if isinstance(p, bytes) else p
                           for p in await self.redis.smembers(self.processes_key))
        if not processes:
            return {}
        async with self.redis.pipeline(transaction=False) as pipe:
            for process in processes:
                pipe.hgetall(self.entries_key(process))
            tables = await pipe.execute()
        found: dict[str, Listed] = {}
        gone = []
        for process, entries in zip(processes, tables, strict=True):
            if not entries:
                gone.append(process)
                continue
            for raw_id, raw in entries.items():
                table_id = raw_id.decode() if isinstance(raw_id, bytes) else raw_id
                data = orjson.loads(raw)
                listed = Listed(table_id, data["e"], process, int(data["k"]))
                known = found.get(table_id)
                if known is None or listed.token > known.token:
                    found[table_id] = listed
        if gone:  # only those still without entries (one may have published meanwhile)
            await self._prune(keys=[self.processes_key],
                              args=[self.entries_key(""), *gone])
        return found
