"""``beginner``: a port of Todd Neller's SimpleGinRummyPlayer, the EAAI-2021 baseline.

The rules it follows (docs/bots.md tells them in prose):

- draw: take the face-up card (first-turn offer included) exactly when it would be part of
  some meld of the hand plus that card; otherwise pass / draw from the stock;
- discard: uniformly at random among the cards whose discard leaves the least deadwood, never
  the card just taken from the discard pile, never a card that would repeat a (drawn card,
  discarded card) pair already played this hand. As in Neller's code the pair is compared as
  a set of two cards (his bitstring of both cards), so drawing A and discarding B also rules
  out later drawing B and discarding A. If every card is ruled out (Neller's code would fail
  there), the pair rule is dropped: least deadwood among the cards that may be discarded;
- knock: as soon as the discard chosen above leaves deadwood within the knock limit in force
  (gin at 0), laying down a uniformly random least-deadwood arrangement;
- defence: the engine's best defence (least deadwood after layoffs).

The pairs already used are read back from the seat's own log, so the bot keeps no state
between hands; its random choices come from one generator seeded at creation.
"""

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
    DrawStock,
    Knock,
    LayOff,
    Reshuffle,
)
from ginrummy.cards import LANE_MASK
from ginrummy.engine import Phase
from ginrummy.solver import best_arrangements, deadwood_mask
from ginrummy.solver.discards import discard_deadwoods_mask
from ginrummy.views import PlayerView

__all__ = ["BeginnerBot", "drawn_card", "in_some_meld", "used_pairs"]

_OFFER, _DRAW, _DISCARD, _LAYOFF = Phase.OFFER, Phase.DRAW, Phase.DISCARD, Phase.LAYOFF
_LANE = LANE_MASK


def in_some_meld(hand_mask: int, card: int) -> bool:
    """Whether ``card`` belongs to some meld (a set or a run) of ``hand_mask`` plus ``card``."""
    rank, suit = card % 13, card // 13
    same_rank = 0
    for s in range(4):
        if s != suit:
            same_rank += hand_mask >> (13 * s + rank) & 1
    if same_rank >= 2:
        return True
    lane = (hand_mask >> (13 * suit)) & _LANE | 1 << rank
    # three consecutive ranks of the lane that include ``rank``
    return any(lane >> low & 7 == 7 for low in range(max(rank - 2, 0), min(rank, 10) + 1))


def drawn_card(view: PlayerView) -> int | None:
    """The card the viewer drew this turn (DISCARD phase), from either pile."""
    if view.taken is not None:
        return view.taken
    for event in reversed(view.log):
        if event.seat == view.seat and type(event.action) is DrawStock:
            return event.card
    return None


def used_pairs(view: PlayerView) -> set[int]:
    """The (drawn, discarded) pairs the viewer played this hand, each as a two-card mask."""
    pairs: set[int] = set()
    pile = [view.upcard]
    drawn: int | None = None
    me = view.seat
    for event in view.log:
        action = event.action
        kind = type(action)
        if kind is Discard:
            card = action.card  # type: ignore[union-attr]
            if event.seat == me and drawn is not None:
                pairs.add(1 << drawn | 1 << card)
            pile.append(card)
        elif kind is DrawDiscard:
            card = pile.pop()
            if event.seat == me:
                drawn = card
        elif kind is DrawStock:
            if event.seat == me:
                drawn = event.card
        elif kind is Reshuffle:
            del pile[:-1]
    return pairs


class BeginnerBot:
    """Neller's SimpleGinRummyPlayer (see the module docstring)."""

    name = "beginner"

    def __init__(self, seed: int | None = None, budget_ms: float | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        """Neller's decision for this view."""
        phase = view.phase
        if phase is _LAYOFF:
            return next(a for a in legal if isinstance(a, LayOff))
        hand = view.hand_mask
        if phase is _DRAW or phase is _OFFER:
            top = view.top_discard
            if (top is not None and DRAW_DISCARD in legal and in_some_meld(hand, top)):
                return DRAW_DISCARD
            return PASS if phase is _OFFER else DRAW_STOCK
        discard = self.choose_discard(view, legal)
        rest = hand & ~(1 << discard)
        dw = deadwood_mask(rest)
        if dw <= view.knock_limit:
            arrangements = best_arrangements(rest)
            melds = arrangements[int(self.rng.random() * len(arrangements))].melds
            return Knock(discard, melds, gin=dw == 0)
        return DISCARDS[discard]

    def choose_discard(self, view: PlayerView, legal: Sequence[Action]) -> int:
        """A random least-deadwood discard among the cards the rules above allow."""
        allowed = 0
        for action in legal:
            if type(action) is Discard:
                allowed |= 1 << action.card
        if view.taken is not None:  # never the card just taken, whatever the rules say
            allowed &= ~(1 << view.taken)
        drawn = drawn_card(view)
        options = [(dw, card) for dw, card in discard_deadwoods_mask(view.hand_mask)
                   if allowed >> card & 1]
        if drawn is not None:
            pairs = used_pairs(view)
            fresh = [(dw, card) for dw, card in options
                     if (1 << drawn | 1 << card) not in pairs]
            if fresh:
                options = fresh
        least = min(dw for dw, _ in options)
        candidates = sorted(card for dw, card in options if dw == least)
        return candidates[int(self.rng.random() * len(candidates))]
