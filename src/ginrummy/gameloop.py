"""The one loop that drives hands and matches: seats decide, chance reshuffles, a cap stops
an endless hand, and a callback sees every decision (no I/O here).

Every caller plays through this module: ``ginrummy simulate``, the tournament (with its own
chance source and timing callback), the terminal game (the person is one more kind of seat)
and the server's computer seats (one :func:`decide` at a time, with the same cap).

A *seat* is anything with ``choose(view, legal) -> Action``: every bot, and the terminal
game's person. It sees only its own view (:func:`ginrummy.views.view`).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ginrummy.actions import Action
from ginrummy.cards import card_name
from ginrummy.engine import CHANCE, Hand, Phase
from ginrummy.match import Match
from ginrummy.rules import Ruleset
from ginrummy.views import PlayerView, view

MAX_DECISIONS = 5_000
"""A hand still going after this many decisions is stopped with :class:`EndlessHand`: the
rules let players pass cards back and forth for ever without drawing from the stock, and a
pair of players that does so would otherwise hang the caller. A real hand takes well under
200."""


class EndlessHand(RuntimeError):
    """A hand passed its decision cap without ending."""


class Seat(Protocol):
    """A player at the table: a bot, or a person behind a terminal."""

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        """Pick an action for ``view.seat`` among (or equivalent to one of) ``legal``."""
        ...


Chance = Callable[[Hand], random.Random]
"""The generator of the hand's next reshuffle (``hand.reshuffles`` tells which one)."""


def reshuffles_from(rng: random.Random) -> Chance:
    """The chance source that draws every reshuffle from one generator (``simulate``, a
    match's own generator)."""

    def chance(_hand: Hand) -> random.Random:
        return rng

    return chance


OnDecision = Callable[[Hand | Match, int, Action, float], None]
"""``on_decision(state, seat, action, seconds)``: after each decision is applied, with the
seconds the seat's ``choose`` took."""


def decisions_made(hand: Hand) -> int:
    """The decisions taken so far in ``hand``: its log less the reshuffles (the only chance
    actions)."""
    return len(hand.log) - hand.reshuffles


def check_cap(hand: Hand, decisions: int, cap: int = MAX_DECISIONS) -> None:
    """Raise :class:`EndlessHand` when ``decisions`` (taken in ``hand``) exceeds ``cap``."""
    if decisions > cap:
        last = ", ".join(card_name(c) for c in hand.discards[-4:])
        raise EndlessHand(
            f"the hand did not end after {cap} decisions: the players keep taking each "
            f"other's discards without drawing from the stock (last discards: {last})")


def decide(state: Hand | Match, seat: Seat, number: int) -> Action:
    """Ask ``seat`` (seat number ``number``, to move) for its action, from its view only."""
    hand = state.hand if isinstance(state, Match) else state
    return seat.choose(view(state, number), hand.legal_actions())


def play_hand(state: Hand | Match, seats: Sequence[Seat], chance: Chance,
              on_decision: OnDecision | None = None, cap: int = MAX_DECISIONS) -> Hand:
    """Play the current hand of ``state`` (a hand, or a match, which then settles the score)
    to its end: each seat sees only its own view, the ``r``-th reshuffle comes from
    ``chance(hand)`` (with ``hand.reshuffles == r``), ``on_decision`` (if any) is told every
    decision after it is applied. Raises :class:`EndlessHand` past ``cap`` decisions; a seat's
    illegal action raises the engine's :class:`~ginrummy.errors.IllegalActionError`."""
    hand = state.hand if isinstance(state, Match) else state
    if len(seats) != hand.players:
        raise ValueError(f"{hand.players} seats needed, got {len(seats)}")
    over = Phase.OVER
    apply = state.apply
    legal_actions = hand.legal_actions
    decisions = 0
    if on_decision is None:  # nobody is told: no clock either (simulate's hot loop; one
        # loop with the branch inside costs about 1% of simulate's speed, measured)
        while hand.phase is not over:
            number = hand.to_move
            if number == CHANCE:
                apply(hand.reshuffle_order(chance(hand)))
                continue
            decisions += 1
            if decisions > cap:
                check_cap(hand, decisions, cap)
            apply(seats[number].choose(view(state, number), legal_actions()), number)
        return hand
    perf = time.perf_counter
    while hand.phase is not over:
        number = hand.to_move
        if number == CHANCE:
            apply(hand.reshuffle_order(chance(hand)))
            continue
        decisions += 1
        if decisions > cap:
            check_cap(hand, decisions, cap)
        seen = view(state, number)
        legal = legal_actions()
        start = perf()
        action = seats[number].choose(seen, legal)
        seconds = perf() - start
        apply(action, number)
        on_decision(state, number, action, seconds)
    return hand


@dataclass
class Stats:
    """Counts gathered while playing: hands, decisions, hands by outcome."""

    hands: int = 0
    decisions: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)

    def count(self, hand: Hand) -> None:
        """Add one finished hand and its decisions."""
        assert hand.result is not None
        self.hands += 1
        self.decisions += decisions_made(hand)
        key = hand.result.outcome.value
        self.outcomes[key] = self.outcomes.get(key, 0) + 1


def play_match(rules: Ruleset, seats: Sequence[Seat], seed: int | None = None,
               match: Match | None = None, stats: Stats | None = None,
               max_hands: int = 10_000, on_decision: OnDecision | None = None,
               cap: int = MAX_DECISIONS) -> Match:
    """Play a whole match (or single-hand game); decks and reshuffles come from the match's
    generator (``seed``, or a live shuffle)."""
    if len(seats) != rules.players:
        raise ValueError(f"{rules.players} players needed, got {len(seats)} seats")
    match = match or Match(rules, seed=seed)
    chance = reshuffles_from(match.rng)
    for _ in range(max_hands):
        if match.over:
            return match
        if match.needs_deal:
            match.start_hand()
        hand = play_hand(match, seats, chance, on_decision, cap)
        if stats is not None:
            stats.count(hand)
    raise RuntimeError(f"match not decided after {max_hands} hands")
