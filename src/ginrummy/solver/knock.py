"""Knock options (R4.1, R4.2): which discards leave a hand that may knock or go gin."""

from __future__ import annotations

from dataclasses import dataclass

from ginrummy.cards import CARD_NAMES, LANE_MASK
from ginrummy.solver.melds import (
    LANE_DISCARD_GAIN,
    RUN_DEADWOOD,
    Arrangement,
    CardsLike,
    best_melds_mask,
    deadwood_mask,
    run_lanes_by_set_choice,
    to_mask,
)

_NO_DEADWOOD = 1 << 30

__all__ = ["KnockOption", "collect_discards", "knock_options", "knock_options_mask"]


@dataclass(frozen=True, slots=True)
class KnockOption:
    """One way to knock: discard ``discard`` and lay down ``arrangement``.

    ``discard`` is ``None`` only for big gin, whose arrangement holds all the cards.
    ``gin`` is true for deadwood 0 (big gin included).
    """

    discard: int | None
    arrangement: Arrangement
    deadwood: int
    gin: bool
    big_gin: bool

    def __str__(self) -> str:
        if self.discard is None:
            return f"big gin: {self.arrangement}"
        word = "gin" if self.gin else "knock"
        return f"discard {CARD_NAMES[self.discard]}, {word}: {self.arrangement}"


def knock_options(
    cards: CardsLike,
    knock_limit: int = 10,
    big_gin: bool = False,
    forbidden: int | None = None,
) -> list[KnockOption]:
    """Every way to knock with a hand of ``hand_size`` + 1 cards (2 to 11).

    One option per discard (except ``forbidden``, the card just taken from the discard pile,
    R3.3) whose remaining cards have least deadwood <= ``knock_limit``, sorted by deadwood then
    card; with ``big_gin`` and every card melded, a big-gin option (discard ``None``) first.
    """
    mask = to_mask(cards)
    n = mask.bit_count()
    if not 2 <= n <= 11:
        raise ValueError(f"a hand about to knock holds 2 to 11 cards, not {n}")
    if forbidden is not None and not (
        isinstance(forbidden, int) and 0 <= forbidden < 52 and mask >> forbidden & 1
    ):
        raise ValueError(f"forbidden discard {forbidden!r} is not a card of the hand")
    if not isinstance(knock_limit, int) or knock_limit < 0:
        raise ValueError(f"knock limit {knock_limit!r}: expected a whole number >= 0")
    return knock_options_mask(mask, knock_limit, big_gin, forbidden)


def knock_options_mask(
    mask: int, knock_limit: int, big_gin: bool, forbidden: int | None
) -> list[KnockOption]:
    """:func:`knock_options` on an int bitmask, unchecked."""
    # lanes_and_triples(mask), inlined: a call costs 10% here (the engine's legal actions)
    lane = LANE_MASK
    s = mask & lane
    h = mask >> 13 & lane
    d = mask >> 26 & lane
    c = mask >> 39
    triples = s & h & (d | c) | d & c & (s | h)
    t = RUN_DEADWOOD
    g = LANE_DISCARD_GAIN
    if not triples:
        # Taking a card away cannot make a set: only the discard's lane changes.
        whole = t[s] + t[h] + t[d] + t[c]
        if (
            whole - g[s] > knock_limit
            and whole - g[h] > knock_limit
            and whole - g[d] > knock_limit
            and whole - g[c] > knock_limit
            and not (big_gin and whole == 0)
        ):
            return []
        found: dict[int, int] = {}
        collect_discards(found, whole, (s, h, d, c), knock_limit)
    else:
        # A discard lowers deadwood by at most its value, so at most the highest card's.
        whole = deadwood_mask(mask)
        if whole - min((s | h | d | c).bit_length(), 10) > knock_limit and not (
            big_gin and whole == 0
        ):
            return []
        # Every choice of sets of the hand, and each discard outside those sets: that covers
        # every choice of sets of the hand less that discard.
        found = {}
        for base, ls, lh, ld, lc in run_lanes_by_set_choice(mask, triples):
            if (
                base - g[ls] > knock_limit
                and base - g[lh] > knock_limit
                and base - g[ld] > knock_limit
                and base - g[lc] > knock_limit
            ):
                continue
            collect_discards(found, base, (ls, lh, ld, lc), knock_limit)
    out: list[KnockOption] = []
    if big_gin and whole == 0:
        out.append(KnockOption(None, best_melds_mask(mask), 0, True, True))
    for dw, card in sorted((dw, card) for card, dw in found.items()):
        if card != forbidden:
            out.append(KnockOption(card, best_melds_mask(mask ^ 1 << card), dw, dw == 0, False))
    return out


def collect_discards(
    found: dict[int, int], base: int, lanes: tuple[int, int, int, int], knock_limit: int
) -> None:
    """Record in ``found`` (card -> least deadwood) each discard from ``lanes`` (cards left
    for runs, run deadwood ``base`` in all) that leaves at most ``knock_limit``."""
    t = RUN_DEADWOOD
    g = LANE_DISCARD_GAIN
    for suit, lane in enumerate(lanes):
        if base - g[lane] > knock_limit:
            continue
        others = base - t[lane]
        rest = lane
        while rest:
            low = rest & -rest
            rest ^= low
            dw = others + t[lane ^ low]
            if dw <= knock_limit:
                card = 13 * suit + low.bit_length() - 1
                if dw < found.get(card, _NO_DEADWOOD):
                    found[card] = dw
