"""Layoffs onto the knocker's melds (R4.4, R4.5) and the defender's best defence.

The knocker's melds are indexed 0..m-1 in the order given. ``laid_off`` lists, per knocker
meld, the cards earlier defenders (3-4 player games) already added to it. A defender may add
the fourth card of a set of three and cards extending a run at either end, never onto cards an
earlier defender laid off: an end an earlier defender extended is closed, and so is a set he
completed. With ``layoff_chain`` ``own`` a defender may extend one end with several of his own
consecutive cards (8h then 9h onto 5h 6h 7h); with ``none`` only the card adjacent to each end
of the knocker's own cards.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import product

from ginrummy.cards import CARD_NAMES, LANE
from ginrummy.solver.melds import (
    CardsLike,
    MeldKind,
    best_melds_mask,
    check_card,
    deadwood_mask,
    meld_kind_mask,
    to_mask,
)

__all__ = [
    "Chaining",
    "Defence",
    "LayoffChainLike",
    "LayoffTarget",
    "best_defence",
    "check_layoffs",
    "defence_deadwood_mask",
    "layoff_options_mask",
    "layoff_targets",
]

class Chaining(StrEnum):
    """How far one defender may extend an end of a knocker's run (R4.5). The solver's own
    switch: callers map their rules to it (``Ruleset.layoff_chain`` has the same values)."""

    OWN = "own"
    """Several of his own consecutive cards (8h then 9h onto 5h 6h 7h)."""
    NONE = "none"
    """Only the card adjacent to the knocker's own cards."""
    TWO = "two"
    """At most two cards beyond each end of the knocker's run (OpenSpiel's ``gin_rummy``)."""


LayoffChainLike = Chaining | str
"""A :class:`Chaining` or its value, ``"own"``, ``"none"`` or ``"two"``."""


def _names(cards: Iterable[int]) -> str:
    return " ".join(CARD_NAMES[c] for c in cards)


@dataclass(frozen=True, slots=True)
class LayoffTarget:
    """What a defender may add to knocker meld number ``meld``.

    ``cards``: the knocker's meld (runs by rank, sets by suit); ``laid_off``: what earlier
    defenders added to it; ``fourth``: for a set of three still open, its missing card;
    ``low`` / ``high``: for a run, the cards that may extend its lower / upper end, nearest
    first. A card of ``low`` may be laid off only together with every card before it in
    ``low`` (with ``layoff_chain`` ``none`` these hold one card at most).
    """

    meld: int
    kind: MeldKind
    cards: tuple[int, ...]
    laid_off: tuple[int, ...]
    fourth: int | None
    low: tuple[int, ...]
    high: tuple[int, ...]

    @property
    def adjacent(self) -> tuple[int, ...]:
        """The cards that may be laid off on their own, lowest first."""
        out = [self.fourth] if self.fourth is not None else []
        out += self.low[:1] + self.high[:1]
        return tuple(sorted(out))

    @property
    def mask(self) -> int:
        """Bitmask of every card that may go onto this meld (some only after others)."""
        mask = 0
        for card in (*self.low, *self.high):
            mask |= 1 << card
        if self.fourth is not None:
            mask |= 1 << self.fourth
        return mask

    def describe(self) -> str:
        """``meld 2 (5h 6h 7h)``, numbered from 1 as in the layoff notation ``CARD@N``."""
        return f"meld {self.meld + 1} ({_names(self.cards)})"


@dataclass(frozen=True, slots=True)
class Defence:
    """A defender's answer to a knock: his own ``melds``, ``layoffs`` as (card, knocker meld
    index) pairs in an order they can be laid (each run end nearest card first), and what is
    left: ``unmatched`` (highest rank first) worth ``deadwood``."""

    melds: tuple[tuple[int, ...], ...]
    layoffs: tuple[tuple[int, int], ...]
    unmatched: tuple[int, ...]
    deadwood: int

    def __str__(self) -> str:
        melds = " ".join(f"[{_names(m)}]" for m in self.melds)
        lays = " ".join(f"{CARD_NAMES[c]}>{i}" for c, i in self.layoffs)
        parts = [p for p in (melds, f"lay off {lays}" if lays else "") if p]
        parts.append(f"| {_names(self.unmatched)}".rstrip())
        return f"{' '.join(parts)} ({self.deadwood})"


