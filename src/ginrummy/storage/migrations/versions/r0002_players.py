"""Players: accounts and sessions, seats taken by accounts, ratings (and their count by rating
bucket), finished matches with their players' statistics, the chip ledger (wallets,
transfers, entries), table buy-ins, the moderation log and chat reports.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    """Create the players' tables; add ``seats.account_id`` and ``game_tables.buy_in``."""
    op.create_table(
        "accounts",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(24), nullable=False),
        sa.Column("name_key", sa.String(24), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(200), nullable=False),
        sa.Column("role", sa.String(8), nullable=False),
        sa.Column("created_at", WHEN, nullable=False),
        sa.Column("banned_at", WHEN, nullable=True),
        sa.Column("muted_until", WHEN, nullable=True),
        sa.Column("topped_up_on", sa.String(10), nullable=True),
    )
    op.create_index("ix_accounts_banned_at", "accounts", ["banned_at"])
    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("account_id", sa.Integer(),
                  sa.ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
        sa.Column("created_at", WHEN, nullable=False),
        sa.Column("expires_at", WHEN, nullable=False),
    )
    op.create_index("ix_sessions_account_id", "sessions", ["account_id"])
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("account_id", sa.Integer(), nullable=True))
        batch.create_foreign_key("fk_seats_account_id", "accounts", ["account_id"], ["id"])
        batch.create_index("ix_seats_account_id", ["account_id"])
    with op.batch_alter_table("game_tables") as batch:
        batch.add_column(sa.Column("buy_in", sa.Integer(), nullable=True))
    op.create_table(
        "ratings",
        sa.Column("account_id", sa.Integer(),
                  sa.ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("category", sa.String(20), primary_key=True),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("deviation", sa.Float(), nullable=False),
        sa.Column("volatility", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("updated_at", WHEN, nullable=False),
    )
    op.create_index("ix_ratings_board", "ratings", ["category", "rating", "account_id"])
    op.create_table(
        "rating_buckets",
        sa.Column("category", sa.String(20), primary_key=True),
        sa.Column("bucket", sa.Integer(), primary_key=True),
        sa.Column("accounts", sa.Integer(), nullable=False),
    )
    op.create_table(
        "matches",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(16),
                  sa.ForeignKey("game_tables.id", ondelete="CASCADE"), nullable=False),
        sa.Column("first_version", sa.Integer(), nullable=False),
        sa.Column("last_version", sa.Integer(), nullable=False),
        sa.Column("preset", sa.String(20), nullable=False),
        sa.Column("category", sa.String(20), nullable=True),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("ending", sa.String(10), nullable=False),
        sa.Column("finished_at", WHEN, nullable=False),
    )
    op.create_index("ix_matches_table_id", "matches", ["table_id"])
    op.create_index("ix_matches_finished_at", "matches", ["finished_at"])
    op.create_table(
        "match_players",
        sa.Column("match_id", sa.Integer(),
                  sa.ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=True),
        sa.Column("level", sa.String(32), nullable=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("place", sa.Integer(), nullable=False),
        sa.Column("abandoned", sa.Boolean(), nullable=False),
        sa.Column("rating_before", sa.Float(), nullable=True),
        sa.Column("rating_after", sa.Float(), nullable=True),
        *(sa.Column(name, sa.Integer(), nullable=False) for name in (
            "hands", "gins", "knocks", "undercuts", "voids", "caught", "caught_deadwood",
            "points")),
    )
    op.create_index("ix_match_players_account", "match_players", ["account_id", "match_id"])
    op.create_table(
        "wallets",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=True,
                  unique=True),
        sa.Column("table_id", sa.String(16), nullable=True),
        sa.Column("balance", sa.Integer(), nullable=False),
    )
    op.create_index("ix_wallets_table_id", "wallets", ["table_id"])
    op.create_table(
        "transfers",
        sa.Column("key", sa.String(100), primary_key=True),
        sa.Column("kind", sa.String(12), nullable=False),
        sa.Column("table_id", sa.String(16), nullable=True),
        sa.Column("at", WHEN, nullable=False),
    )
    op.create_table(
        "ledger_entries",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("transfer_key", sa.String(100), sa.ForeignKey("transfers.key"),
                  nullable=False),
        sa.Column("wallet_id", sa.String(40), sa.ForeignKey("wallets.id"), nullable=False),
        sa.Column("amount", sa.Integer(), nullable=False),
    )
    op.create_index("ix_ledger_entries_transfer_key", "ledger_entries", ["transfer_key"])
    op.create_index("ix_ledger_entries_wallet_id", "ledger_entries", ["wallet_id"])
    op.create_table(
        "moderation_log",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("at", WHEN, nullable=False),
        sa.Column("actor_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=True),
        sa.Column("action", sa.String(16), nullable=False),
        sa.Column("target_account_id", sa.Integer(), sa.ForeignKey("accounts.id"),
                  nullable=True),
        sa.Column("table_id", sa.String(16), nullable=True),
        sa.Column("detail", sa.Text(), nullable=False),
    )
    op.create_index("ix_moderation_log_at", "moderation_log", ["at"])
    op.create_table(
        "chat_reports",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("at", WHEN, nullable=False),
        sa.Column("reporter_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=True),
        sa.Column("reporter_name", sa.String(40), nullable=False),
        sa.Column("table_id", sa.String(16), nullable=False),
        sa.Column("author_name", sa.String(40), nullable=False),
        sa.Column("author_account_id", sa.Integer(), sa.ForeignKey("accounts.id"),
                  nullable=True),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("handled", sa.Boolean(), nullable=False),
    )
    op.create_index("ix_chat_reports_at", "chat_reports", ["at"])


def downgrade() -> None:
    """Drop them (the players' data is lost)."""
    for name in ("chat_reports", "moderation_log", "ledger_entries", "transfers", "wallets",
                 "match_players", "matches", "rating_buckets", "ratings"):
        op.drop_table(name)
    with op.batch_alter_table("game_tables") as batch:
        batch.drop_column("buy_in")
    with op.batch_alter_table("seats") as batch:
        batch.drop_index("ix_seats_account_id")
        batch.drop_constraint("fk_seats_account_id", type_="foreignkey")
        batch.drop_column("account_id")
    op.drop_table("sessions")
    op.drop_table("accounts")
