"""Least deadwood after each possible discard: the building block of discard decisions."""

from __future__ import annotations

from ginrummy.cards import CARD_VALUES
from ginrummy.solver.knock import collect_discards
from ginrummy.solver.melds import (
    RUN_COVER,
    RUN_DEADWOOD,
    deadwood_mask,
    lanes_and_triples,
    ranks_held,
    run_lanes_by_set_choice,
)

__all__ = ["discard_deadwoods_mask", "least_deadwood_after_discard", "loose_cards_mask"]

_NO_LIMIT = 1 << 30


def _outside_runs(s: int, h: int, d: int, c: int) -> int:
    """The cards of these lanes that no run covers."""
    cover = RUN_COVER
    return (s ^ cover[s]) | (h ^ cover[h]) << 13 | (d ^ cover[d]) << 26 | (c ^ cover[c]) << 39


def discard_deadwoods_mask(mask: int) -> list[tuple[int, int]]:
    """(least deadwood of the rest, card) for every card of ``mask``.

    As in :func:`~ginrummy.solver.knock.knock_options_mask`: every choice of sets of the
    whole hand, and each discard outside those sets, covers every choice of sets of the hand
    less that discard (with no rank held three times there is one choice: no set).
    """
    found: dict[int, int] = {}
    for base, *lanes in run_lanes_by_set_choice(mask, lanes_and_triples(mask)[4]):
        collect_discards(found, base, (lanes[0], lanes[1], lanes[2], lanes[3]), _NO_LIMIT)
    return [(dw, card) for card, dw in found.items()]


def _whole_and_loose(mask: int, triples: int) -> tuple[int, int]:
    """Least deadwood of a hand holding some rank three times, and its loose cards: each
    least-deadwood arrangement is a choice of sets with the runs forced in every lane."""
    best = 1 << 30
    loose = 0
    for base, s, h, d, c in run_lanes_by_set_choice(mask, triples):
        if base <= best:
            free = _outside_runs(s, h, d, c)
            loose = free if base < best else loose | free
            best = base
    return best, loose


def loose_cards_mask(mask: int) -> int:
    """The cards that some least-deadwood arrangement of ``mask`` leaves unmatched.

    A card c is such a card exactly when deadwood(mask - c) == deadwood(mask) - value(c).
    With no rank held three times the runs are forced, so these are the cards outside them.
    """
    s, h, d, c, triples = lanes_and_triples(mask)
    if not triples:
        return _outside_runs(s, h, d, c)
    return _whole_and_loose(mask, triples)[1]


def _top_value(mask: int) -> int:
    """The highest card value in a non-empty mask."""
    return min(ranks_held(mask).bit_length(), 10)


def least_deadwood_after_discard(mask: int, forbidden: int | None = None) -> int:
    """min over the cards d of ``mask`` other than ``forbidden`` of deadwood(mask - d).

    Discarding a loose card (see :func:`loose_cards_mask`) lowers the deadwood by its value
    and discarding any other card by less, so only the highest loose card and the other cards
    worth more than it by two or more need looking at; with no rank held three times the
    latter never lower the deadwood at all.
    """
    s, h, d, c, triples = lanes_and_triples(mask)
    allowed = mask if forbidden is None else mask & ~(1 << forbidden)
    if not triples:
        t = RUN_DEADWOOD
        loose = allowed & _outside_runs(s, h, d, c)
        if loose:
            return t[s] + t[h] + t[d] + t[c] - _top_value(loose)
        return min(dw for dw, card in discard_deadwoods_mask(mask) if card != forbidden)
    whole, loose = _whole_and_loose(mask, triples)
    loose &= allowed
    if loose:
        top = _top_value(loose)
        best = whole - top
    else:
        top = -1
        best = 1 << 30
    rest = allowed & ~loose
    while rest:
        low = rest & -rest
        rest ^= low
        card = low.bit_length() - 1
        if CARD_VALUES[card] > top + 1:
            dw = deadwood_mask(mask ^ low)
            if dw < best:
                best = dw
    return best
