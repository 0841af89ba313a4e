"""The players' layer's hooks into a table's commits.

Some writes must commit in the same transaction as a table's own: a seat taken by an account
pays its buy-in with the join; a seat given up before the deal gets it back with the leave;
a match's end stores the match, its players' statistics, their new ratings and the pool's
payout with the match's last event. The table writer asks :class:`Hooks` for those writes
(:class:`ginrummy.storage.WriteOp`, usually :class:`ginrummy.storage.Apply`) and commits
them with its own; the modules of the players' layer register their functions at start-up
(``ratings``, ``chips``...). A hook must not change the table: it only returns writes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

from ginrummy.storage import WriteOp

if TYPE_CHECKING:
    from ginrummy.server.play.seat import Seat
    from ginrummy.server.play.table import GameTable

log = logging.getLogger("ginrummy.server.settlement")


class SeatRefused(ValueError):
    """A hook refused a seat (a buy-in table: a guest, too few chips): HTTP ``status`` and
    error ``code``."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code


class Ending(StrEnum):
    """How a match (or a table that never finished one) ended."""

    OVER = "over"            # played to the end
    ABANDONED = "abandoned"  # no person connected for a while: the server closed the table
    CLOSED = "closed"        # an administrator closed the table
    STUCK = "stuck"          # a hand passed the decision cap: the server stopped the table


@dataclass(frozen=True)
class MatchEnd:
    """A table's match ended (or the table closed before or during one).

    ``table`` is the table after the last event (``table.match`` may be ``None`` or not over
    when the table was closed); ``absent`` are the seats of people who were not there when it
    ended (the computer was playing for them): they abandoned it."""

    table: GameTable
    ending: Ending
    absent: frozenset[int] = frozenset()


SeatHook = Callable[["GameTable", "Seat"], Sequence[WriteOp]]
EndHook = Callable[[MatchEnd], Sequence[WriteOp]]


@dataclass
class Hooks:
    """The registered hooks (one set per server, shared by its tables)."""

    on_sit: list[SeatHook] = field(default_factory=list)
    """A seat was just taken (``seat.account_id`` set for an account): e.g. the buy-in."""
    on_leave: list[SeatHook] = field(default_factory=list)
    """A seat is about to be given up before the deal (still filled): e.g. the refund."""
    on_end: list[EndHook] = field(default_factory=list)
    """A match ended, or the table was closed: match record, ratings, payout or refunds."""

    def sit(self, table: GameTable, seat: Seat) -> list[WriteOp]:
        """The writes that go with a seat taken."""
        return [op for hook in self.on_sit for op in hook(table, seat)]

    def leave(self, table: GameTable, seat: Seat) -> list[WriteOp]:
        """The writes that go with a seat given up."""
        return [op for hook in self.on_leave for op in hook(table, seat)]

    def end(self, end: MatchEnd) -> list[WriteOp]:
        """The writes that go with a match's end."""
        return [op for hook in self.on_end for op in hook(end)]
