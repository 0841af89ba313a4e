"""The information state of a seat as a history encoding (docs/env.md, "The information
state"): everything the seat has seen in the current hand, in order, as rows of four
integers. Unlike the compact observation (:mod:`ginrummy.env.observation`), which keeps only
what is on the table now, two different information states of a seat never give the same
rows (``tests/env/test_env_history.py`` searches for collisions).

Built from the seat's view (:func:`ginrummy.views.view`) and nothing else. Rows
``(kind, a, b, c)``:

==========  ==========================================================================
kind        row
==========  ==========================================================================
0 header    ``(0, seat, dealer, players)``
1 match     ``(1, hand number, seat, its match score)`` for each seat (a match only)
2 dealt     ``(2, card, 0, 0)`` for each card dealt to the seat, lowest first
3 upcard    ``(3, card, 0, 0)``
4 move      ``(4, seat that moved, action id (docs/env.md), card)``: ``card`` is the card a
            stock draw gave the viewing seat, the card taken from the pile, or -1
5 meld      ``(5, seat, low 26 bits, high 26 bits)`` of one meld laid down with the move
            before it (a knock, or a defender's own meld)
6 layoff    ``(6, seat, card, knocker's meld index)`` for each card laid off
7 reshuffle ``(7, -1, -1, -1)``: a new stock nobody saw
==========  ==========================================================================
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ginrummy.actions import Action, Discard, DrawDiscard, DrawStock, Knock, LayOff, Reshuffle
from ginrummy.cards import cards_of
from ginrummy.env.actions import encode
from ginrummy.views import PlayerView

__all__ = ["DEALT", "HEADER", "LAYOFF", "MATCH", "MELD", "MOVE", "RESHUFFLE", "UPCARD",
           "dealt_cards", "encode_history"]

HEADER, MATCH, DEALT, UPCARD, MOVE, MELD, LAYOFF, RESHUFFLE = range(8)
_LOW = (1 << 26) - 1


def _put_down(action: Action) -> int | None:
    """The card an action puts on the discard pile, if any."""
    if isinstance(action, Discard):
        return action.card
    if isinstance(action, Knock):
        return action.discard
    return None


def _meld_row(seat: int, meld: tuple[int, ...]) -> tuple[int, int, int, int]:
    mask = 0
    for card in meld:
        mask |= 1 << card
    return (MELD, seat, mask & _LOW, mask >> 26)


def dealt_cards(seen: PlayerView) -> list[int]:
    """The cards dealt to the view's seat, found from its cards now and its own log."""
    assert seen.seat is not None
    me = seen.seat
    pile = [seen.upcard]
    gained: list[int] = []  # what each of my moves added (a card) or removed (~card)
    for event in seen.log:
        action = event.action
        if isinstance(action, Reshuffle):
            pile = pile[-1:]
        elif isinstance(action, DrawDiscard):
            card = pile.pop()
            if event.seat == me:
                gained.append(card)
        elif isinstance(action, DrawStock):
            if event.seat == me and event.card is not None:
                gained.append(event.card)
        else:
            put = _put_down(action)
            if put is not None:
                pile.append(put)
                if event.seat == me:
                    gained.append(~put)
    held = set(cards_of(seen.hand_mask))
    for step in reversed(gained):
        if step >= 0:
            held.discard(step)
        else:
            held.add(~step)
    return sorted(held)


def encode_history(seen: PlayerView) -> npt.NDArray[np.int64]:
    """The seat's information state as an ``(n, 4)`` int64 array (rows above)."""
    if seen.seat is None:
        raise ValueError("a spectator's view has no information state of a seat")
    me = seen.seat
    rows: list[tuple[int, int, int, int]] = [(HEADER, me, seen.dealer, seen.rules.players)]
    if seen.scores is not None:
        for seat, score in enumerate(seen.scores):
            rows.append((MATCH, seen.hand_number, seat, score))
    rows += [(DEALT, card, 0, 0) for card in dealt_cards(seen)]
    rows.append((UPCARD, seen.upcard, 0, 0))
    pile = [seen.upcard]
    for event in seen.log:
        action = event.action
        if isinstance(action, Reshuffle):
            pile = pile[-1:]
            rows.append((RESHUFFLE, -1, -1, -1))
            continue
        card = -1
        if isinstance(action, DrawDiscard):
            card = pile.pop()
        elif isinstance(action, DrawStock):
            card = -1 if event.card is None else event.card
        else:
            put = _put_down(action)
            if put is not None:
                pile.append(put)
        rows.append((MOVE, event.seat, encode(action), card))
        if isinstance(action, Knock | LayOff):
            rows += [_meld_row(event.seat, meld) for meld in action.melds]
        if isinstance(action, LayOff):
            rows += [(LAYOFF, event.seat, c, i) for c, i in action.layoffs]
    return np.array(rows, dtype=np.int64)
