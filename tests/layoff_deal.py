"""A chosen deal that reaches the layoff step at once, for the layoff tests (server and
browser): a classic table where seat 1 (the computer) knocks on its first turn and seat 0 (a
guest whose token the test knows) must lay off.

Seat 1 knocks with [7h 8h 9h] [4s 4d 4c] [Ks Kd Kc], keeping 2c. Seat 0 holds Qs Qd Qh Th
Jh Kh 9c 2d 3d 5c: its best melds, [Th Jh Qh Kh], leave 39. Th then Jh fit the hearts run's
upper end (Jh only after Th), Kh is the kings' fourth card; 9c 2d 3d 5c fit nothing. The best
defence melds the queens, lays off Th, Jh and Kh and keeps 19.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ginrummy.cards import CARD_NAMES
from ginrummy.engine import Hand
from ginrummy.rules import Ruleset
from ginrummy.server.core.auth import secret_hash
from ginrummy.server.core.kinds import EventKind, SeatKind, Source, TableStatus
from ginrummy.storage import (
    InsertEvent,
    InsertTable,
    Repository,
    StoredEvent,
    StoredSeat,
    StoredTable,
    migrate,
    open_engine,
)

DEFENDER = ["Qs", "Qd", "Qh", "Th", "Jh", "Kh", "9c", "2d", "3d", "5c"]
KNOCKER = ["7h", "8h", "4s", "4d", "4c", "Ks", "Kd", "Kc", "2c", "Jc"]
UPCARD = "6s"
STOCK_TOP = ["6d", "9h"]
"""Seat 0 draws 6d and throws it back; seat 1 draws 9h and knocks, discarding Jc."""
KNOCK = "knock Jc [7h 8h 9h] [4s 4d 4c] [Ks Kd Kc]"
ACTIONS = [(0, "stock"), (0, "discard 6d"), (1, "stock"), (1, KNOCK)]
KNOCKER_MELDS = [["7h", "8h", "9h"], ["4s", "4d", "4c"], ["Ks", "Kd", "Kc"]]
FITTING = {"Th", "Kh"}
"""The cards that fit a meld before anything is laid off (Jh fits only after Th)."""
DEADWOOD_BEFORE = 39
DEADWOOD_AFTER = 19
DEALER = 1


KNOCK_HAND = ["5h", "6h", "7h", "8h", "8d", "8c", "8s", "Ad", "2c", "4d"]
"""The knock deal: seat 0 holds these, draws 3c and may knock discarding 4d, 3c, 2c or Ad
(deadwood 6 to 9), each with the 8h in the run or in the set of eights."""
KNOCK_OTHER = ["Ks", "Qd", "Jc", "9s", "7c", "5s", "3h", "Th", "6c", "2s"]
KNOCK_UPCARD = "Kh"
KNOCK_DRAW = "3c"


def rules() -> Ruleset:
    return Ruleset.preset("classic")


def deck(seat0: list[str] = DEFENDER, seat1: list[str] = KNOCKER, upcard: str = UPCARD,
         stock_top: list[str] = STOCK_TOP) -> list[int]:
    """The 52 cards in dealing order: one at a time from the dealer's left (seat 0 first),
    then the upcard, then the stock from its top."""
    index = {name: i for i, name in enumerate(CARD_NAMES)}
    named = [card for pair in zip(seat0, seat1, strict=True) for card in pair]
    named += [upcard, *stock_top]
    rest = [name for name in CARD_NAMES if name not in named]
    return [index[name] for name in named + rest]


def knock_deck() -> list[int]:
    """The knock deal's cards (seat 0 draws :data:`KNOCK_DRAW` first)."""
    return deck(KNOCK_HAND, KNOCK_OTHER, KNOCK_UPCARD, [KNOCK_DRAW])


def layoff_hand() -> Hand:
    """The hand at seat 0's layoff step."""
    hand = Hand(rules(), DEALER, deck())
    for seat, action in ACTIONS:
        hand.apply(action, seat)
    return hand


