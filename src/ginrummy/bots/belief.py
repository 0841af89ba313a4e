"""A per-card belief about the opponents' hands, and sampled deals consistent with it.

Built from a seat's view only (through :mod:`ginrummy.bots.tracking`): for each opponent, the
probability that each unseen card is one of its unknown cards.

The model starts uniform (the opponent's unknown card count over the unseen count) and
multiplies a weight per card for what the opponent did this hand:

- a card it took from the discard pile: cards that would meld with it (same rank, or same
  suit within two ranks) are more likely held (it took the card to meld it);
- a face-up card it declined, or a card it discarded: cards that would meld with that card are
  less likely held (it would have kept or taken the card otherwise);

then rescales the weights so that the probabilities (capped at 1) add up to the number of
cards it holds that the viewer cannot name. Cards known to be held (taken from the pile and
not discarded since, or every card once the hands are shown) are certain.

:meth:`Belief.sample` draws a *determinization*: each opponent's unknown cards drawn by
weight without replacement (Efraimidis-Spirakis keys), opponents in turn order, and the cards
left over as the stock in a random order; by default an opponent's hand is *organized* (the
best of a few extra candidates, see :meth:`Belief.sample`), as a player keeps what melds.
3-4 player games use the same scheme per opponent.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ginrummy.bots.tracking import CardTracker, track
from ginrummy.cards import CARD_VALUES
from ginrummy.solver.discards import discard_deadwoods_mask
from ginrummy.views import PlayerView

__all__ = [
    "DECLINE_FACTOR",
    "DISCARD_FACTOR",
    "TAKE_FACTOR",
    "Belief",
    "World",
    "belief_of",
    "meld_partners",
]

TAKE_FACTOR = (4.0, 2.0)
"""Weight multipliers of a card melding with a card the opponent took: (same rank or a suit
neighbour one rank away, a suit neighbour two ranks away)."""
DECLINE_FACTOR = (0.55, 0.8)
"""The same for a face-up card it declined."""
DISCARD_FACTOR = (0.45, 0.75)
"""The same for a card it discarded."""
ORGANIZED_EXTRA = 3
"""At most this many extra candidate cards per opponent in an organized sample."""


def _partner_tables() -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Per card: the mask of cards one step from melding with it (same rank, suit +-1), and
    of suit neighbours two ranks away."""
    near: list[int] = []
    far: list[int] = []
    for card in range(52):
        suit, rank = divmod(card, 13)
        n = 0
        for s in range(4):
            if s != suit:
                n |= 1 << (s * 13 + rank)
        f = 0
        for step in (-1, 1):
            if 0 <= rank + step < 13:
                n |= 1 << (card + step)
            if 0 <= rank + 2 * step < 13:
                f |= 1 << (card + 2 * step)
        near.append(n)
        far.append(f)
    return tuple(near), tuple(far)


NEAR_PARTNERS, FAR_PARTNERS = _partner_tables()


def meld_partners(card: int) -> int:
    """The mask of the cards that could form a meld with ``card`` (same rank, or same suit
    within two ranks)."""
    return NEAR_PARTNERS[card] | FAR_PARTNERS[card]


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _worst_card(whole: int, among: int) -> int:
    """The card of ``among`` whose loss leaves ``whole`` the least deadwood (ties: the
    higher card)."""
    best = (1 << 30, 0, 0)
    for dw, card in discard_deadwoods_mask(whole):
        if among >> card & 1:
            key = (dw, -CARD_VALUES[card], -card)
            if key < best:
                best = key
    return -best[2]


def _scale(weights: dict[int, float], count: int) -> dict[int, float]:
    """Probabilities proportional to ``weights``, capped at 1, adding up to ``count``."""
    if count <= 0 or not weights:
        return dict.fromkeys(weights, 0.0)
    if count >= len(weights):
        return dict.fromkeys(weights, 1.0)
    fixed: dict[int, float] = {}
    free = dict(weights)
    left = float(count)
    while True:
        total = sum(free.values())
        factor = left / total if total > 0 else 0.0
        capped = [c for c, w in free.items() if w * factor >= 1.0]
        if not capped:
            return fixed | {c: w * factor for c, w in free.items()}
        for c in capped:
            fixed[c] = 1.0
            del free[c]
            left -= 1.0


