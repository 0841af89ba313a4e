"""Two baseline players: ``random`` and ``simple``."""

from __future__ import annotations

import random
from collections.abc import Sequence

from ginrummy.actions import (
    DISCARDS,
    DRAW_DISCARD,
    DRAW_STOCK,
    PASS,
    Action,
    Discard,
    DrawDiscard,
    Knock,
    LayOff,
)
from ginrummy.cards import CARD_VALUES, Card, cards_of
from ginrummy.engine import Phase
from ginrummy.solver import deadwood_mask
from ginrummy.solver.discards import (
    discard_deadwoods_mask,
    least_deadwood_after_discard,
    loose_cards_mask,
)
from ginrummy.views import PlayerView

_OFFER, _DRAW, _LAYOFF = Phase.OFFER, Phase.DRAW, Phase.LAYOFF  # enum lookups are slow


class RandomBot:
    """Picks uniformly among the legal actions (seeded for reproducibility)."""

    name = "random"

    def __init__(self, seed: int | None = None, budget_ms: float | None = None) -> None:
        self.rng = random.Random(seed)
        self._random = self.rng.random

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        """A uniformly random legal action."""
        return legal[int(self._random() * len(legal))]


def take_lowers_deadwood(hand_mask: int, top: Card) -> bool:
    """Whether taking ``top`` and then discarding another card lowers the deadwood."""
    return least_deadwood_after_discard(hand_mask | 1 << top, top) < deadwood_mask(hand_mask)


def highest_unmatched(hand_mask: int, allowed: int) -> Card:
    """The discard of the simple player: the highest allowed card (by value, then rank, then
    suit) that some least-deadwood arrangement leaves unmatched; failing that (every such
    card is forbidden), the allowed card whose discard leaves the least deadwood."""
    loose = loose_cards_mask(hand_mask) & allowed
    if loose:
        return max(cards_of(loose), key=lambda c: (CARD_VALUES[c], c % 13, c))
    options = [(dw, card) for dw, card in discard_deadwoods_mask(hand_mask)
               if allowed >> card & 1]
    return min(options, key=lambda o: (o[0], -CARD_VALUES[o[1]], -o[1]))[1]


class SimpleBot:
    """The baseline: takes the discard when it lowers its deadwood, discards the highest
    unmatched card, knocks as soon as it may (gin first, then the least deadwood), and lays
    off optimally."""

    name = "simple"

    def __init__(self, seed: int | None = None, budget_ms: float | None = None) -> None:
        self.seed = seed

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        """The baseline decision for this view."""
        phase = view.phase
        if phase is _LAYOFF:
            return next(a for a in legal if isinstance(a, LayOff))
        hand = view.hand_mask
        if phase is _DRAW or phase is _OFFER:
            top = view.top_discard
            can_take = any(type(a) is DrawDiscard for a in legal)
            if can_take and top is not None and take_lowers_deadwood(hand, top):
                return DRAW_DISCARD
            return PASS if phase is _OFFER else DRAW_STOCK
        knocks = [a for a in legal if type(a) is Knock]
        if knocks:
            return min(knocks, key=lambda k: knock_deadwood(hand, k))
        allowed = 0
        for action in legal:
            if type(action) is Discard:
                allowed |= 1 << action.card
        return DISCARDS[highest_unmatched(hand, allowed)]


def knock_deadwood(hand: int, knock: Knock) -> int:
    """The deadwood a knock from ``hand`` (11 cards, or 10 for a big gin) leaves: the cards
    neither discarded nor in its melds (0 for a gin)."""
    melded = 0
    for meld in knock.melds:
        for card in meld:
            melded |= 1 << card
    rest = hand & ~melded
    if knock.discard is not None:
        rest &= ~(1 << knock.discard)
    return sum(CARD_VALUES[c] for c in cards_of(rest))