def stored_table(table_id: str, token: str, knock: bool = False) -> StoredTable:
    """The table as the server stores it: seat 0 a guest holding ``token``, seat 1 the
    computer (``simple``), the match at seat 0's layoff step (``knock``: the knock deal, seat 0
    about to discard or knock)."""
    cards = knock_deck() if knock else deck()
    events = [StoredEvent(1, EventKind.MATCH, json.dumps({"first_dealer": DEALER})),
              StoredEvent(2, EventKind.DEAL, " ".join(CARD_NAMES[c] for c in cards))]
    for seat, action in [(0, "stock")] if knock else ACTIONS:
        source = Source.HUMAN if seat == 0 else Source.BOT
        events.append(StoredEvent(len(events) + 1, EventKind.ACTION, action, seat, source))
    seats = [StoredSeat(0, SeatKind.HUMAN, "Ann", None, secret_hash(token)),
             StoredSeat(1, SeatKind.BOT, "Simple", "simple")]
    return StoredTable(id=table_id, name="Layoffs", preset="classic", rules=rules().to_dict(),
                       players=2, public=True, invite_hash=None, clock_ms=0, pool_chips=None,
                       status=TableStatus.PLAYING, version=len(events), seats=seats,
                       events=events)


# --------------------------------------------------------------------------- arena deals
ARENA_KNOCK = "knock Jc [7h 8h 9h] [Ks Kd Kc]"
"""The arena knock (4 players, 7 cards): the knocker keeps 2c and discards the Jc it drew."""
ARENA_DEALS: dict[str, dict[str, Any]] = {
    # seat 3, the dealer, knocks on its first turn; seat 0 defends first: it lays off 6h and
    # Th on the run and Kh on the kings (no chain in arena), and keeps Jh Qs Qd 5c
    "first": {"dealer": 3, "knocker": 3,
              "hands": [["Th", "Jh", "Kh", "6h", "Qs", "Qd", "5c"],
                        ["2s", "3s", "4s", "5d", "9c", "9d", "As"],
                        ["Ah", "Ad", "4c", "4d", "6c", "6d", "8c"],
                        ["7h", "8h", "9h", "Ks", "Kd", "Kc", "2c"]],
              "upcard": "5s", "stock": ["3d", "Tc", "Td", "Jc"],
              "actions": [(0, "stock"), (0, "discard 3d"), (1, "stock"), (1, "discard Tc"),
                          (2, "stock"), (2, "discard Td"), (3, "stock"), (3, ARENA_KNOCK)]},
    # the same knock; seat 0 defends first with two melds of its own and 6h to lay off
    "melds": {"dealer": 3, "knocker": 3,
              "hands": [["Qs", "Qd", "Qc", "2s", "3s", "4s", "6h"],
                        ["5s", "6s", "5d", "9c", "9d", "As", "Jd"],
                        ["Ah", "Ad", "4c", "4d", "6c", "6d", "8c"],
                        ["7h", "8h", "9h", "Ks", "Kd", "Kc", "2c"]],
              "upcard": "Js", "stock": ["3d", "Tc", "Td", "Jc"],
              "actions": [(0, "stock"), (0, "discard 3d"), (1, "stock"), (1, "discard Tc"),
                          (2, "stock"), (2, "discard Td"), (3, "stock"), (3, ARENA_KNOCK)]},
    # seat 1 knocks on the hand's first turn; seats 2 and 3 (the computer) lay off 6h and Th
    # first, then seat 0 defends last: it melds the queens and lays off Kh
    "last": {"dealer": 0, "knocker": 1,
             "hands": [["Kh", "Qs", "Qd", "Qh", "3c", "4c", "5d"],
                       ["7h", "8h", "9h", "Ks", "Kd", "Kc", "2c"],
                       ["Th", "2s", "3s", "Ad", "6c", "8c", "9d"],
                       ["6h", "4s", "5s", "Ah", "7c", "Td", "9c"]],
             "upcard": "2d", "stock": ["Jc"],
             "actions": [(1, "stock"), (1, ARENA_KNOCK)]},
}
ARENA_DEALS["kept"] = {**ARENA_DEALS["melds"],  # the same, with 5c (fitting nothing) to keep
                       "hands": [["Qs", "Qd", "Qc", "2s", "3s", "4s", "5c"],
                                 *ARENA_DEALS["melds"]["hands"][1:]]}
