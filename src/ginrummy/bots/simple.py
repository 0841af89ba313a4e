"""Two baseline players: ``random`` and ``simple``."""

from __future__ import annotations

import random
from collections.abc import Sequence

from ginrummy.actions import Action, Discard, DrawDiscard, DrawStock, Knock, LayOff, Pass
from ginrummy.cards import CARD_VALUES, Card, cards_of
from ginrummy.engine import Phase
from ginrummy.solver import best_melds, deadwood_mask
from ginrummy.views import PlayerView


class RandomBot:
    """Picks uniformly among the legal actions (seeded for reproducibility)."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        """A uniformly random legal action."""
        return legal[self.rng.randrange(len(legal))]


def best_after_discard(hand_mask: int, forbidden: Card | None = None) -> tuple[int, Card]:
    """The least deadwood reachable by discarding one card, and that card (highest first)."""
    best = (1 << 30, -1)
    for card in sorted(cards_of(hand_mask), key=lambda c: (-CARD_VALUES[c], -c)):
        if card == forbidden:
            continue
        dw = deadwood_mask(hand_mask & ~(1 << card))
        if dw < best[0]:
            best = (dw, card)
    return best


class SimpleBot:
    """The baseline: takes the discard when it lowers its deadwood, discards the highest
    unmatched card, knocks as soon as it may (gin first, then the least deadwood), and lays
    off optimally."""

    name = "simple"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        """The baseline decision for this view."""
        phase = view.phase
        if phase is Phase.LAYOFF:
            return next(a for a in legal if isinstance(a, LayOff))
        hand = 0
        for card in view.hand:
            hand |= 1 << card
        if phase in (Phase.OFFER, Phase.DRAW):
            top = view.top_discard
            can_take = any(isinstance(a, DrawDiscard) for a in legal)
            if can_take and top is not None:
                after, _ = best_after_discard(hand | 1 << top, forbidden=top)
                if after < deadwood_mask(hand):
                    return DrawDiscard()
            return Pass() if phase is Phase.OFFER else DrawStock()
        knocks = [a for a in legal if isinstance(a, Knock)]
        if knocks:
            return min(knocks, key=lambda k: _knock_deadwood(hand, k))
        discards = {a.card for a in legal if isinstance(a, Discard)}
        unmatched = [c for c in best_melds(hand).unmatched if c in discards]
        if unmatched:
            card = max(unmatched, key=lambda c: (CARD_VALUES[c], c))
        else:
            forbidden = None if len(discards) == len(view.hand) else view.taken
            card = best_after_discard(hand, forbidden)[1]
        return Discard(card)


def _knock_deadwood(hand: int, knock: Knock) -> int:
    melded = 0
    for meld in knock.melds:
        for card in meld:
            melded |= 1 << card
    rest = hand & ~melded
    if knock.discard is not None:
        rest &= ~(1 << knock.discard)
    return sum(CARD_VALUES[c] for c in cards_of(rest))
