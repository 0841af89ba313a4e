"""Chat kept with the table: each table's last chat lines (``chat_lines``).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``chat_lines`` (a table's lines by ``seq``; nothing to fill: chat was not
    stored before)."""
    op.create_table(
        "chat_lines",
        sa.Column("table_id", sa.String(16),
                  sa.ForeignKey("game_tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seq", sa.Integer(), primary_key=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=True),
        sa.Column("text", sa.Text(), nullable=False),
    )


def downgrade() -> None:
    """Drop it (the stored chat is lost)."""
    op.drop_table("chat_lines")