"""4-player arena hands at seat 0's layoff step, seat 0 a guest and seats 1-3 computers:
seat 0 the first defender (laying off; with two melds of its own; with a card to keep), and
seat 0 the last, after two layoffs by the computer."""


def arena_rules() -> Ruleset:
    return Ruleset.preset("arena").replace(players=4)


def arena_deck(deal: dict[str, Any]) -> list[int]:
    """The 52 cards of an arena deal in dealing order: one at a time from the dealer's left
    (seat dealer + 1 first), then the upcard, then the stock from its top."""
    players = len(deal["hands"])
    order = [(deal["dealer"] + 1 + i) % players for i in range(players)]
    index = {name: i for i, name in enumerate(CARD_NAMES)}
    named = [deal["hands"][seat][k] for k in range(len(deal["hands"][0])) for seat in order]
    named += [deal["upcard"], *deal["stock"]]
    rest = [name for name in CARD_NAMES if name not in named]
    return [index[name] for name in named + rest]


def arena_hand(name: str) -> Hand:
    """The arena hand ``name`` after its actions: at its first defender's layoff step."""
    deal = ARENA_DEALS[name]
    hand = Hand(arena_rules(), deal["dealer"], arena_deck(deal))
    for seat, action in deal["actions"]:
        hand.apply(action, seat)
    return hand


def stored_arena_table(table_id: str, token: str, name: str) -> StoredTable:
    """The arena table ``name`` of :data:`ARENA_DEALS` as the server stores it, before the
    computer's layoffs (the restored server plays them): seat 0 a guest holding ``token``."""
    deal = ARENA_DEALS[name]
    rules = arena_rules()
    cards = arena_deck(deal)
    events = [StoredEvent(1, EventKind.MATCH, json.dumps({"first_dealer": deal["dealer"]})),
              StoredEvent(2, EventKind.DEAL, " ".join(CARD_NAMES[c] for c in cards))]
    for seat, action in deal["actions"]:
        source = Source.HUMAN if seat == 0 else Source.BOT
        events.append(StoredEvent(len(events) + 1, EventKind.ACTION, action, seat, source))
    seats = [StoredSeat(0, SeatKind.HUMAN, "Ann", None, secret_hash(token))]
    seats += [StoredSeat(seat, SeatKind.BOT, "Simple", "simple") for seat in (1, 2, 3)]
    return StoredTable(id=table_id, name="Arena layoffs", preset="arena",
                       rules=rules.to_dict(), players=4, public=True, invite_hash=None,
                       clock_ms=0, pool_chips=None, status=TableStatus.PLAYING,
                       version=len(events), seats=seats, events=events)


def seed_database(db_file: Path, tables: dict[str, tuple[str, bool]],
                  arena: dict[str, tuple[str, str]] | None = None) -> None:
    """A migrated SQLite database at ``db_file`` holding a :func:`stored_table` for each
    ``id: (token, knock)`` and a :func:`stored_arena_table` for each ``id: (token, deal)`` of
    ``arena`` (a server started on it restores them)."""
    engine = open_engine(f"sqlite:///{db_file}")
    stored = [stored_table(table_id, token, knock) for table_id, (token, knock) in tables.items()]
    stored += [stored_arena_table(table_id, token, name)
               for table_id, (token, name) in (arena or {}).items()]
    try:
        migrate(engine)
        for table in stored:
            table_id = table.id
            Repository(engine).write([InsertTable(table),
                                      *(InsertEvent(table_id, e) for e in table.events)])
    finally:
        engine.dispose()