@dataclass(frozen=True)
class World:
    """One determinization: every seat's hand (bitmasks) and the stock, top card last."""

    hands: tuple[int, ...]
    stock: tuple[int, ...]


@dataclass(frozen=True)
class Belief:
    """The viewer's belief about the other seats' hands (see the module docstring)."""

    tracker: CardTracker
    weights: tuple[dict[int, float], ...]
    """Per seat: unseen card -> relative weight (empty for the viewer)."""
    probabilities: tuple[dict[int, float], ...]
    """Per seat: unseen card -> probability it is one of that seat's unknown cards."""

    @property
    def seat(self) -> int:
        """The viewer."""
        return self.tracker.seat

    def probability(self, seat: int, card: int) -> float:
        """The probability that ``seat`` holds ``card`` (1 for known held cards)."""
        if self.tracker.held_known[seat] >> card & 1:
            return 1.0
        return self.probabilities[seat].get(card, 0.0)

    def expected_count(self, seat: int) -> float:
        """The expected number of cards ``seat`` holds (its count, by construction)."""
        return self.tracker.held_known[seat].bit_count() + sum(self.probabilities[seat].values())

    def held_probability_mask(self, seat: int, threshold: float) -> int:
        """The cards ``seat`` holds with probability at least ``threshold``."""
        mask = self.tracker.held_known[seat]
        for card, p in self.probabilities[seat].items():
            if p >= threshold:
                mask |= 1 << card
        return mask

    def sample(self, rng: random.Random, organized: bool = True) -> World:
        """A deal consistent with the view, opponents' cards drawn by weight.

        With ``organized`` an opponent that drew ``k`` cards from the stock this hand gets
        the best of ``k`` (at most ``ORGANIZED_EXTRA``) more candidate cards: its unknown
        cards plus those extras are drawn by weight, then the extras are dropped one by one,
        each time the card whose loss leaves the least deadwood (a player keeps what melds
        and throws away the rest, so its hand is better than a random one).
        """
        t = self.tracker
        pool = _bits(t.unseen)
        hands = list(t.held_known)
        hands[t.seat] = t.hand
        random_ = rng.random
        for seat in t.opponents:
            need = t.unknown_count(seat)
            if need <= 0:
                continue
            extra = min(t.stock_draws[seat], ORGANIZED_EXTRA, len(pool) - need) if organized \
                else 0
            w = self.weights[seat]
            keyed = []
            for card in pool:
                weight = w.get(card, 1.0)
                keyed.append((random_() ** (1.0 / weight) if weight > 0 else 0.0, card))
            keyed.sort(reverse=True)
            chosen = 0
            for _, card in keyed[:need + max(extra, 0)]:
                chosen |= 1 << card
            known = hands[seat]
            for _ in range(max(extra, 0)):
                chosen &= ~(1 << _worst_card(known | chosen, chosen))
            hands[seat] |= chosen
            pool = [c for c in pool if not chosen >> c & 1]
        rng.shuffle(pool)  # the stock's order is unknown: never the cards' own order
        return World(tuple(hands), tuple(pool))


def _opponent_weights(t: CardTracker, seat: int) -> dict[int, float]:
    """Relative weights of the unseen cards for one opponent, from its actions this hand."""
    unseen = t.unseen
    weights = dict.fromkeys(_bits(unseen), 1.0)
    for mask, (near_f, far_f) in ((t.taken[seat], TAKE_FACTOR),
                                  (t.declined[seat] & ~t.taken[seat], DECLINE_FACTOR),
                                  (t.discarded[seat], DISCARD_FACTOR)):
        for card in _bits(mask):
            for partner in _bits(NEAR_PARTNERS[card] & unseen):
                weights[partner] *= near_f
            for partner in _bits(FAR_PARTNERS[card] & unseen):
                weights[partner] *= far_f
    return weights


def belief_of(view: PlayerView, tracker: CardTracker | None = None) -> Belief:
    """The belief of ``view.seat`` about the other seats (``ValueError`` for a spectator)."""
    t = tracker if tracker is not None else track(view)
    weights: list[dict[int, float]] = []
    probabilities: list[dict[int, float]] = []
    for seat in range(t.players):
        if seat == t.seat:
            weights.append({})
            probabilities.append({})
            continue
        w = _opponent_weights(t, seat)
        weights.append(w)
        probabilities.append(_scale(w, t.unknown_count(seat)))
    return Belief(t, tuple(weights), tuple(probabilities))
