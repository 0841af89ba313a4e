"""Fixtures of the cluster tests: the machine's Redis (a key prefix of each test's own, its
keys deleted afterwards) and a migrated PostgreSQL schema; a test that needs a service that
is absent is skipped saying so (CI turns such skips into failures)."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Iterator

import pytest
from cluster_helpers import REDIS_URL, redis_client
from redis.exceptions import ConnectionError as RedisConnectionError
from sqlalchemy import Engine

from ginrummy.storage import migrate, open_engine
from pg_helpers import pg_schema, schema_url


@pytest.fixture
def prefix() -> Iterator[str]:
    """A key prefix of this test's own; its keys are deleted after the test. Skips the test
    when Redis is unreachable."""
    name = f"gtest{secrets.token_hex(4)}"

    async def ping() -> None:
        client = redis_client()
        try:
            await client.ping()
        finally:
            await client.aclose()

    try:
        asyncio.run(ping())
    except (RedisConnectionError, OSError) as exc:
        pytest.skip(f"Redis at {REDIS_URL} is unreachable: {exc}")
    yield name

    async def clean() -> None:
        client = redis_client()
        try:
            keys = [key async for key in client.scan_iter(match=f"{name}:*")]
            if keys:
                await client.delete(*keys)
        finally:
            await client.aclose()

    asyncio.run(clean())


@pytest.fixture
def pg_engine() -> Iterator[Engine]:
    """A migrated, empty PostgreSQL schema of this test's own (skips when PostgreSQL is
    unreachable)."""
    with pg_schema("cluster") as schema:
        engine = open_engine(schema_url(schema))
        migrate(engine)
        yield engine
        engine.dispose()
