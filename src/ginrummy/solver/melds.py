"""Melds and least deadwood (R1.3, R1.4) on card bitmasks.

The solver rests on one observation. Once the cards that go into sets are taken out, runs live
inside one suit's 13-bit lane, and every maximal block of three or more consecutive ranks is
melded whole (every card is worth at least 1, so leaving one out never pays), while shorter
blocks cannot be melded at all. So the deadwood of a lane by runs alone is a table lookup
(:data:`RUN_DEADWOOD`, 8192 entries). Sets only matter for ranks of which the hand holds three
or four cards; for each such rank the choices are: no set, the full set, or (with four) one of
the four triples, leaving the fourth card free for a run. With no such rank the deadwood is
four lookups.

An :class:`Arrangement` reports each run as its maximal block (a run of six is one meld, not
two runs of three). :func:`best_arrangements` lists each way of reaching the least deadwood that
differs in which cards form sets, runs or deadwood, never the mere splits of a long run.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import product
from typing import Literal

from ginrummy.cards import (
    CARD_NAMES,
    FULL_DECK_MASK,
    LANE,
    LANE_MASK,
    NUM_CARDS,
    CardSet,
    card_name,
)

__all__ = [
    "RUN_COVER",
    "RUN_DEADWOOD",
    "Arrangement",
    "CardsLike",
    "MeldKind",
    "arrangement_from_melds",
    "best_arrangements",
    "best_melds",
    "deadwood",
    "deadwood_mask",
    "is_meld",
    "lanes_and_triples",
    "meld_kind",
    "meld_kind_mask",
    "ranks_held",
    "run_deadwood",
    "to_mask",
]

CardsLike = CardSet | int | Iterable[int]
"""What the public functions accept as cards: a CardSet, an int bitmask, or card ints."""

MeldKind = Literal["set", "run"]

_RANK_VALUES = tuple(min(r + 1, 10) for r in range(LANE))
_NO_DEADWOOD = 1 << 30


def _build_tables() -> tuple[list[int], list[int], list[int], list[int]]:
    """Per 13-bit lane: deadwood by runs alone, the cards the runs cover, the total value, and
    the least run deadwood left after removing one card of the lane (0 for an empty lane)."""
    size = 1 << LANE
    cover = [0] * size
    dead = [0] * size
    value = [0] * size
    for lane in range(size):
        starts = lane & lane >> 1 & lane >> 2
        covered = starts | starts << 1 | starts << 2
        cover[lane] = covered
        dw = 0
        total = 0
        for r in range(LANE):
            if lane >> r & 1:
                total += _RANK_VALUES[r]
                if not covered >> r & 1:
                    dw += _RANK_VALUES[r]
        dead[lane] = dw
        value[lane] = total
    min_after = [0] * size
    for lane in range(1, size):
        best = _NO_DEADWOOD
        rest = lane
        while rest:
            low = rest & -rest
            rest ^= low
            v = dead[lane ^ low]
            if v < best:
                best = v
        min_after[lane] = best
    return dead, cover, value, min_after


RUN_DEADWOOD, RUN_COVER, LANE_VALUE, _MIN_AFTER_DISCARD = _build_tables()
"""``RUN_DEADWOOD[lane]``: deadwood of one suit's cards when only runs are allowed;
``RUN_COVER[lane]``: the ranks those runs cover; ``LANE_VALUE[lane]``: value of all of them."""

# Largest drop in a lane's run deadwood from discarding one of its cards (0 for empty lanes).
LANE_DISCARD_GAIN: list[int] = [
    RUN_DEADWOOD[lane] - _MIN_AFTER_DISCARD[lane] if lane else -_NO_DEADWOOD
    for lane in range(1 << LANE)
]


def lanes_and_triples(mask: int) -> tuple[int, int, int, int, int]:
    """The four 13-bit suit lanes of ``mask`` (spades, hearts, diamonds, clubs), then the
    lane bits of the ranks it holds three or four times: the only ranks whose sets matter."""
    lane = LANE_MASK
    s = mask & lane
    h = mask >> 13 & lane
    d = mask >> 26 & lane
    c = mask >> 39
    return s, h, d, c, s & h & (d | c) | d & c & (s | h)


def ranks_held(mask: int) -> int:
    """The lane bits of the ranks of which ``mask`` holds at least one card."""
    return (mask | mask >> 13 | mask >> 26 | mask >> 39) & LANE_MASK


# --------------------------------------------------------------------------- input


_BIT_OF = {card: 1 << card for card in range(NUM_CARDS)}
_bit_of = _BIT_OF.__getitem__


def to_mask(cards: CardsLike) -> int:
    """The bitmask of ``cards`` (a CardSet, an int bitmask or card ints); ``ValueError`` on a
    value that is not a card, a repeated card or a mask outside the deck."""
    if isinstance(cards, (list, tuple, set, frozenset)):
        try:
            mask: int = sum(map(_bit_of, cards))
        except (KeyError, TypeError):
            return _to_mask_checked(cards)
        if mask.bit_count() == len(cards):
            return mask
        return _to_mask_checked(cards)
    if isinstance(cards, int):
        if 0 <= cards <= FULL_DECK_MASK and not isinstance(cards, bool):
            return cards
        raise ValueError(f"not a card mask: {cards!r}")
    if isinstance(cards, CardSet):
        return cards.mask
    if isinstance(cards, (str, bytes)):
        raise TypeError("cards must be card ints, a CardSet or a mask; parse text with "
                        "ginrummy.cards.parse_cards")
    return _to_mask_checked(cards)


def _to_mask_checked(cards: Iterable[int]) -> int:
    mask = 0
    for card in cards:
        if not isinstance(card, int) or isinstance(card, bool) or not 0 <= card < NUM_CARDS:
            raise ValueError(f"not a card: {card!r} (cards are ints 0-51)")
        bit = 1 << card
        if mask & bit:
            raise ValueError(f"card {card_name(card)} given twice")
        mask |= bit
    return mask


def check_card(card: object, what: str = "card") -> int:
    """``card`` itself if it is a card int 0-51, else ``ValueError``."""
    if not isinstance(card, int) or isinstance(card, bool) or not 0 <= card < NUM_CARDS:
        raise ValueError(f"{what} {card!r} is not a card (cards are ints 0-51)")
    return card


def mask_value(mask: int) -> int:
    """Sum of the values of the cards of ``mask``."""
    lv = LANE_VALUE
    return (lv[mask & LANE_MASK] + lv[mask >> 13 & LANE_MASK] + lv[mask >> 26 & LANE_MASK]
            + lv[mask >> 39])


def run_deadwood(mask: int) -> int:
    """Deadwood of the cards of ``mask`` with runs alone (no sets): four table lookups."""
    t = RUN_DEADWOOD
    return (t[mask & LANE_MASK] + t[mask >> 13 & LANE_MASK] + t[mask >> 26 & LANE_MASK]
            + t[mask >> 39])


# --------------------------------------------------------------------------- deadwood


def deadwood_mask(mask: int) -> int:
    """Least deadwood (R1.4) of the cards of an int bitmask. No validation: the hot path.

    With no rank held three times this is :func:`run_deadwood`; with one such rank, the
    better of no set, the full set and (with four) the best triple; with more, every choice.
    It inlines :func:`lanes_and_triples` (a call costs 4% here).
    """
    lane = LANE_MASK
    s = mask & lane
    h = mask >> 13 & lane
    d = mask >> 26 & lane
    c = mask >> 39
    t = RUN_DEADWOOD
    triples = s & h & (d | c) | d & c & (s | h)
    if not triples:
        return t[s] + t[h] + t[d] + t[c]
    if triples & (triples - 1):
        return _deadwood_many_sets(mask, triples)
    # exactly one rank held three or four times
    keep = ~triples
    s0 = t[s & keep]
    h0 = t[h & keep]
    d0 = t[d & keep]
    c0 = t[c & keep]
    full = s0 + h0 + d0 + c0
    s1 = t[s]
    h1 = t[h]
    d1 = t[d]
    c1 = t[c]
    best = s1 + h1 + d1 + c1
    if full < best:
        best = full
    if s & h & d & c:
        # four of a kind: a triple, the fourth card free for a run of its suit
        gain = s1 - s0
        if h1 - h0 < gain:
            gain = h1 - h0
        if d1 - d0 < gain:
            gain = d1 - d0
        if c1 - c0 < gain:
            gain = c1 - c0
        if full + gain < best:
            best = full + gain
    return best


def _set_removals(mask: int, triples: int) -> list[tuple[int, ...]]:
    """For each rank of ``triples`` (lane bits), the masks of the cards its set may take: the
    full set, then (with four) each triple leaving out spades, hearts, ..., then no set."""
    out: list[tuple[int, ...]] = []
    while triples:
        bit = triples & -triples
        triples ^= bit
        spread = bit | bit << 13 | bit << 26 | bit << 39
        full = mask & spread
        if full == spread:
            out.append((full, full ^ bit, full ^ bit << 13, full ^ bit << 26,
                        full ^ bit << 39, 0))
        else:
            out.append((full, 0))
    return out


def run_lanes_by_set_choice(mask: int, triples: int) -> Iterator[tuple[int, int, int, int, int]]:
    """For every choice of sets among the ranks of ``triples`` (lane bits): the run deadwood
    of the cards left for runs, then their four lanes (spades, hearts, diamonds, clubs)."""
    t = RUN_DEADWOOD
    lane = LANE_MASK
    for combo in product(*_set_removals(mask, triples)):
        m = mask ^ sum(combo)
        s = m & lane
        h = m >> 13 & lane
        d = m >> 26 & lane
        c = m >> 39
        yield t[s] + t[h] + t[d] + t[c], s, h, d, c


def _deadwood_many_sets(mask: int, triples: int) -> int:
    """Least deadwood over every choice of sets (:func:`run_deadwood` inlined: hot path)."""
    t = RUN_DEADWOOD
    lane = LANE_MASK
    best = _NO_DEADWOOD
    for combo in product(*_set_removals(mask, triples)):
        m = mask ^ sum(combo)
        v = t[m & lane] + t[m >> 13 & lane] + t[m >> 26 & lane] + t[m >> 39]
        if v < best:
            best = v
    return best


def deadwood(cards: CardsLike) -> int:
    """Least deadwood (R1.4) of some cards: a CardSet, an int bitmask or card ints.

    Exact for any number of cards (a hand holds 0 to 11).
    """
    if type(cards) is list:  # the common case, inlined
        try:
            mask: int = sum(map(_bit_of, cards))
        except (KeyError, TypeError):
            mask = _to_mask_checked(cards)
        else:
            if mask.bit_count() != len(cards):
                mask = _to_mask_checked(cards)
        return deadwood_mask(mask)
    return deadwood_mask(to_mask(cards))


# --------------------------------------------------------------------------- melds


def meld_kind(cards: CardsLike) -> MeldKind | None:
    """``"set"`` for 3-4 cards of one rank, ``"run"`` for 3+ consecutive cards of one suit
    (ace low, no wrap), else ``None`` (R1.3)."""
    return meld_kind_mask(to_mask(cards))


def is_meld(cards: CardsLike) -> bool:
    """Whether the cards form one set or one run (R1.3)."""
    return meld_kind_mask(to_mask(cards)) is not None


def meld_kind_mask(mask: int) -> MeldKind | None:
    """:func:`meld_kind` on an int bitmask, unchecked."""
    n = mask.bit_count()
    if n < 3:
        return None
    lanes = [mask >> (LANE * suit) & LANE_MASK for suit in range(4)]
    used = [lane for lane in lanes if lane]
    if len(used) == 1:
        lane = used[0]
        low = lane & -lane
        shifted = lane // low
        return "run" if shifted & (shifted + 1) == 0 else None
    ranks = ranks_held(mask)
    if n <= 4 and ranks & (ranks - 1) == 0:
        return "set"
    return None


# --------------------------------------------------------------------------- arrangements


_RANK_MAJOR = tuple((c % LANE) * 4 + c // LANE for c in range(NUM_CARDS))
_HIGH_FIRST = tuple((LANE - 1 - c % LANE) * 4 + c // LANE for c in range(NUM_CARDS))
_high_first = _HIGH_FIRST.__getitem__


def _meld_key(meld: tuple[int, ...]) -> int:
    """Melds by their first card, rank then suit (melds are disjoint, so this never ties)."""
    return _RANK_MAJOR[meld[0]]


def _cards_desc(mask: int) -> tuple[int, ...]:
    out: list[int] = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    out.sort(key=_high_first)
    return tuple(out)


def _lane_runs(lane: int, base: int) -> list[tuple[int, ...]]:
    """The maximal blocks of >= 3 consecutive ranks of ``lane`` as runs of cards."""
    runs: list[tuple[int, ...]] = []
    covered = RUN_COVER[lane]
    while covered:
        low = covered & -covered
        start = low.bit_length() - 1
        block = covered + low
        block = (block & -block) - low  # the lowest block of consecutive bits
        length = block.bit_count()
        runs.append(tuple(range(base + start, base + start + length)))
        covered ^= block
    return runs


_LaneParts = tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]
# Per suit, lane -> (its runs, its other cards), filled as lanes are met (at most 4 x 8192).
_LANE_PARTS: tuple[dict[int, _LaneParts], ...] = ({}, {}, {}, {})


def _lane_parts(suit: int, lane: int) -> _LaneParts:
    base = LANE * suit
    free = lane & ~RUN_COVER[lane]
    parts = (tuple(_lane_runs(lane, base)), tuple(base + r for r in range(LANE) if free >> r & 1))
    _LANE_PARTS[suit][lane] = parts
    return parts


@dataclass(frozen=True, slots=True)
class Arrangement:
    """Melds and unmatched cards of a hand.

    ``melds``: runs sorted by rank, sets sorted by suit (s h d c), melds ordered by their first
    card's rank then suit; ``unmatched``: the deadwood cards, highest rank first; ``deadwood``:
    their total value.
    """

    melds: tuple[tuple[int, ...], ...]
    unmatched: tuple[int, ...]
    deadwood: int

    @property
    def cards(self) -> CardSet:
        """All the cards of the arrangement."""
        mask = 0
        for meld in self.melds:
            for card in meld:
                mask |= 1 << card
        for card in self.unmatched:
            mask |= 1 << card
        return CardSet(mask)

    @property
    def melded(self) -> CardSet:
        """The cards in melds."""
        mask = 0
        for meld in self.melds:
            for card in meld:
                mask |= 1 << card
        return CardSet(mask)

    @property
    def is_gin(self) -> bool:
        """No deadwood at all."""
        return not self.unmatched

    def __str__(self) -> str:
        melds = " ".join("[" + " ".join(CARD_NAMES[c] for c in m) + "]" for m in self.melds)
        rest = " ".join(CARD_NAMES[c] for c in self.unmatched)
        body = f"{melds} | {rest}" if melds else f"| {rest}"
        return f"{body.rstrip()} ({self.deadwood})"


def _arrangement(rest: int, sets: tuple[tuple[int, ...], ...]) -> Arrangement:
    """The arrangement with these sets, runs on the maximal blocks of ``rest``."""
    melds = list(sets)
    unmatched: list[int] = []
    t = RUN_DEADWOOD
    dw = 0
    lm = LANE_MASK
    for suit, lane in enumerate((rest & lm, rest >> 13 & lm, rest >> 26 & lm, rest >> 39)):
        if lane:
            parts = _LANE_PARTS[suit].get(lane) or _lane_parts(suit, lane)
            melds += parts[0]
            unmatched += parts[1]
            dw += t[lane]
    if len(melds) > 1:
        melds.sort(key=_meld_key)
    if len(unmatched) > 1:
        unmatched.sort(key=_high_first)
    return Arrangement(tuple(melds), tuple(unmatched), dw)


def _set_choices(mask: int, triples: int) -> list[list[tuple[int, tuple[int, ...] | None]]]:
    """Per rank with 3+ cards: (cards taken, set meld) choices: full set, triples, no set."""
    per_rank: list[list[tuple[int, tuple[int, ...] | None]]] = []
    while triples:
        bit = triples & -triples
        triples ^= bit
        rank = bit.bit_length() - 1
        cards = tuple(rank + LANE * s for s in range(4) if mask >> (rank + LANE * s) & 1)
        full = 0
        for card in cards:
            full |= 1 << card
        options: list[tuple[int, tuple[int, ...] | None]] = [(full, cards)]
        if len(cards) == 4:
            for out in cards:
                options.append((full ^ 1 << out, tuple(c for c in cards if c != out)))
        options.append((0, None))
        per_rank.append(options)
    return per_rank


def _candidates(mask: int) -> list[tuple[int, int, tuple[tuple[int, ...], ...]]]:
    """Every choice of sets as (deadwood, cards left for runs, sets), in a fixed order."""
    triples = lanes_and_triples(mask)[4]
    if not triples:
        return [(run_deadwood(mask), mask, ())]
    out: list[tuple[int, int, tuple[tuple[int, ...], ...]]] = []
    for combo in product(*_set_choices(mask, triples)):
        taken = 0
        sets: list[tuple[int, ...]] = []
        for removed, meld in combo:
            taken |= removed
            if meld is not None:
                sets.append(meld)
        m = mask ^ taken
        out.append((run_deadwood(m), m, tuple(sets)))
    return out


def best_melds_mask(mask: int) -> Arrangement:
    """:func:`best_melds` on an int bitmask, unchecked."""
    triples = lanes_and_triples(mask)[4]
    if not triples:
        return _arrangement(mask, ())
    best = _NO_DEADWOOD
    taken = 0
    for combo in product(*_set_removals(mask, triples)):
        removed = sum(combo)
        v = run_deadwood(mask ^ removed)
        if v < best:
            best = v
            taken = removed
    sets: list[tuple[int, ...]] = []
    while triples:
        bit = triples & -triples
        triples ^= bit
        rank = bit.bit_length() - 1
        meld = tuple(rank + LANE * s for s in range(4) if taken >> (rank + LANE * s) & 1)
        if meld:
            sets.append(meld)
    return _arrangement(mask ^ taken, tuple(sets))


def best_melds(cards: CardsLike) -> Arrangement:
    """An arrangement of ``cards`` with the least deadwood (R1.4); each run is reported whole.

    Among equal arrangements the first of :func:`best_arrangements` is returned.
    """
    return best_melds_mask(to_mask(cards))


def best_arrangements(cards: CardsLike) -> list[Arrangement]:
    """Every arrangement reaching the least deadwood, up to splitting a long run into shorter
    ones, in a fixed order: sets of the lower ranks first, full sets before triples before no
    set."""
    cands = _candidates(to_mask(cards))
    low = min(cand[0] for cand in cands)
    return [_arrangement(m, sets) for dw, m, sets in cands if dw == low]


def arrangement_from_melds(hand: CardsLike, melds: Iterable[Iterable[int]]) -> Arrangement:
    """The arrangement of ``hand`` that lays down exactly ``melds`` (R4.3): each must be a
    valid meld of cards of the hand, no card in two melds. The rest is deadwood.

    Melds are kept as given (a run of six laid as two runs of three stays two melds) but
    sorted as in :class:`Arrangement`. ``ValueError`` names the bad meld or card.
    """
    hand_mask = to_mask(hand)
    used = 0
    out: list[tuple[int, ...]] = []
    for meld in melds:
        cards = list(meld)
        mask = to_mask(cards)
        text = " ".join(card_name(c) for c in sorted(cards))
        kind = meld_kind_mask(mask)
        if kind is None:
            raise ValueError(f"[{text}] is not a meld: a set is 3-4 cards of one rank, a run "
                             "3 or more consecutive cards of one suit")
        missing = mask & ~hand_mask
        if missing:
            card = (missing & -missing).bit_length() - 1
            raise ValueError(f"meld [{text}]: {card_name(card)} is not in the hand")
        twice = mask & used
        if twice:
            card = (twice & -twice).bit_length() - 1
            raise ValueError(f"meld [{text}]: {card_name(card)} is already in another meld")
        used |= mask
        if kind == "run":
            out.append(tuple(sorted(cards)))
        else:
            out.append(tuple(sorted(cards, key=lambda c: c // LANE)))
    out.sort(key=_meld_key)
    rest = hand_mask & ~used
    return Arrangement(tuple(out), _cards_desc(rest), mask_value(rest))
