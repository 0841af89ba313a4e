"""The machine's PostgreSQL for tests: a fresh schema of its own for each user, dropped
afterwards; the test is skipped, saying why, when the server is unreachable."""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.exc import OperationalError

from ginrummy.storage import migrate, open_engine

PG_URL = os.environ.get("GINRUMMY_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")


@contextlib.contextmanager
def pg_schema(prefix: str) -> Iterator[str]:
    """A new schema named ``<prefix>_<random>`` in the test database (dropped on exit)."""
    try:
        admin = open_engine(PG_URL)
        name = f"{prefix}_{secrets.token_hex(6)}"
        with admin.begin() as conn:
            conn.execute(text(f'CREATE SCHEMA "{name}"'))
    except OperationalError as exc:
        pytest.skip(f"PostgreSQL at {PG_URL} is unreachable: {exc.orig}")
    try:
        yield name
    finally:
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA IF EXISTS "{name}" CASCADE'))
        admin.dispose()


def schema_url(schema: str) -> str:
    """A URL whose connections use ``schema``."""
    return f"{PG_URL}?options=-csearch_path%3D{schema}"


def migrated_engine(request: pytest.FixtureRequest, tmp_path: Path, name: str) -> Engine:
    """A migrated, empty database of the kind ``request.param`` names (``sqlite``: a file
    ``name``.db in ``tmp_path``; ``postgresql``: the module's ``pg_schema_name`` fixture's
    schema, emptied first, so each test starts empty)."""
    if request.param == "sqlite":
        made = open_engine(f"sqlite:///{tmp_path / f'{name}.db'}")
    else:
        schema = request.getfixturevalue("pg_schema_name")
        made = open_engine(PG_URL, connect_args={"options": f"-csearch_path={schema}"})
        with made.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    migrate(made)
    return made
