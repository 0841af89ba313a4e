"""Cluster duties (docs/cluster.md): ``duty_owners``, the fencing token of the process that
holds a duty's lease (the tournament driver), as ``table_owners`` is a table's.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``duty_owners`` (empty: a duty gets its row when a process first takes it)."""
    op.create_table(
        "duty_owners",
        sa.Column("name", sa.String(40), primary_key=True),
        sa.Column("token", sa.BigInteger(), nullable=False),
        sa.Column("owner", sa.String(120), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    """Drop it (only safe with every server stopped)."""
    op.drop_table("duty_owners")
