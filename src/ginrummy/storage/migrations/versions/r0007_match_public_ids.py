"""Match ids that cannot be guessed (issue 25, 7): ``matches.public_id``, random, unique;
the matches stored before get theirs here.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-06
"""

from __future__ import annotations

import secrets

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def _public_id() -> str:
    while True:  # as ginrummy.storage.players.new_public_id: never all digits
        made = secrets.token_urlsafe(12)
        if not made.isdigit():
            return made


def upgrade() -> None:
    """Add the column, give every stored match its id, then the unique index."""
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("public_id", sa.String(24), nullable=True))
    matches = sa.table("matches", sa.column("id", sa.Integer),
                       sa.column("public_id", sa.String))
    bind = op.get_bind()
    given = [{"match_id": row.id, "made": _public_id()}
             for row in bind.execute(sa.select(matches.c.id))]
    if given:  # one executemany, not a round trip per match
        bind.execute(sa.update(matches).where(matches.c.id == sa.bindparam("match_id"))
                     .values(public_id=sa.bindparam("made")), given)
    op.create_index("ix_matches_public_id", "matches", ["public_id"], unique=True)


def downgrade() -> None:
    """Drop them (links by public id stop working)."""
    op.drop_index("ix_matches_public_id", table_name="matches")
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("public_id")
