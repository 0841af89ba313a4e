"""Computer seats: who plays for bots, timed-out and absent humans, and how a move is chosen.

A move goes through :func:`ginrummy.gameloop.decide`, the one loop's decision function (the
seat sees only its own view), under the loop's cap: a hand that has had ``max_decisions``
decisions gets no more from anyone, person or computer (:func:`cap_reached`; the table writer
then stops the table, docs/server.md).
"""

from __future__ import annotations

import asyncio
import logging
import secrets

from ginrummy.actions import Action
from ginrummy.bots import BOTS, Bot, make_bot
from ginrummy.gameloop import EndlessHand, check_cap, decide, decisions_made
from ginrummy.server.core.kinds import SeatKind
from ginrummy.server.core.settings import Settings
from ginrummy.server.play.seat import Seat
from ginrummy.server.play.table import GameTable

log = logging.getLogger("ginrummy.server.table")

FAST_BOTS = frozenset(("random", "simple", "beginner"))
"""Levels cheap enough to run on the event loop; others think in a worker thread."""


def default_bot_level(settings: Settings) -> str:
    """The level that plays for timed-out or absent humans."""
    if settings.default_bot and settings.default_bot in BOTS:
        return settings.default_bot
    return "intermediate" if "intermediate" in BOTS else "simple"


def cap_reached(table: GameTable, cap: int) -> str | None:
    """Why nobody may move in the table's running hand, person or computer: it has had
    ``cap`` decisions (:class:`ginrummy.gameloop.EndlessHand`'s message); else ``None``."""
    hand = table.running_hand()
    if hand is None:
        return None
    try:
        check_cap(hand, decisions_made(hand) + 1, cap)
    except EndlessHand as exc:
        return str(exc)
    return None


class ComputerSeats:
    """The bots of one table, one per (seat, level), made on first use."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._bots: dict[tuple[int, str], Bot] = {}

    def level(self, seat: Seat) -> str:
        """The level that plays ``seat`` (its own for a bot seat, else the default)."""
        if seat.kind == SeatKind.BOT and seat.level in BOTS:
            return seat.level
        return default_bot_level(self.settings)

    async def choose(self, table: GameTable, seat: Seat) -> Action:
        """The computer's action for ``seat``, to move in the running hand. Raises
        :class:`ginrummy.gameloop.EndlessHand` when the hand has had its decisions; a bot
        that fails or answers an illegal action is logged and its first legal action played."""
        match = table.match
        hand = table.running_hand()
        assert match is not None and hand is not None and hand.to_move == seat.seat
        check_cap(hand, decisions_made(hand) + 1, self.settings.max_decisions)
        level = self.level(seat)
        bot = self._bots.get((seat.seat, level))
        if bot is None:
            bot = self._bots[(seat.seat, level)] = make_bot(level, secrets.randbits(31))
        try:
            if level in FAST_BOTS:
                action = decide(match, bot, seat.seat)
            else:
                action = await asyncio.to_thread(decide, match, bot, seat.seat)
            hand.verify(action, seat.seat)
        except Exception:
            log.exception("table %s: bot %s failed; playing its first legal action",
                          table.id, level)
            action = hand.legal_actions()[0]
        return action
