"""The server's closed sets of names as ``StrEnum``s: what is stored and sent stays plain text.

Each member *is* its string (``SeatKind.BOT == "bot"``), so database rows written before these
enums existed read back unchanged, JSON carries the same text, and comparing with a stored
string works either way.
"""

from __future__ import annotations

from enum import StrEnum


class SeatKind(StrEnum):
    """Who sits in a seat (``seats.kind``, the table entry's ``kind``)."""

    EMPTY = "empty"
    HUMAN = "human"
    BOT = "bot"


class TableStatus(StrEnum):
    """A table's status (``game_tables.status``, the table entry's ``status``)."""

    WAITING = "waiting"  # seats to fill before the first deal
    PLAYING = "playing"
    OVER = "over"        # the match is over (a rematch may follow)
    STUCK = "stuck"      # stopped: a hand passed the decision cap (docs/server.md)
    ABANDONED = "abandoned"  # closed: no person connected for a while (docs/server.md)
    CLOSED = "closed"    # closed for good by an administrator (docs/moderation.md)


OPEN_STATUSES = (TableStatus.WAITING, TableStatus.PLAYING)
"""Statuses listed in the lobby and always restored at start-up."""


class EventKind(StrEnum):
    """A stored event (``events.kind``)."""

    MATCH = "match"    # a match starts (its first dealer)
    DEAL = "deal"      # a hand's 52-card deck
    ACTION = "action"  # an action in notation (a seat's, or chance's reshuffle)
    RESIGN = "resign"  # a seat resigned the match (docs/protocol.md, *Resign and leave*)


class Source(StrEnum):
    """Who chose a stored action (``events.source``)."""

    HUMAN = "human"    # the seat's player
    BOT = "bot"        # a computer seat
    CLOCK = "clock"    # the computer, for a human whose turn clock ran out
    AWAY = "away"      # the computer, for a human away longer than the hold
    CHANCE = "chance"  # a reshuffle
