"""Database engines by URL (SQLite file by default, PostgreSQL by URL) and start-up migrations."""

from __future__ import annotations

import logging
import os
import stat
import threading
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, inspect, text
from sqlalchemy.engine import make_url

MIGRATIONS = Path(__file__).parent / "migrations"

SQLITE_SYNCHRONOUS = ("OFF", "NORMAL", "FULL", "EXTRA")

FILE_MODE = 0o600
"""The mode of a SQLite database and its ``-wal``/``-shm``/``-journal`` files: they hold every
live deck, so only the server's own user may read them."""
SQLITE_SIDE_FILES = ("", "-wal", "-shm", "-journal")


class StorageError(RuntimeError):
    """The database could not be opened or migrated; the message says why."""


def normalise_url(url: str) -> str:
    """Map a plain URL to the driver we ship: ``postgresql://`` uses psycopg 3; a bare path
    becomes a SQLite file."""
    if "://" not in url:
        return f"sqlite:///{url}"
    scheme, _, rest = url.partition("://")
    if scheme in ("postgresql", "postgres", "postgresql+psycopg2"):
        return f"postgresql+psycopg://{rest}"
    return url


def open_engine(url: str, sqlite_synchronous: str = "FULL", pool_size: int = 5,
                background_checkpoint: bool = False, **engine_options: Any) -> Engine:
    """A SQLAlchemy engine for ``url``. SQLite files run in WAL mode with the given
    ``synchronous`` level (FULL: a committed transaction survives a power cut); with
    ``background_checkpoint`` commits never checkpoint the WAL themselves (run a
    :class:`Checkpointer`).

    Statement parameters never reach an error message or a log (``hide_parameters``): they
    hold decks, hands and seat-token hashes, and a failed statement's exception is logged
    (docs/security.md, *Storage errors and logs*)."""
    engine_options["hide_parameters"] = True
    url = normalise_url(url)
    try:
        parsed = make_url(url)
    except Exception as exc:  # sqlalchemy raises ArgumentError for a bad URL
        raise StorageError(f"bad database URL {url!r}: {exc}") from None
    if parsed.get_backend_name() == "sqlite":
        sync = sqlite_synchronous.upper()
        if sync not in SQLITE_SYNCHRONOUS:
            raise StorageError(f"sqlite synchronous must be one of {', '.join(SQLITE_SYNCHRONOUS)}")
        database = parsed.database
        path: Path | None = None
        if database and database != ":memory:" and not database.startswith("file:"):
            path = Path(database).expanduser().resolve()
            path.parent.mkdir(parents=True, exist_ok=True)
            private_sqlite_files(path, create=True)
        engine = create_engine(url, connect_args={"timeout": 30}, **engine_options)

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute(f"PRAGMA synchronous={sync}")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA busy_timeout=30000")
            if background_checkpoint:
                cursor.execute("PRAGMA wal_autocheckpoint=0")
            cursor.close()
            if path is not None:  # SQLite gives the -wal/-shm files the database's mode
                private_sqlite_files(path)

        return engine
    if parsed.get_backend_name() == "postgresql":
        return create_engine(url, pool_size=pool_size, pool_pre_ping=True, **engine_options)
    raise StorageError(f"unsupported database {parsed.get_backend_name()!r}: "
                       "use sqlite:///path or postgresql://...")


def private_sqlite_files(path: Path, create: bool = False) -> None:
    """Make a SQLite database file and its side files readable by their owner only
    (:data:`FILE_MODE`); with ``create``, create a missing database file with that mode before
    SQLite opens it (SQLite then creates its ``-wal`` and ``-shm`` files with the same mode)."""
    if create:
        try:
            os.close(os.open(path, os.O_RDWR | os.O_CREAT, FILE_MODE))
        except OSError as exc:  # SQLite reports what is wrong with the path when it opens it
            logging.getLogger("ginrummy.storage").debug("cannot create %s: %s", path, exc)
    for suffix in SQLITE_SIDE_FILES:
        side = path.with_name(path.name + suffix)
        try:
            mode = stat.S_IMODE(side.stat().st_mode)
            if mode & 0o077:
                side.chmod(FILE_MODE)
        except FileNotFoundError:
            continue
        except OSError as exc:  # another user's file: say so, and carry on
            logging.getLogger("ginrummy.storage").warning("cannot make %s private: %s",
                                                          side, exc)


def migrate(engine: Engine) -> None:
    """Bring the schema up to the latest revision (idempotent)."""
    from alembic import command  # imported here: alembic is only needed at start-up
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


def schema_tables(engine: Engine) -> list[str]:
    """The table names present in the database (for checks)."""
    return sorted(inspect(engine).get_table_names())


class Checkpointer:
    """Copies a SQLite WAL back into the database file from a thread of its own, so that no
    commit (and no acknowledgement waiting on it) ever pays for a checkpoint."""

    def __init__(self, engine: Engine, interval: float = 1.0) -> None:
        self.engine = engine
        self.interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="ginrummy-checkpoint",
                                        daemon=True)

    @staticmethod
    def wanted(engine: Engine) -> bool:
        """True for a SQLite file."""
        return engine.dialect.name == "sqlite" and engine.url.database not in (None, "",
                                                                                ":memory:")

    def start(self) -> None:
        """Start checkpointing every ``interval`` seconds."""
        self._thread.start()

    def stop(self) -> None:
        """Stop, after a last checkpoint that empties the WAL."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(10)
        self.checkpoint("TRUNCATE")

    def checkpoint(self, mode: str = "PASSIVE") -> None:
        """One checkpoint (PASSIVE: never blocks the writer)."""
        try:
            with self.engine.connect() as conn:
                conn.execute(text(f"PRAGMA wal_checkpoint({mode})"))
        except Exception:  # the next round retries; a crash is recovered at start-up
            logging.getLogger("ginrummy.storage").warning("WAL checkpoint failed",
                                                           exc_info=True)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.checkpoint()
