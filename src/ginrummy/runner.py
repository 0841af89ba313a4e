"""Drive a hand or a match with players that see only their own view (no I/O here)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ginrummy.actions import Action
from ginrummy.bots.base import Bot
from ginrummy.engine import CHANCE, Hand, Phase
from ginrummy.match import Match
from ginrummy.rules import Ruleset
from ginrummy.views import view


@dataclass
class Stats:
    """Counts gathered while playing."""

    hands: int = 0
    decisions: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)

    def count(self, hand: Hand) -> None:
        """Add one finished hand."""
        assert hand.result is not None
        self.hands += 1
        key = hand.result.outcome.value
        self.outcomes[key] = self.outcomes.get(key, 0) + 1


Observer = Callable[[Match | Hand, int, Action], None]


def _play_out(hand: Hand, state: Hand | Match, bots: Sequence[Bot], rng: random.Random,
              stats: Stats | None, observer: Observer | None) -> None:
    """Play ``hand`` to its end through ``state`` (the hand itself, or the match holding it,
    which then settles the score); bots see only their views, reshuffles come from ``rng``."""
    decisions = 0
    over = Phase.OVER
    apply = state.apply
    while hand.phase is not over:
        if hand.to_move == CHANCE:
            apply(hand.reshuffle_order(rng))
            continue
        seat = hand.to_move
        action = bots[seat].choose(view(state, seat), hand.legal_actions())
        apply(action, seat)
        decisions += 1
        if observer is not None:
            observer(state, seat, action)
    if stats is not None:
        stats.decisions += decisions
        stats.count(hand)


def play_hand(hand: Hand, bots: Sequence[Bot], rng: random.Random,
              stats: Stats | None = None, observer: Observer | None = None) -> Hand:
    """Play ``hand`` to its end; bots see only their views. Reshuffles come from ``rng``."""
    _play_out(hand, hand, bots, rng, stats, observer)
    return hand


def play_match(rules: Ruleset, bots: Sequence[Bot], seed: int | None = None,
               match: Match | None = None, stats: Stats | None = None,
               max_hands: int = 10_000) -> Match:
    """Play a whole match (or single-hand game) between bots."""
    if len(bots) != rules.players:
        raise ValueError(f"{rules.players} players needed, got {len(bots)} bots")
    match = match or Match(rules, seed=seed)
    for _ in range(max_hands):
        if match.over:
            return match
        if match.needs_deal:
            match.start_hand()
        _play_out(match.hand, match, bots, match.rng, stats, None)
    raise RuntimeError(f"match not decided after {max_hands} hands")
