"""Presence: which human seats have a connection, the hold of a seat whose player left, and
``away`` (the computer plays the seat) once the hold is over, until the player is back.

No lock is taken here: the table writer calls these under its lock; the hold's expiry calls
back the writer (``on_expired(seat)``), which takes the lock and then :meth:`Presence.expire`.
"""

from __future__ import annotations

import logging

from ginrummy.server.play.table import GameTable
from ginrummy.server.play.timers import TableTimers, TimerAction

log = logging.getLogger("ginrummy.server.table")


class Presence:
    """The connections and holds of one table's seats."""

    def __init__(self, timers: TableTimers, hold_seconds: float,
                 on_expired: TimerAction) -> None:
        self.timers = timers
        self.hold_seconds = hold_seconds
        self.on_expired = on_expired

    def hold(self, seat: int) -> None:
        """Hold ``seat`` for its player (``hold_seconds``), then the computer plays it."""
        self.timers.hold(seat, self.hold_seconds, self.on_expired)

    def hold_absent(self, table: GameTable) -> None:
        """Hold every human seat without a connection (after creation or a restart)."""
        for seat in table.seats:
            if seat.human and seat.connections == 0:
                self.hold(seat.seat)

    def arrive(self, table: GameTable, seat_no: int) -> bool:
        """A connection of ``seat_no`` opened; True when the seat was away (the game must go
        on: it is the player's again)."""
        seat = table.seats[seat_no]
        seat.connections += 1
        self.timers.release(seat_no)
        if seat.away:
            seat.away = False
            return True
        return False

    def leave(self, table: GameTable, seat_no: int) -> None:
        """A connection of ``seat_no`` closed; a human seat left without any is held."""
        seat = table.seats[seat_no]
        seat.connections = max(0, seat.connections - 1)
        if seat.connections == 0 and seat.human:
            self.hold(seat_no)

    def expire(self, table: GameTable, seat_no: int) -> bool:
        """The hold of ``seat_no`` is over: True when the seat is now away (the computer
        plays it)."""
        self.timers.fired(seat_no)
        seat = table.seats[seat_no]
        if seat.connections == 0 and seat.human and not seat.away:
            seat.away = True
            log.info("table %s: seat %d is away, the computer plays it", table.id, seat_no)
            return True
        return False
