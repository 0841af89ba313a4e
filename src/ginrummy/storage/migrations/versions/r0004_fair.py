"""Provably fair deals: each hand's seeds (``hand_seeds``, docs/fair.md).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``hand_seeds`` (nothing to fill: hands dealt before had no seeds)."""
    op.create_table(
        "hand_seeds",
        sa.Column("table_id", sa.String(16),
                  sa.ForeignKey("game_tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("version", sa.Integer(), primary_key=True),
        sa.Column("hand", sa.Integer(), nullable=False),
        sa.Column("deal_version", sa.Integer(), nullable=True),
        sa.Column("server_seed", sa.String(64), nullable=False),
        sa.Column("commitment", sa.String(64), nullable=False),
        sa.Column("client_seeds", sa.Text(), nullable=False),
        sa.Column("server_made", sa.Text(), nullable=False),
    )


def downgrade() -> None:
    """Drop it (the seeds are lost: the hands can no longer be verified)."""
    op.drop_table("hand_seeds")
