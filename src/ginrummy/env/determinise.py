"""Determinisation for ISMCTS and other searches (docs/env.md): from one seat's view, a full
engine :class:`~ginrummy.engine.Hand` that the seat cannot tell from the real one.

The other seats' unseen cards are drawn uniformly from every card the seat has not seen, the
stock order shuffled, and the past made consistent with them: each card another seat
discarded without having taken it from the pile came from his deal or from one of his stock
draws before that discard (assigned earliest deadline first). The sampled hand is built from a
deck and replays the seat's log move by move, so the engine itself checks that every move was
legal in it. For 2-4 players, any rules, before a knock and before any reshuffle (R4.7: the
order of a reshuffled stock would need its own sampling); other positions raise
``ValueError``. Built from the view alone: nothing hidden from the seat is read.
"""

from __future__ import annotations

import random

from ginrummy.actions import Discard, DrawDiscard, DrawStock, Knock, Reshuffle
from ginrummy.cards import cards_of
from ginrummy.engine import Hand
from ginrummy.env.history import dealt_cards
from ginrummy.views import PlayerView

__all__ = ["determinise"]


def determinise(seen: PlayerView, rng: random.Random) -> Hand:
    """A hand consistent with everything ``seen`` (one seat's view) shows."""
    if seen.seat is None:
        raise ValueError("a spectator's view cannot be determinised for a seat")
    if seen.knock is not None or seen.result is not None:
        raise ValueError("after a knock every hand is shown (R4.8): nothing to determinise")
    if seen.reshuffles:
        raise ValueError("determinisation after a reshuffle (R4.7) is not supported")
    me, rules = seen.seat, seen.rules
    n, size = rules.players, rules.cards_per_hand
    pile = [seen.upcard]
    known = [0] * n
    deadline: list[dict[int, int]] = [{} for _ in range(n)]
    draws: list[list[int]] = [[] for _ in range(n)]
    stock_order: list[int | None] = []  # each stock draw in turn: its card, None if unseen
    for event in seen.log:
        action, seat = event.action, event.seat
        if isinstance(action, Reshuffle):  # pragma: no cover - refused above
            raise ValueError("determinisation after a reshuffle is not supported")
        if isinstance(action, DrawDiscard):
            known[seat] |= 1 << pile.pop()
        elif isinstance(action, DrawStock):
            stock_order.append(event.card if seat == me else None)
            if seat != me:
                draws[seat].append(len(stock_order) - 1)
        elif isinstance(action, Discard | Knock):
            put = action.card if isinstance(action, Discard) else action.discard
            if put is None:
                continue
            if seat != me and not known[seat] >> put & 1:
                deadline[seat][put] = len(stock_order)
            known[seat] &= ~(1 << put)
            pile.append(put)
    seen_mask = seen.hand_mask
    for card in pile:
        seen_mask |= 1 << card
    for mask in known:
        seen_mask |= mask
    unseen = [c for c in range(52) if not seen_mask >> c & 1]
    rng.shuffle(unseen)
    initial: dict[int, list[int]] = {me: dealt_cards(seen)}
    drawn: dict[int, int] = {}  # position in stock_order -> card
    for seat in range(n):
        if seat == me:
            continue
        hidden = seen.counts[seat] - known[seat].bit_count()
        sample, unseen = unseen[:hidden], unseen[hidden:]
        order = sorted(deadline[seat], key=deadline[seat].__getitem__) + sample
        initial[seat] = order[:size]
        for position, card in zip(draws[seat], order[size:], strict=True):
            if deadline[seat].get(card, len(stock_order) + 1) <= position:
                raise AssertionError("no consistent past found; please report this view")
            drawn[position] = card
    stock = [card if card is not None else drawn[i] for i, card in enumerate(stock_order)]
    deck = [initial[(seen.dealer + 1 + i) % n][i // n] for i in range(n * size)]
    deck += [seen.upcard, *stock, *unseen]
    hand = Hand(rules, seen.dealer, deck)
    for event in seen.log:
        hand.apply(event.action)
    assert cards_of(hand.hands[me]) == cards_of(seen.hand_mask)
    return hand
