"""Helpers of the players' tests: a migrated database, accounts, tables whose match was
played in memory (stored as the server stores them), and the match-end hook run on them."""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path

from sqlalchemy import Engine

from ginrummy.actions import Discard, DrawDiscard, Pass
from ginrummy.bots import make_bot
from ginrummy.cards import card_name
from ginrummy.gameloop import play_match
from ginrummy.match import Match
from ginrummy.rules import Ruleset
from ginrummy.server.core.auth import secret_hash
from ginrummy.server.core.kinds import EventKind, SeatKind, Source
from ginrummy.server.play.settlement import Ending, MatchEnd
from ginrummy.server.play.table import GameTable
from ginrummy.server.players.matchrecord import match_end_writes
from ginrummy.server.players.names import name_key
from ginrummy.storage import (
    InsertEvent,
    InsertTable,
    Repository,
    StoredEvent,
    StoredSeat,
    StoredTable,
    WriteOp,
    migrate,
    open_engine,
)
from ginrummy.storage.accounts import AccountStore

EXAMPLE_DECK = ("2s Kd 8s Qs Ts 9c Ah 9s Qc Ad Kh Tc 5d 6h 9h 9d 7c Ks Qd Th 5s 8c 3c 2c Jh "
                "As Qh 5c Ac 4h 3s 8h 4c Js 2d 5h 6c Jc 3h 6s 8d Jd 7h 6d 7d Kc 7s 4s Td 3d "
                "4d 2h")
EXAMPLE_ACTIONS = ("take", "discard Kh", "take", "discard Qs", "take", "discard Ts", "take",
                   "knock 6h [9s 9d 9c] [Ts Th Tc] [Ks Kh Kd]", "layoff [Qs Qd Qc] 9h@1")
"""The match of docs/records.md (classic to 25, seat 1 deals and knocks, seat 0 keeps 28)."""


def database(folder: Path) -> Engine:
    """A migrated SQLite database in ``folder``."""
    engine = open_engine(f"sqlite:///{folder / 'players.db'}")
    migrate(engine)
    return engine


def migrated(db: str) -> Engine:
    """An engine on the database at URL ``db``, migrated (a test server's, say)."""
    engine = open_engine(db)
    migrate(engine)
    return engine


def log_in(engine: Engine, account_id: int) -> str:
    """A new session of the account, valid for an hour: its cookie's value."""
    token = secrets.token_urlsafe(32)
    AccountStore(engine).add_session(secret_hash(token), account_id, timedelta(hours=1))
    return token


def add_account(engine: Engine, name: str) -> int:
    """A new account's id."""
    return AccountStore(engine).create(name, name_key(name), "not-a-real-hash").id


table_events: dict[str, list[StoredEvent]] = {}
"""The events of each table made here, by id."""

Sitter = int | str | None
"""An account id, a computer level, or ``None`` for a guest."""


def stored_seats(sitters: Sequence[Sitter], names: Sequence[str] | None = None
                 ) -> list[StoredSeat]:
    """Seats for some sitters (an account id, a computer level or ``None``: a guest)."""
    seats = []
    for i, who in enumerate(sitters):
        name = names[i] if names else f"P{i}"
        if isinstance(who, str):
            seats.append(StoredSeat(i, SeatKind.BOT, who.capitalize(), who))
        else:
            seats.append(StoredSeat(i, SeatKind.HUMAN, name, None, "0" * 64, False, who))
    return seats


def events_of(match: Match) -> list[StoredEvent]:
    """A match played in memory as the events a table stores (from version 1)."""
    events = [StoredEvent(1, EventKind.MATCH, json.dumps({"first_dealer": match.first_dealer}))]
    for hand in match.hands:
        events.append(StoredEvent(len(events) + 1, EventKind.DEAL,
                                  " ".join(_card_names(hand.deck))))
        for (seat, _), text in zip(hand.log, hand.action_log_text(), strict=True):
            source = Source.CHANCE if seat < 0 else Source.BOT
            events.append(StoredEvent(len(events) + 1, EventKind.ACTION, text, seat, source))
    return events


