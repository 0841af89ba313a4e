"""The first-game tutorial's hand: a fixed deal and script played by the real engine, as the
``state`` messages a player at a real table would get (docs/client.md, *The tutorial*).

A classic table (``classic`` preset): the computer (seat 1) deals, so the player (seat 0, on
the dealer's left) plays first (R2.4). The player holds the run 5♥ 6♥ 7♥ and the nines ♣ ♦;
the upcard 9♠ makes a set of them (the draw from the discard pile), the K♣ goes (the discard),
the computer draws K♦ from the stock and throws it back, the player draws 8♥ from the stock
(the run grows) and knocks discarding 6♠ with deadwood 7 (A♠ 2♦ 4♣), and the computer melds
its queens and lays off 4♥ on the player's run (the layoff), keeping 42: the player scores
42 − 7 = 35 (R5.2).

:func:`tutorial_steps` plays it once per process with :class:`GameTable` (nothing stored,
nothing sent): each step names what the player is taught, the states shown (the computer's
moves one after the other), the action that ends it (``None``: the player reads and goes on),
the clauses of docs/rules.md its text restates and the numbers the text needs, all taken from
the engine.
"""

from __future__ import annotations

import functools
import json
import time
from typing import Any

from ginrummy.actions import LayOff, parse_action
from ginrummy.cards import CARD_NAMES, card_name
from ginrummy.rules import Ruleset
from ginrummy.server.core.kinds import EventKind, SeatKind, Source
from ginrummy.server.play.seat import Seat
from ginrummy.server.play.table import GameTable, table_rules
from ginrummy.storage import StoredEvent

__all__ = ["COMPUTER", "PLAYER", "tutorial_steps"]

PLAYER = 0
COMPUTER = 1
PLAYER_CARDS = ["5h", "6h", "7h", "9c", "9d", "Kc", "As", "2d", "6s", "4c"]
COMPUTER_CARDS = ["Qs", "Qh", "Qc", "4h", "Jc", "Ts", "8d", "7c", "5d", "2s"]
UPCARD = "9s"
STOCK_TOP = ["Kd", "8h"]
"""The computer draws K♦ (and throws it back), the player 8♥."""
PLAYER_DISCARD = "Kc"
KNOCK = "knock 6s [5h 6h 7h 8h] [9s 9c 9d]"
COMPUTER_LEVEL = "beginner"
"""The level shown on the computer's seat (it plays the script, not a bot)."""


def deck() -> list[int]:
    """The 52 cards in dealing order (R2.3): one at a time from the dealer's left (the
    player first), then the upcard, then the stock from its top."""
    index = {name: i for i, name in enumerate(CARD_NAMES)}
    named = [card for pair in zip(PLAYER_CARDS, COMPUTER_CARDS, strict=True) for card in pair]
    named += [UPCARD, *STOCK_TOP]
    return [index[name] for name in named] + [index[n] for n in CARD_NAMES if n not in named]


class _Script:
    """The tutorial's table, played event by event; each state taken as the player sees it."""

    def __init__(self) -> None:
        seats = [Seat(PLAYER, SeatKind.HUMAN, None), Seat(COMPUTER, SeatKind.BOT, None,
                                                          COMPUTER_LEVEL)]
        seats[PLAYER].connections = 1  # the player is there (no "disconnected" badge)
        self.table = GameTable("tutorial", "", "classic", table_rules(Ruleset.preset("classic")),
                               False, None, 0, None, seats)
        self.now = time.time()
        self._event(EventKind.MATCH, json.dumps({"first_dealer": COMPUTER}))
        self._event(EventKind.DEAL, " ".join(card_name(c) for c in deck()))

    def _event(self, kind: EventKind, payload: str, seat: int | None = None) -> None:
        source = None if seat is None else (Source.HUMAN if seat == PLAYER else Source.BOT)
        self.table.apply_event(StoredEvent(self.table.version + 1, kind, payload, seat, source))

    def play(self, seat: int, action: str) -> None:
        """Apply ``action`` for ``seat`` (the engine refuses an illegal one)."""
        hand = self.table.hand
        assert hand is not None
        hand.verify(parse_action(action), seat)
        self._event(EventKind.ACTION, action, seat)

    def state(self) -> dict[str, Any]:
        """The player's ``state`` now (the hand's end offers no next hand: the lesson ends)."""
        message = dict(self.table.state_message(PLAYER, self.now))
        if self.table.hand is not None and self.table.hand.over:
            message["next_hand"] = None
        return message

    def defence(self) -> str:
        """The computer's layoff: the engine's best defence (its least deadwood)."""
        hand = self.table.hand
        assert hand is not None
        best = hand.best_defence(COMPUTER)
        return str(LayOff(best.melds, best.layoffs))


CLAUSES = {"welcome": "R1.3, R1.4", "take": "R3.1", "discard": "R3.2, R1.2", "stock": "R3.1",
           "knock": "R4.1", "layoff": "R4.4", "score": "R5.2, R5.1"}
"""The clauses of docs/rules.md each step restates."""


def _step(step: str, states: list[dict[str, Any]], expect: str | None,
          **params: Any) -> dict[str, Any]:
    return {"step": step, "rules": CLAUSES[step], "states": states, "expect": expect,
            "params": params}


@functools.cache
def tutorial_steps() -> tuple[dict[str, Any], ...]:
    """The tutorial's steps, in order (computed once: the deal and the script are fixed)."""
    script = _Script()
    limit = script.table.rules.knock_limit
    dealt = script.state()
    steps = [_step("welcome", [dealt], None, run="5h 6h 7h", pair="9c 9d", limit=limit),
             _step("take", [dealt], "take", card=UPCARD, cards="9c 9d")]
    script.play(PLAYER, "take")
    taken = script.state()
    script.play(PLAYER, f"discard {PLAYER_DISCARD}")
    computer_turn = [script.state()]
    steps.append(_step("discard", [taken], f"discard {PLAYER_DISCARD}", card=PLAYER_DISCARD,
                       before=taken["hints"]["deadwood"],
                       deadwood=computer_turn[0]["hints"]["deadwood"]))
    script.play(COMPUTER, "stock")
    computer_turn.append(script.state())
    script.play(COMPUTER, f"discard {STOCK_TOP[0]}")
    computer_turn.append(script.state())
    steps.append(_step("stock", computer_turn, "stock", card=STOCK_TOP[0]))
    script.play(PLAYER, "stock")
    drawn = script.state()
    knock = next(k for k in drawn["hints"]["knocks"] if k["action"].split()[1] == "6s")
    steps.append(_step("knock", [drawn], KNOCK, card=STOCK_TOP[1], discard="6s",
                       deadwood=knock["deadwood"], limit=limit))
    script.play(PLAYER, KNOCK)
    steps.append(_step("layoff", [script.state()], None))
    layoff = script.defence()
    script.play(COMPUTER, layoff)
    end = script.state()
    result = end["view"]["result"]
    laid = [card for card in layoff.split() if "@" in card]
    steps.append(_step("score", [end], None, knocker=result["deadwood"][PLAYER],
                       defender=result["deadwood"][COMPUTER], points=result["points"][PLAYER],
                       cards=" ".join(card.split("@")[0].strip("[]") for card in laid)))
    return tuple(steps)
