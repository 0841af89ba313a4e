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
from ginrummy.solver.discards import discard_deadwoods_mask
from ginrummy.views import PlayerView


class RandomBot:
    """Picks uniformly among the legal actions (seeded for reproducibility)."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        """A uniformly random legal action."""
        return legal[self.rng.randrange(len(legal))]


def highest_unmatched(
    hand_mask: int, allowed: int, options: list[tuple[int, int]] | None = None
) -> Card:
    """The discard of the simple player: the highest card (by value, then rank, then suit)
    left unmatched by some least-deadwood arrangement; failing that (every such card is
    forbidden), the allowed card whose discard leaves the least deadwood.

    A card c is unmatched in some least-deadwood arrangement exactly when
    deadwood(hand - c) == deadwood(hand) - value(c). ``options`` may pass in
    :func:`discard_deadwoods_mask` of the hand, already computed.
    """
    whole = deadwood_mask(hand_mask)
    if options is None:
        options = discard_deadwoods_mask(hand_mask)
    options = [(dw, card) for dw, card in options if allowed >> card & 1]
    unmatched = [card for dw, card in options if dw == whole - CARD_VALUES[card]]
    if unmatched:
        return max(unmatched, key=lambda c: (CARD_VALUES[c], c % 13, c))
    return min(options, key=lambda o: (o[0], -CARD_VALUES[o[1]], -o[1]))[1]


class SimpleBot:
    """The baseline: takes the discard when it lowers its deadwood, discards the highest
    unmatched card, knocks as soon as it may (gin first, then the least deadwood), and lays
    off optimally."""

    name = "simple"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        # discard_deadwoods_mask of the last 11-card hand looked at (hand mask, result)
        self._memo: tuple[int, list[tuple[int, int]]] = (-1, [])

    def _discard_deadwoods(self, mask: int) -> list[tuple[int, int]]:
        if self._memo[0] != mask:
            self._memo = (mask, discard_deadwoods_mask(mask))
        return self._memo[1]

    def _take_lowers_deadwood(self, hand: int, top: Card) -> bool:
        """Whether taking ``top`` and discarding another card can lower the deadwood."""
        now = deadwood_mask(hand)
        with_top = hand | 1 << top
        lanes = hand & 8191 | hand >> 13 & 8191 | hand >> 26 & 8191 | hand >> 39
        # a discard lowers deadwood by at most its value, at most the highest card's
        if deadwood_mask(with_top) - min(lanes.bit_length(), 10) >= now:
            return False
        return min(dw for dw, card in self._discard_deadwoods(with_top) if card != top) < now

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        """The baseline decision for this view."""
        phase = view.phase
        if phase is Phase.LAYOFF:
            return next(a for a in legal if isinstance(a, LayOff))
        hand = view.hand_mask
        if phase in (Phase.OFFER, Phase.DRAW):
            top = view.top_discard
            can_take = any(type(a) is DrawDiscard for a in legal)
            if can_take and top is not None and self._take_lowers_deadwood(hand, top):
                return DRAW_DISCARD
            return PASS if phase is Phase.OFFER else DRAW_STOCK
        knocks = [a for a in legal if type(a) is Knock]
        if knocks:
            return min(knocks, key=lambda k: _knock_deadwood(hand, k))
        allowed = 0
        for action in legal:
            if type(action) is Discard:
                allowed |= 1 << action.card
        return DISCARDS[highest_unmatched(hand, allowed, self._discard_deadwoods(hand))]


def _knock_deadwood(hand: int, knock: Knock) -> int:
    melded = 0
    for meld in knock.melds:
        for card in meld:
            melded |= 1 << card
    rest = hand & ~melded
    if knock.discard is not None:
        rest &= ~(1 << knock.discard)
    return sum(CARD_VALUES[c] for c in cards_of(rest))