def _chain(chain: LayoffChainLike) -> Chaining:
    try:
        return Chaining(chain)
    except ValueError:
        raise ValueError(f"layoff chain {chain!r}: expected 'own', 'none' or 'two'") from None


def _table(
    knocker_melds: Sequence[Sequence[int]], laid_off: Sequence[Sequence[int]] | None
) -> tuple[list[tuple[MeldKind, tuple[int, ...]]], list[tuple[int, ...]], int]:
    """Checked knocker melds (kind, sorted cards), earlier layoffs per meld, all table cards."""
    melds: list[tuple[MeldKind, tuple[int, ...]]] = []
    table = 0
    for i, meld in enumerate(knocker_melds):
        own = [check_card(c, f"knocker meld {i}: card") for c in meld]
        mask = to_mask(own)
        kind = meld_kind_mask(mask)
        if kind is None:
            raise ValueError(f"knocker meld {i} ({_names(sorted(own))}) is not a meld")
        if mask & table:
            raise ValueError(f"knocker meld {i} ({_names(sorted(own))}) shares a card with "
                             "an earlier meld")
        table |= mask
        melds.append((kind, tuple(sorted(own, key=_set_order if kind == "set" else None))))
    if laid_off is None:
        return melds, [() for _ in melds], table
    if len(laid_off) != len(melds):
        raise ValueError(f"laid_off lists {len(laid_off)} melds; the knocker laid {len(melds)}")
    laid: list[tuple[int, ...]] = []
    for i, ((kind, cards), extra) in enumerate(zip(melds, laid_off, strict=True)):
        more = [check_card(c, f"laid_off[{i}]: card") for c in extra]
        mask = to_mask(more)
        if mask & table:
            raise ValueError(f"laid_off[{i}]: a card is already on the table")
        whole = to_mask(cards) | mask
        if more and meld_kind_mask(whole) != kind:
            raise ValueError(f"laid_off[{i}] ({_names(more)}) does not extend knocker meld "
                             f"{i} ({_names(cards)})")
        table |= mask
        laid.append(tuple(sorted(more)))
    return melds, laid, table


def _set_order(card: int) -> int:
    return card // LANE


def _reach(kind: MeldKind, cards: Sequence[int], extra: Sequence[int], table: int,
           limit: int) -> tuple[int | None, list[int], list[int]]:
    """What one defender may add to one knocker meld (``cards``: a set, or a run by rank;
    ``extra``: what earlier defenders added; ``table``: every card on the table): a set's
    fourth card, else a run's lower and upper extensions, nearest first, ``limit`` a side."""
    if kind == "set":
        fourth = None
        if len(cards) == 3 and not extra:
            rank = cards[0] % LANE
            fourth = next((rank + LANE * s for s in range(4)
                           if not table >> (rank + LANE * s) & 1), None)
        return fourth, [], []
    base = cards[0] - cards[0] % LANE
    lo = cards[0] % LANE
    hi = cards[-1] % LANE
    low: list[int] = []
    high: list[int] = []
    if not any(c % LANE < lo for c in extra):
        r = lo - 1
        while r >= 0 and len(low) < limit and not table >> (base + r) & 1:
            low.append(base + r)
            r -= 1
    if not any(c % LANE > hi for c in extra):
        r = hi + 1
        while r < LANE and len(high) < limit and not table >> (base + r) & 1:
            high.append(base + r)
            r += 1
    return None, low, high


def _limit(chain: Chaining) -> int:
    """How many cards one defender may add to one end of a run (R4.5)."""
    return 1 if chain is Chaining.NONE else 2 if chain is Chaining.TWO else LANE


def _targets(
    melds: list[tuple[MeldKind, tuple[int, ...]]],
    laid: list[tuple[int, ...]],
    table: int,
    chain: Chaining,
) -> list[LayoffTarget]:
    limit = _limit(chain)
    out: list[LayoffTarget] = []
    for i, ((kind, cards), extra) in enumerate(zip(melds, laid, strict=True)):
        fourth, low, high = _reach(kind, cards, extra, table, limit)
        out.append(LayoffTarget(i, kind, cards, extra, fourth, tuple(low), tuple(high)))
    return out


def layoff_targets(
    knocker_melds: Sequence[Sequence[int]],
    laid_off: Sequence[Sequence[int]] | None = None,
    chain: LayoffChainLike = Chaining.OWN,
) -> list[LayoffTarget]:
    """For each knocker meld, in order, the cards a defender may add to it (R4.4, R4.5)."""
    melds, laid, table = _table(knocker_melds, laid_off)
    return _targets(melds, laid, table, _chain(chain))


