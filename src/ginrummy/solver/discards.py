"""Least deadwood after each possible discard: the building block of discard decisions."""

from __future__ import annotations

from itertools import product

from ginrummy.solver.melds import RUN_DEADWOOD, _set_removals

__all__ = ["discard_deadwoods_mask"]

_NO_LIMIT = 1 << 30


def discard_deadwoods_mask(mask: int) -> list[tuple[int, int]]:
    """(least deadwood of the rest, card) for every card of ``mask``.

    As in :func:`~ginrummy.solver.knock.knock_options_mask`: every choice of sets of the
    whole hand, and each discard outside those sets, covers every choice of sets of the hand
    less that discard; without a rank held three times only the discard's lane changes.
    """
    s = mask & 8191
    h = mask >> 13 & 8191
    d = mask >> 26 & 8191
    c = mask >> 39
    triples = s & h & (d | c) | d & c & (s | h)
    t = RUN_DEADWOOD
    if not triples:
        whole = t[s] + t[h] + t[d] + t[c]
        out: list[tuple[int, int]] = []
        for base, lane in ((0, s), (13, h), (26, d), (39, c)):
            others = whole - t[lane]
            rest = lane
            while rest:
                low = rest & -rest
                rest ^= low
                out.append((others + t[lane ^ low], base + low.bit_length() - 1))
        return out
    found: dict[int, int] = {}
    get = found.get
    for combo in product(*_set_removals(mask, triples)):
        m = mask ^ sum(combo)
        lanes = (m & 8191, m >> 13 & 8191, m >> 26 & 8191, m >> 39)
        base = t[lanes[0]] + t[lanes[1]] + t[lanes[2]] + t[lanes[3]]
        for offset, lane in zip((0, 13, 26, 39), lanes, strict=True):
            others = base - t[lane]
            rest = lane
            while rest:
                low = rest & -rest
                rest ^= low
                dw = others + t[lane ^ low]
                card = offset + low.bit_length() - 1
                if dw < get(card, _NO_LIMIT):
                    found[card] = dw
    return [(dw, card) for card, dw in found.items()]
