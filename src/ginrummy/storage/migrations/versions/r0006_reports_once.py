"""One report per reporter per chat line (issue 25, 11): ``chat_reports.line_seq`` and
``reporter_key``, unique with the table.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the two columns (empty for the reports made before: those never clash) and the
    unique constraint (batch mode: SQLite rebuilds the table)."""
    with op.batch_alter_table("chat_reports") as batch:
        batch.add_column(sa.Column("line_seq", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("reporter_key", sa.String(40), nullable=True))
        batch.create_unique_constraint("uq_chat_reports_once",
                                       ["table_id", "line_seq", "reporter_key"])


def downgrade() -> None:
    """Drop them."""
    with op.batch_alter_table("chat_reports") as batch:
        batch.drop_constraint("uq_chat_reports_once", type_="unique")
        batch.drop_column("reporter_key")
        batch.drop_column("line_seq")
