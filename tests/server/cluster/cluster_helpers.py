"""Helpers of the cluster tests: the machine's Redis, a client and an event loop per test."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from typing import Any

from redis.asyncio import Redis

REDIS_URL = os.environ.get("GINRUMMY_TEST_REDIS", "redis://127.0.0.1:6379/0")


def redis_client() -> Redis:
    """A new client of the test Redis."""
    return Redis.from_url(REDIS_URL)


def with_redis(test: Callable[[Redis], Awaitable[Any]]) -> Any:
    """Run ``test(client)`` in a new event loop with a new Redis client, closed after."""

    async def run() -> Any:
        client = redis_client()
        try:
            return await test(client)
        finally:
            await client.aclose()

    return asyncio.run(run())


def lease_holders(prefix: str, ids: list[str]) -> dict[str, str]:
    """The owners of the tables' leases now (a reader of the cluster ``prefix``)."""
    from ginrummy.server.cluster import LeaseStore

    async def read(redis: Redis) -> dict[str, str]:
        store = LeaseStore(redis, "reader@test:1", prefix)
        return {t: h.owner for t, h in (await store.holders(ids)).items()}

    result: dict[str, str] = with_redis(read)
    return result