def layoff_options_mask(knocker_melds: Sequence[Sequence[int]],
                        chain: Chaining) -> list[list[int]]:
    """:func:`layoff_targets` as card masks, for :func:`defence_deadwood_mask`: per knocker
    meld, every mask of cards one defender may add to it, the empty mask first (a set's fourth
    card; a run's lower and upper extensions, each nearest card first). Unchecked: the melds
    are valid and disjoint. What earlier defenders laid off is left out, and need not be:
    a defender can use only cards that continue the knocker's own from an end, never a card
    next to another defender's, so the masks serve every defender of a hand."""
    table = 0
    for meld in knocker_melds:
        for card in meld:
            table |= 1 << card
    limit = _limit(chain)
    out: list[list[int]] = []
    for meld in knocker_melds:
        if meld[0] // LANE != meld[1] // LANE:  # two suits: a set
            fourth = _reach("set", meld, (), table, limit)[0]
            out.append([0] if fourth is None else [0, 1 << fourth])
            continue
        _, low, high = _reach("run", sorted(meld), (), table, limit)
        lows = [0]
        for card in low:
            lows.append(lows[-1] | 1 << card)
        highs = [0]
        for card in high:
            highs.append(highs[-1] | 1 << card)
        out.append([a | b for a in lows for b in highs])
    return out


def defence_deadwood_mask(hand: int, options: Sequence[Sequence[int]]) -> int:
    """The least deadwood ``hand`` keeps after laying off (``options`` from
    :func:`layoff_options_mask`): :func:`best_defence`'s deadwood, without its layoffs."""
    best = deadwood_mask(hand)
    if not best:
        return 0
    combos = [0]
    for per_meld in options:
        usable = [m for m in per_meld if m & hand == m]
        if len(usable) > 1:
            combos = [c | m for c in combos for m in usable]
    for taken in combos:
        if taken:
            dw = deadwood_mask(hand ^ taken)
            if dw < best:
                best = dw
    return best


def check_layoffs(
    knocker_melds: Sequence[Sequence[int]],
    layoffs: Iterable[tuple[int, int]],
    chain: LayoffChainLike = Chaining.OWN,
    laid_off: Sequence[Sequence[int]] | None = None,
) -> str | None:
    """``None`` if one defender may lay off these (card, knocker meld index) pairs together,
    else a short message saying what is wrong. The order of the pairs does not matter.

    Malformed input (not a card, no such meld, knocker melds that are not melds) raises
    ``ValueError``; that the cards are the defender's own is the caller's to check.
    """
    rule = _chain(chain)
    melds, laid, table = _table(knocker_melds, laid_off)
    targets = _targets(melds, laid, table, rule)
    groups: list[list[int]] = [[] for _ in targets]
    seen = 0
    pairs: list[tuple[int, int]] = []
    for pair in layoffs:
        try:
            card, index = pair
        except (TypeError, ValueError):
            raise ValueError(f"layoff {pair!r}: expected a (card, meld index) pair") from None
        check_card(card, "layoff card")
        if not isinstance(index, int) or isinstance(index, bool) or not (
            0 <= index < len(targets)
        ):
            shown = index + 1 if isinstance(index, int) else index
            raise ValueError(f"layoff {CARD_NAMES[card]}: no knocker meld {shown!r} "
                             f"(the knocker laid {len(targets)})")
        pairs.append((card, index))
    for card, index in sorted(pairs):
        bit = 1 << card
        if table & bit:
            return f"{CARD_NAMES[card]} is already on the table"
        if seen & bit:
            return f"{CARD_NAMES[card]} is laid off twice"
        seen |= bit
        groups[index].append(card)
    for target, group in zip(targets, groups, strict=True):
        if group:
            problem = _check_one(target, group, rule)
            if problem:
                return problem
    return None


