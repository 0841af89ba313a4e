"""Fixtures of the server tests: a live server (uvicorn in a thread) on a temporary SQLite."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from server_helpers import LiveServer, live_server

from pg_helpers import pg_schema, schema_url


def pytest_configure(config: pytest.Config) -> None:
    """Starlette's TestClient warns that it prefers httpx2; httpx is what we ship."""
    config.addinivalue_line("filterwarnings", "ignore:.*httpx2.*")


@pytest.fixture
def make_server(tmp_path: Path) -> Iterator[Callable[..., LiveServer]]:
    """Start a server with some settings changed (stopped after the test)."""
    with ExitStack() as stack:
        count = [0]

        def start(**settings: Any) -> LiveServer:
            count[0] += 1
            folder = tmp_path / f"server{count[0]}"
            folder.mkdir()
            return stack.enter_context(live_server(folder, **settings))

        yield start


@pytest.fixture
def server(make_server: Callable[..., LiveServer]) -> LiveServer:
    """A server with the test defaults (no bot delay, no pause between hands)."""
    return make_server()


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A PostgreSQL URL whose connections use a fresh schema (dropped after the test)."""
    with pg_schema("ginrummy_srv") as schema:
        yield schema_url(schema)
