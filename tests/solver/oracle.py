"""A brute-force oracle for the solver, written independently of it.

Cards are ints 0-51 (suit * 13 + rank, ace = rank 0). The oracle enumerates every collection
of disjoint melds by recursion on the lowest remaining card: that card is either deadwood or
in one meld made of it and higher cards (a run starting at it, or a set with cards of higher
suits). Results are memoised per remaining mask, so all partitions are covered but each
sub-hand is solved once. It knows nothing of lanes, tables or maximal blocks.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations, pairwise, product


def value(card: int) -> int:
    """R1.2: ace 1, 2-9 face value, ten and courts 10."""
    return min(card % 13 + 1, 10)


def mask_of(cards: Iterable[int]) -> int:
    out = 0
    for card in cards:
        out |= 1 << card
    return out


def cards_in(mask: int) -> list[int]:
    return [c for c in range(52) if mask >> c & 1]


def is_run(cards: Iterable[int]) -> bool:
    cs = sorted(cards)
    return (len(cs) >= 3 and len({c // 13 for c in cs}) == 1
            and all(b == a + 1 for a, b in pairwise(cs)))


def is_set(cards: Iterable[int]) -> bool:
    cs = list(cards)
    return 3 <= len(cs) <= 4 and len(set(cs)) == len(cs) and len({c % 13 for c in cs}) == 1


def melds_with_lowest(card: int, avail: int) -> list[int]:
    """Every meld of cards of ``avail`` whose lowest card index is ``card``."""
    rank, suit = card % 13, card // 13
    out: list[int] = []
    run = 1 << card
    r = rank
    while r + 1 < 13 and avail >> (card + r + 1 - rank) & 1:
        r += 1
        run |= 1 << (card + r - rank)
        if r - rank >= 2:
            out.append(run)
    others = [rank + 13 * s for s in range(suit + 1, 4) if avail >> (rank + 13 * s) & 1]
    for size in (2, 3):
        for group in combinations(others, size):
            out.append((1 << card) | mask_of(group))
    return out


def min_deadwood(mask: int, memo: dict[int, int] | None = None) -> int:
    """Least deadwood over all collections of disjoint melds."""
    if memo is None:
        memo = {}
    return _min(mask, memo)


def _min(mask: int, memo: dict[int, int]) -> int:
    if not mask:
        return 0
    got = memo.get(mask)
    if got is not None:
        return got
    low = mask & -mask
    card = low.bit_length() - 1
    best = _min(mask ^ low, memo) + value(card)
    for meld in melds_with_lowest(card, mask):
        v = _min(mask ^ meld, memo)
        if v < best:
            best = v
    memo[mask] = best
    return best


Partition = tuple[int, ...]  # meld masks


def all_minimal(mask: int) -> tuple[int, list[Partition]]:
    """The least deadwood and every collection of melds reaching it (long runs also split)."""
    memo: dict[int, tuple[int, list[Partition]]] = {}

    def go(m: int) -> tuple[int, list[Partition]]:
        if not m:
            return 0, [()]
        got = memo.get(m)
        if got is not None:
            return got
        low = m & -m
        card = low.bit_length() - 1
        v, parts = go(m ^ low)
        best = v + value(card)
        found = list(parts)
        for meld in melds_with_lowest(card, m):
            v, parts = go(m ^ meld)
            if v < best:
                best = v
                found = [(meld, *p) for p in parts]
            elif v == best:
                found += [(meld, *p) for p in parts]
        memo[m] = (best, found)
        return best, found

    return go(mask)


def normalise(melds: Iterable[int]) -> frozenset[int]:
    """Meld masks with adjacent runs of one suit merged, so that a run of six split as two
    runs of three compares equal to the run of six."""
    runs = sorted(m for m in melds if is_run(cards_in(m)))
    sets = [m for m in melds if not is_run(cards_in(m))]
    merged: list[int] = []
    for run in runs:
        lowest = (run & -run).bit_length() - 1
        if merged:
            prev = merged[-1]
            top = prev.bit_length() - 1
            if top + 1 == lowest and top // 13 == lowest // 13:
                merged[-1] = prev | run
                continue
        merged.append(run)
    return frozenset(merged + sets)


def minimal_arrangements(mask: int) -> tuple[int, set[frozenset[int]]]:
    best, parts = all_minimal(mask)
    return best, {normalise(p) for p in parts}


# --------------------------------------------------------------------------- layoffs


def can_lay_off(
    knocker_melds: list[list[int]],
    laid_off: list[list[int]],
    assignment: dict[int, int],
    chain: str,
) -> bool:
    """Whether one defender may add ``assignment`` (card -> knocker meld index), simulating
    the cards going down one at a time in any workable order."""
    table = mask_of(c for m in knocker_melds for c in m) | mask_of(
        c for m in laid_off for c in m)
    if any(table >> c & 1 for c in assignment):
        return False
    for i, meld in enumerate(knocker_melds):
        mine = sorted(c for c, j in assignment.items() if j == i)
        if not mine:
            continue
        earlier = laid_off[i]
        if is_set(meld):
            if len(meld) != 3 or earlier or len(mine) != 1 or mine[0] % 13 != meld[0] % 13:
                return False
            continue
        suit = meld[0] // 13
        ranks = sorted(c % 13 for c in meld)
        lo, hi = ranks[0], ranks[-1]
        low_closed = any(c % 13 < lo for c in earlier)
        high_closed = any(c % 13 > hi for c in earlier)
        pending = set(mine)
        cur_lo, cur_hi = lo, hi
        progress = True
        while pending and progress:
            progress = False
            for c in sorted(pending):
                if c // 13 != suit:
                    return False
                r = c % 13
                if r == cur_lo - 1 and not low_closed and (chain == "own" or cur_lo == lo):
                    cur_lo = r
                elif r == cur_hi + 1 and not high_closed and (chain == "own" or cur_hi == hi):
                    cur_hi = r
                else:
                    continue
                pending.discard(c)
                progress = True
        if pending:
            return False
    return True


def possible_targets(card: int, knocker_melds: list[list[int]]) -> list[int]:
    """Knocker melds a card could conceivably go onto (same rank as a set, suit of a run)."""
    out = []
    for i, meld in enumerate(knocker_melds):
        if is_set(meld):
            if card % 13 == meld[0] % 13:
                out.append(i)
        elif card // 13 == meld[0] // 13:
            out.append(i)
    return out


def best_defence_deadwood(
    hand: int,
    knocker_melds: list[list[int]],
    laid_off: list[list[int]],
    chain: str,
) -> int:
    """Least deadwood over every subset of the hand laid off onto every assignment."""
    cands = [c for c in cards_in(hand) if possible_targets(c, knocker_melds)]
    best = min_deadwood(hand)
    memo: dict[int, int] = {}
    for size in range(1, len(cands) + 1):
        for subset in combinations(cands, size):
            options = [possible_targets(c, knocker_melds) for c in subset]
            for choice in product(*options):
                assignment = dict(zip(subset, choice, strict=True))
                if can_lay_off(knocker_melds, laid_off, assignment, chain):
                    v = _min(hand & ~mask_of(subset), memo)
                    if v < best:
                        best = v
    return best
