"""Fair deals, scheme 2: each hand's fair scheme (``hand_seeds.scheme``, docs/fair.md).

Rows stored before are scheme 1 (their server-made seeds random, their first dealer drawn by
the server): they keep being verified by the scheme 1 rules, and say so.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``scheme`` (1 for every row already there)."""
    with op.batch_alter_table("hand_seeds") as batch:
        batch.add_column(sa.Column("scheme", sa.Integer(), nullable=False,
                                   server_default="1"))


def downgrade() -> None:
    """Drop it (scheme 2 rows then read as scheme 1: their verification reports weaknesses
    they do not have, never the reverse)."""
    with op.batch_alter_table("hand_seeds") as batch:
        batch.drop_column("scheme")