def _card_names(cards: Sequence[int]) -> list[str]:
    return [card_name(c) for c in cards]


def example_events() -> list[StoredEvent]:
    """The events of the docs/records.md match."""
    events = [StoredEvent(1, EventKind.MATCH, json.dumps({"first_dealer": 1})),
              StoredEvent(2, EventKind.DEAL, EXAMPLE_DECK)]
    seat = 0
    for text in EXAMPLE_ACTIONS:
        events.append(StoredEvent(len(events) + 1, EventKind.ACTION, text, seat, Source.BOT))
        if text.startswith(("discard", "knock")):
            seat = 1 - seat
        elif text.startswith("layoff"):
            seat = 0
    return events


def table_with(table_id: str, rules: Ruleset, preset: str, sitters: Sequence[Sitter],
               events: Sequence[StoredEvent], names: Sequence[str] | None = None,
               pool_chips: int | None = None) -> GameTable:
    """A table replayed from its events (kept in :data:`table_events` for :func:`store`)."""
    table_events[table_id] = list(events)
    stored = StoredTable(id=table_id, name=table_id, preset=preset, rules=rules.to_dict(),
                         players=rules.players, public=True, invite_hash=None, clock_ms=0,
                         pool_chips=pool_chips, status="waiting", version=len(events),
                         seats=stored_seats(sitters, names), events=list(events))
    return GameTable.from_stored(stored)


def example_table(table_id: str, sitters: Sequence[Sitter],
                  names: Sequence[str] | None = None) -> GameTable:
    """The docs/records.md match at a classic table (seat 1 wins 247 to 0)."""
    rules = Ruleset.preset("classic", target=25)
    return table_with(table_id, rules, "classic", sitters, example_events(), names)


def bot_table(table_id: str, preset: str, sitters: Sequence[Sitter], seed: int,
              names: Sequence[str] | None = None, **options: object) -> GameTable:
    """A table whose whole match two ``simple`` bots played (seeded)."""
    rules = Ruleset.preset(preset, **options)  # type: ignore[arg-type]
    match = Match(rules, seed=seed, pool_cents=100 if preset == "arena" else None)
    play_match(rules, [make_bot("simple", seed * 10 + i) for i in range(rules.players)],
               match=match)
    return table_with(table_id, rules, preset, sitters, events_of(match), names,
                      pool_chips=100 if preset == "arena" else None)


def passing_table(table_id: str, sitters: Sequence[Sitter], decisions: int,
                  names: Sequence[str] | None = None) -> GameTable:
    """A classic table whose first hand had ``decisions`` decisions of its two seats taking
    each other's discards (what the decision cap stops; store it as ``stuck``)."""
    rules = Ruleset.preset("classic")
    match = Match(rules, seed=1)
    match.start_hand()
    hand = match.hand
    for _ in range(decisions):
        legal = hand.legal_actions()
        taken = [a for a in legal if isinstance(a, DrawDiscard | Discard | Pass)]
        match.apply(min(taken, key=lambda a: not isinstance(a, DrawDiscard)), hand.to_move)
    assert not hand.over
    return table_with(table_id, rules, "classic", sitters, events_of(match), names)


def store(engine: Engine, table: GameTable, ending: Ending = Ending.OVER,
          absent: frozenset[int] = frozenset(), extra: Sequence[WriteOp] = ()) -> bool:
    """Store a table with its events and the match-end hook's writes (then ``extra``) in one
    transaction, as the server does; True when the hook stored anything."""
    events = table_events[table.id]
    writes = match_end_writes(MatchEnd(table, ending, absent))
    Repository(engine).write([InsertTable(table.to_stored()),
                              *(InsertEvent(table.id, e) for e in events), *writes, *extra])
    return bool(writes)
