"""The database schema (SQLAlchemy 2 declarative models).

A table's game is stored as its record: the rules and seats (``game_tables``, ``seats``) and
an ordered list of events (``events``): ``match`` (a match starts), ``deal`` (the deck of a
hand, 52 cards in deal order) and ``action`` (an accepted action in notation, chance
reshuffles included). Replaying the events rebuilds every state. Secrets are stored hashed
(seat tokens, invite codes); decks are stored in clear because the server needs them.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    """The declarative base of every model."""


class TableRow(Base):
    """One game table: its rules, settings, status and current version."""

    __tablename__ = "game_tables"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    preset: Mapped[str] = mapped_column(String(20))
    rules: Mapped[str] = mapped_column(Text)
    """``Ruleset.to_dict()`` as JSON text."""
    players: Mapped[int] = mapped_column(Integer)
    public: Mapped[bool] = mapped_column(Boolean)
    invite_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    clock_ms: Mapped[int] = mapped_column(Integer, default=0)
    pool_chips: Mapped[int | None] = mapped_column(Integer, nullable=True)
    status: Mapped[str] = mapped_column(String(10))
    """``waiting``, ``playing`` or ``over``."""
    version: Mapped[int] = mapped_column(Integer, default=0)
    clock_seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    clock_deadline: Mapped[float | None] = mapped_column(Float, nullable=True)
    """When the running turn clock expires (Unix time, seconds)."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    __table_args__ = (Index("ix_game_tables_status", "status"),)


class SeatRow(Base):
    """One seat of a table: empty, a guest (token hash) or a computer player."""

    __tablename__ = "seats"

    table_id: Mapped[str] = mapped_column(
        String(16), ForeignKey("game_tables.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))
    """``empty``, ``human`` or ``bot``."""
    name: Mapped[str | None] = mapped_column(String(40), nullable=True)
    level: Mapped[str | None] = mapped_column(String(32), nullable=True)
    token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    rematch: Mapped[bool] = mapped_column(Boolean, default=False)


class EventRow(Base):
    """One committed event of a table, numbered by the table version it produced."""

    __tablename__ = "events"

    table_id: Mapped[str] = mapped_column(
        String(16), ForeignKey("game_tables.id", ondelete="CASCADE"), primary_key=True)
    version: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))
    """``match``, ``deal`` or ``action``."""
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    payload: Mapped[str] = mapped_column(Text)
    source: Mapped[str | None] = mapped_column(String(8), nullable=True)
    """Who chose an action: ``human``, ``bot``, ``clock`` (timeout), ``away``, ``chance``."""
    client_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
