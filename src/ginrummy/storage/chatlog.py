"""Table chat kept in the database (``chat_lines``): each table's last :data:`KEEP` lines.

A line is written by :func:`add_line`, an :class:`~ginrummy.storage.Apply` operation for the
group committer, which also deletes the table's lines that fell out of the last
:data:`KEEP`; :func:`load_lines` reads a table's lines back (in a worker thread, never on
the event loop). Lines are numbered per table by ``seq``, which only grows: the number a
client sees in a ``chat`` message (docs/protocol.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine, Table, delete, func, insert, select
from sqlalchemy.engine import Connection

from ginrummy.storage.models import ChatLineRow
from ginrummy.storage.repository import Apply, as_utc

CHAT_LINES: Table = ChatLineRow.__table__  # type: ignore[assignment]

KEEP = 100
"""Lines kept per table (older ones are deleted as new ones are written)."""


@dataclass(frozen=True)
class StoredChatLine:
    """A chat line as stored: its number at the table, when, who (seat, name as shown,
    account) and what."""

    seq: int
    at: datetime
    seat: int | None
    name: str
    account_id: int | None
    text: str


def add_line(table_id: str, line: StoredChatLine, keep: int = KEEP) -> Apply:
    """The write of one line, which also drops the table's lines older than the last
    ``keep`` (those numbered ``line.seq - keep`` or less)."""
    if keep < 1:
        raise ValueError(f"keep must be at least 1, not {keep}")
    values = {"table_id": table_id, "seq": line.seq, "at": line.at, "seat": line.seat,
              "name": line.name, "account_id": line.account_id, "text": line.text}

    def run(conn: Connection) -> None:
        conn.execute(insert(CHAT_LINES).values(values))
        conn.execute(delete(CHAT_LINES).where(CHAT_LINES.c.table_id == table_id,
                                              CHAT_LINES.c.seq <= line.seq - keep))
    return Apply(run)


def load_lines(engine: Engine, table_id: str, keep: int = KEEP) -> list[StoredChatLine]:
    """A table's last ``keep`` lines, oldest first."""
    query = (select(CHAT_LINES).where(CHAT_LINES.c.table_id == table_id)
             .order_by(CHAT_LINES.c.seq.desc()).limit(keep))
    with engine.connect() as conn:
        rows = conn.execute(query).mappings().all()
    return [StoredChatLine(r["seq"], as_utc(r["at"]), r["seat"], r["name"], r["account_id"],
                           r["text"]) for r in reversed(rows)]


def count_lines(engine: Engine, table_id: str) -> int:
    """How many lines of a table are stored (for checks)."""
    with engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(CHAT_LINES)
                                .where(CHAT_LINES.c.table_id == table_id)).scalar_one())
