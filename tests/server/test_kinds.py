"""Seat kinds, statuses, event kinds and action sources are ``StrEnum``s: rows written as plain
text (before the enums existed) read back as members, and members are stored as plain text."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ginrummy.rules import Ruleset
from ginrummy.server.core.kinds import EventKind, SeatKind, Source, TableStatus
from ginrummy.server.play.table import GameTable, Seat, table_rules
from ginrummy.storage import InsertEvent, InsertTable, Repository, migrate, open_engine


def test_members_are_the_stored_and_sent_strings() -> None:
    assert [k.value for k in SeatKind] == ["empty", "human", "bot"]
    assert [s.value for s in TableStatus] == ["waiting", "playing", "over", "stuck",
                                              "abandoned", "closed"]
    assert [e.value for e in EventKind] == ["match", "deal", "action", "resign"]
    assert [s.value for s in Source] == ["human", "bot", "clock", "away", "chance"]
    assert SeatKind.BOT == "bot" and f"{Source.CLOCK}" == "clock"
    assert Seat(0, "human").kind is SeatKind.HUMAN  # a stored row's text becomes a member


def test_enum_values_are_stored_as_text_and_old_rows_replay(tmp_path: Path) -> None:
    path = tmp_path / "k.db"
    engine = open_engine(f"sqlite:///{path}")
    migrate(engine)
    repo = Repository(engine)
    seats = [Seat(0, SeatKind.HUMAN, "Ann", None, "h"), Seat(1, SeatKind.BOT, "c", "simple")]
    table = GameTable("k1", "K", "classic", table_rules(Ruleset.preset("classic")), True, None,
                      0, None, seats)
    repo.write([InsertTable(table.to_stored())])
    repo.write([InsertEvent("k1", table.match_event())])
    table.apply_event(repo.load_table("k1").events[0])  # type: ignore[union-attr]
    repo.write([InsertEvent("k1", table.deal_event())])
    engine.dispose()
    with sqlite3.connect(path) as db:
        kinds = db.execute("SELECT kind, typeof(kind) FROM seats ORDER BY seat").fetchall()
        events = db.execute("SELECT kind, typeof(kind) FROM events ORDER BY version").fetchall()
        status = db.execute("SELECT status FROM game_tables").fetchone()
        # a row as an older server wrote it: plain text everywhere
        db.execute("UPDATE game_tables SET status = 'playing', version = 2")
    assert kinds == [("human", "text"), ("bot", "text")]
    assert events == [("match", "text"), ("deal", "text")]
    assert status == ("waiting",)
    engine = open_engine(f"sqlite:///{path}")
    stored = Repository(engine).load_table("k1")
    engine.dispose()
    assert stored is not None
    restored = GameTable.from_stored(stored)
    assert [s.kind for s in restored.seats] == [SeatKind.HUMAN, SeatKind.BOT]
    assert all(type(s.kind) is SeatKind for s in restored.seats)
    assert restored.status is TableStatus.PLAYING and restored.running_hand() is not None
