"""Tournaments for people (docs/tournaments.md): ``tournaments``, their registrations
(``tournament_players``), rounds and matches; the ledger's wallets and transfers name the
tournament of a prize pool, a buy-in, a refund or a prize (``tournament_id``).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    """Create the tournament tables; add ``tournament_id`` to wallets and transfers."""
    op.create_table(
        "tournaments",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("format", sa.String(10), nullable=False),
        sa.Column("preset", sa.String(20), nullable=False),
        sa.Column("rules", sa.Text(), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=True),
        sa.Column("min_players", sa.Integer(), nullable=False),
        sa.Column("max_players", sa.Integer(), nullable=False),
        sa.Column("clock_ms", sa.Integer(), nullable=False),
        sa.Column("buy_in", sa.Integer(), nullable=True),
        sa.Column("starts_at", WHEN, nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("state", sa.Text(), nullable=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("created_by", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=True),
        sa.Column("created_at", WHEN, nullable=False),
        sa.Column("updated_at", WHEN, nullable=False),
    )
    op.create_index("ix_tournaments_status_starts", "tournaments", ["status", "starts_at"])
    op.create_table(
        "tournament_players",
        sa.Column("tournament_id", sa.String(16),
                  sa.ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("entries", sa.Integer(), nullable=False),
        sa.Column("registered_at", WHEN, nullable=False),
        sa.Column("rating", sa.Float(), nullable=True),
        sa.Column("place", sa.Integer(), nullable=True),
        sa.Column("prize", sa.Integer(), nullable=True),
    )
    op.create_index("ix_tournament_players_account_id", "tournament_players", ["account_id"])
    op.create_table(
        "tournament_rounds",
        sa.Column("tournament_id", sa.String(16),
                  sa.ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("round", sa.Integer(), primary_key=True),
        sa.Column("started_at", WHEN, nullable=False),
        sa.Column("ended_at", WHEN, nullable=True),
    )
    op.create_table(
        "tournament_matches",
        sa.Column("tournament_id", sa.String(16), primary_key=True),
        sa.Column("round", sa.Integer(), primary_key=True),
        sa.Column("slot", sa.Integer(), primary_key=True),
        sa.Column("players", sa.Text(), nullable=False),
        sa.Column("table_id", sa.String(16), nullable=True, unique=True),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("winner", sa.Integer(), nullable=True),
        sa.Column("result", sa.Text(), nullable=True),
        sa.Column("updated_at", WHEN, nullable=False),
        sa.ForeignKeyConstraint(["tournament_id", "round"],
                                ["tournament_rounds.tournament_id", "tournament_rounds.round"],
                                ondelete="CASCADE"),
    )
    with op.batch_alter_table("wallets") as batch:
        batch.add_column(sa.Column("tournament_id", sa.String(16), nullable=True))
        batch.create_index("ix_wallets_tournament_id", ["tournament_id"])
    with op.batch_alter_table("transfers") as batch:
        batch.add_column(sa.Column("tournament_id", sa.String(16), nullable=True))
        batch.create_index("ix_transfers_tournament_id", ["tournament_id"])


def downgrade() -> None:
    """Drop them (only safe with no tournament pool holding chips: ``ginrummy ledger
    check`` would then find pools of no table)."""
    with op.batch_alter_table("transfers") as batch:
        batch.drop_index("ix_transfers_tournament_id")
        batch.drop_column("tournament_id")
    with op.batch_alter_table("wallets") as batch:
        batch.drop_index("ix_wallets_tournament_id")
        batch.drop_column("tournament_id")
    op.drop_table("tournament_matches")
    op.drop_table("tournament_rounds")
    op.drop_index("ix_tournament_players_account_id", "tournament_players")
    op.drop_table("tournament_players")
    op.drop_index("ix_tournaments_status_starts", "tournaments")
    op.drop_table("tournaments")
