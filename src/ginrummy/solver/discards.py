"""Least deadwood after each possible discard: the building block of discard decisions."""

from __future__ import annotations

from ginrummy.solver.melds import RUN_DEADWOOD, deadwood_mask

__all__ = ["discard_deadwoods_mask"]


def discard_deadwoods_mask(mask: int) -> list[tuple[int, int]]:
    """(least deadwood of the rest, card) for every card of ``mask``, lowest card first.

    With no rank held three times, only the discard's own suit lane changes, so each card
    costs one table lookup; otherwise each costs a full :func:`deadwood_mask`.
    """
    s = mask & 8191
    h = mask >> 13 & 8191
    d = mask >> 26 & 8191
    c = mask >> 39
    out: list[tuple[int, int]] = []
    if not (s & h & (d | c) | d & c & (s | h)):
        t = RUN_DEADWOOD
        whole = t[s] + t[h] + t[d] + t[c]
        for base, lane in ((0, s), (13, h), (26, d), (39, c)):
            others = whole - t[lane]
            rest = lane
            while rest:
                low = rest & -rest
                rest ^= low
                out.append((others + t[lane ^ low], base + low.bit_length() - 1))
        return out
    rest = mask
    while rest:
        low = rest & -rest
        rest ^= low
        out.append((deadwood_mask(mask ^ low), low.bit_length() - 1))
    return out
