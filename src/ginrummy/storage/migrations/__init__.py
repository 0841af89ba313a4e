"""Alembic migrations of the ginrummy database, applied at start-up by :func:`migrate`."""