def _check_one(target: LayoffTarget, group: list[int], rule: Chaining) -> str | None:
    desc = target.describe()
    first = target.cards[0]
    if target.kind == "set":
        for card in group:
            if card % LANE != first % LANE:
                return f"{CARD_NAMES[card]} cannot go on {desc}: a set takes only its rank"
        card = group[0]
        if target.fourth is None:
            if len(target.cards) == 4:
                return f"{CARD_NAMES[card]} cannot go on {desc}: the set has four cards already"
            return (f"{CARD_NAMES[card]} cannot go on {desc}: an earlier defender completed "
                    "the set")
        return None
    lo = first % LANE
    hi = target.cards[-1] % LANE
    for card in group:
        if card // LANE != first // LANE:
            return f"{CARD_NAMES[card]} cannot extend {desc}: not of its suit"
    below = sorted((c for c in group if c % LANE < lo), reverse=True)
    above = sorted(c for c in group if c % LANE > hi)
    for side, allowed, closed in (
        (below, target.low, any(c % LANE < lo for c in target.laid_off)),
        (above, target.high, any(c % LANE > hi for c in target.laid_off)),
    ):
        if not side:
            continue
        if closed:
            return (f"{CARD_NAMES[side[0]]} cannot extend {desc}: an earlier defender already "
                    "extended that end")
        k = 0
        while k < len(side) and k < len(allowed) and side[k] == allowed[k]:
            k += 1
        if k < len(side):
            card = side[k]
            if (card % LANE == 0 and hi == LANE - 1) or (card % LANE == LANE - 1 and lo == 0):
                return f"{CARD_NAMES[card]} cannot extend {desc}: runs never wrap"
            gap = abs(card % LANE - (lo if side is below else hi))
            if rule is Chaining.TWO and k == len(allowed) == 2 and gap == 3:
                return (f"{CARD_NAMES[card]} cannot extend {desc}: at most two cards beyond "
                        "each end of the knocker's run (layoff chain 'two')")
            if rule is Chaining.NONE and k == len(allowed) == 1 and gap == 2:
                return (f"{CARD_NAMES[card]} cannot extend {desc}: only a card adjacent to the "
                        "knocker's own cards may be laid off (layoff chain 'none')")
            return f"{CARD_NAMES[card]} cannot extend {desc}: it must be adjacent"
    return None


def best_defence(
    hand: CardsLike,
    knocker_melds: Sequence[Sequence[int]],
    chain: LayoffChainLike = Chaining.OWN,
    laid_off: Sequence[Sequence[int]] | None = None,
) -> Defence:
    """The defender's own melds and layoffs leaving him the least deadwood (R4.4).

    Every legal combination of layoffs is tried (a card that fits two knocker melds is tried
    on each), the rest of the hand arranged at its best. Among equal deadwood the first found
    wins, in lexicographic order of the number of cards laid off on meld 0, on meld 1, ...:
    with no gain, nothing is laid off.
    """
    mask = to_mask(hand)
    melds, laid, table = _table(knocker_melds, laid_off)
    if mask & table:
        card = (mask & table & -(mask & table)).bit_length() - 1
        raise ValueError(f"{CARD_NAMES[card]} is both in the hand and on the table")
    targets = _targets(melds, laid, table, _chain(chain))
    per_meld: list[list[tuple[int, tuple[tuple[int, int], ...]]]] = []
    for target in targets:
        i = target.meld
        if target.kind == "set":
            if target.fourth is not None and mask >> target.fourth & 1:
                per_meld.append([(0, ()), (1 << target.fourth, ((target.fourth, i),))])
            continue
        ends: list[list[tuple[int, tuple[tuple[int, int], ...]]]] = []
        for side in (target.low, target.high):
            options: list[tuple[int, tuple[tuple[int, int], ...]]] = [(0, ())]
            taken = 0
            pairs: tuple[tuple[int, int], ...] = ()
            for card in side:
                if not mask >> card & 1:
                    break
                taken |= 1 << card
                pairs += ((card, i),)
                options.append((taken, pairs))
            ends.append(options)
        if len(ends[0]) > 1 or len(ends[1]) > 1:
            per_meld.append([(lm | hm, lp + hp) for lm, lp in ends[0] for hm, hp in ends[1]])
    best_dw = deadwood_mask(mask)
    best_taken = 0
    best_pairs: tuple[tuple[int, int], ...] = ()
    for combo in product(*per_meld):
        taken = 0
        clash = False
        for part, _ in combo:
            if taken & part:
                clash = True
                break
            taken |= part
        if clash or not taken:
            continue
        dw = deadwood_mask(mask ^ taken)
        if dw < best_dw:
            best_dw = dw
            best_taken = taken
            best_pairs = tuple(p for _, ps in combo for p in ps)
    arrangement = best_melds_mask(mask ^ best_taken)
    return Defence(arrangement.melds, best_pairs, arrangement.unmatched, arrangement.deadwood)
