"""The turn clock of human seats: when it starts, when it is cleared (no asyncio here).

A table with ``clock_ms > 0`` gives a human who comes to move that many milliseconds; the
deadline (``clock_deadline``, Unix time) is stored with every commit so that a restart resumes
it. A computer seat to move, or no running hand, clears it.
"""

from __future__ import annotations

from ginrummy.server.play.table import GameTable

TurnKey = tuple[int, int, int]
"""Which turn it is: (hands dealt, seat to move, which match)."""


def turn_key(table: GameTable) -> TurnKey:
    """The current turn (a change means a fresh clock for a human)."""
    hand = table.running_hand()
    hands = 0 if table.match is None else len(table.match.hands)
    return (hands, -3 if hand is None else hand.to_move, id(table.match))


def update_clock(table: GameTable, before: TurnKey, now: float) -> None:
    """After a change: start the clock of a human who just came to move; clear it otherwise
    (``before`` is the turn before the change)."""
    hand = table.running_hand()
    if table.clock_ms <= 0 or hand is None or hand.to_move < 0 \
            or table.seats[hand.to_move].computer_plays:
        table.clock_seat = table.clock_deadline = None
        return
    if turn_key(table) != before or table.clock_seat != hand.to_move \
            or table.clock_deadline is None:
        table.clock_seat = hand.to_move
        table.clock_deadline = now + table.clock_ms / 1000


def restart_clock(table: GameTable, now: float) -> bool:
    """Give the human to move a fresh clock if none runs for him (say he is back from away
    on his turn); True when it changed (then it must be stored and sent)."""
    hand = table.running_hand()
    if table.clock_ms <= 0 or hand is None:
        return False
    if table.clock_seat == hand.to_move and table.clock_deadline is not None:
        return False
    table.clock_seat = hand.to_move
    table.clock_deadline = now + table.clock_ms / 1000
    return True
