"""Table ownership across processes: each table's fencing token (``table_owners``,
docs/cluster.md).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``table_owners`` (empty: a table gets its row when an owner first claims it)."""
    op.create_table(
        "table_owners",
        sa.Column("table_id", sa.String(16),
                  sa.ForeignKey("game_tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("token", sa.BigInteger(), nullable=False),
        sa.Column("owner", sa.String(120), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    """Drop it (the fencing tokens are lost: only safe with every server stopped)."""
    op.drop_table("table_owners")
