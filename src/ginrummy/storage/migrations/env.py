"""Alembic environment: runs on the connection handed over in ``config.attributes``."""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

from ginrummy.storage.models import Base

config = context.config


def run_migrations_online() -> None:
    """Migrate on the caller's connection (see :func:`ginrummy.storage.database.migrate`)."""
    connection: Connection | None = config.attributes.get("connection")
    if connection is None:
        raise RuntimeError("ginrummy migrations run through ginrummy.storage.migrate(engine)")
    context.configure(connection=connection, target_metadata=Base.metadata,
                      render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


run_migrations_online()
