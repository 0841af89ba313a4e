"""Persistence of tables, seats and game events (SQLAlchemy 2, Alembic migrations).

SQLite file by default, PostgreSQL by URL (``postgresql://...``, psycopg 3). A table's state
is never stored as such: it is the replay of its events.
"""

from ginrummy.storage.database import (
    Checkpointer,
    StorageError,
    migrate,
    normalise_url,
    open_engine,
)
from ginrummy.storage.repository import (
    Apply,
    InsertEvent,
    InsertTable,
    Repository,
    StoredEvent,
    StoredSeat,
    StoredTable,
    UpdateSeat,
    UpdateTable,
    WriteOp,
    utcnow,
)

__all__ = [
    "Apply",
    "Checkpointer",
    "InsertEvent",
    "InsertTable",
    "Repository",
    "StorageError",
    "StoredEvent",
    "StoredSeat",
    "StoredTable",
    "UpdateSeat",
    "UpdateTable",
    "WriteOp",
    "migrate",
    "normalise_url",
    "open_engine",
    "utcnow",
]
