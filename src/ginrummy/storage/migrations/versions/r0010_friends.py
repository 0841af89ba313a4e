"""Friends (docs/friends.md): ``friendships`` (one row per pair of accounts, pending or
accepted) and ``blocks`` (who blocks whom).

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    """Create ``friendships`` and ``blocks``."""
    op.create_table(
        "friendships",
        sa.Column("low_id", sa.Integer(), sa.ForeignKey("accounts.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("high_id", sa.Integer(), sa.ForeignKey("accounts.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("requester_id", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("created_at", WHEN, nullable=False),
        sa.Column("accepted_at", WHEN, nullable=True),
    )
    op.create_index("ix_friendships_high_id", "friendships", ["high_id"])
    op.create_table(
        "blocks",
        sa.Column("blocker_id", sa.Integer(), sa.ForeignKey("accounts.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("blocked_id", sa.Integer(), sa.ForeignKey("accounts.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("created_at", WHEN, nullable=False),
    )
    op.create_index("ix_blocks_blocked_id", "blocks", ["blocked_id"])


def downgrade() -> None:
    """Drop them."""
    op.drop_index("ix_blocks_blocked_id", table_name="blocks")
    op.drop_table("blocks")
    op.drop_index("ix_friendships_high_id", table_name="friendships")
    op.drop_table("friendships")
