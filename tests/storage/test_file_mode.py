"""The SQLite files hold every live deck: they are created 0600, and an existing database
left readable by others is made private when the server opens it (issue 11, item 9)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from sqlalchemy import text

from ginrummy.storage import migrate, open_engine

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX file modes")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def side_files(db: Path) -> list[Path]:
    return [p for p in (db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm"))
            if p.exists()]


@pytest.fixture
def open_umask() -> object:
    """The usual 022 umask, under which SQLite alone creates 0644 files."""
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def test_a_new_database_and_its_wal_and_shm_files_are_0600(tmp_path: Path,
                                                          open_umask: object) -> None:
    db = tmp_path / "sub" / "game.db"
    engine = open_engine(f"sqlite:///{db}")
    try:
        migrate(engine)
        with engine.begin() as conn:  # a write, and a connection holding the WAL open
            conn.execute(text("CREATE TABLE IF NOT EXISTS probe (x INTEGER)"))
            conn.execute(text("INSERT INTO probe VALUES (1)"))
            files = side_files(db)
            assert {p.name for p in files} >= {"game.db", "game.db-wal", "game.db-shm"}
            assert {p.name: oct(mode(p)) for p in files} == {p.name: "0o600" for p in files}
    finally:
        engine.dispose()


def test_an_existing_world_readable_database_is_made_private(tmp_path: Path,
                                                             open_umask: object) -> None:
    db = tmp_path / "old.db"
    engine = open_engine(str(db))
    migrate(engine)
    engine.dispose()
    for path in side_files(db):
        path.chmod(0o644)  # as the server before the fix left them
    engine = open_engine(str(db))
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
            files = side_files(db)
            assert {p.name: oct(mode(p)) for p in files} == {p.name: "0o600" for p in files}
    finally:
        engine.dispose()
