"""Knock options (R4.1, R4.2): which discards leave a hand that may knock or go gin."""

from __future__ import annotations

from dataclasses import dataclass

from ginrummy.cards import CARD_NAMES
from ginrummy.solver.melds import (
    LANE_DISCARD_GAIN,
    RUN_DEADWOOD,
    Arrangement,
    CardsLike,
    best_melds_mask,
    deadwood_mask,
    to_mask,
)

__all__ = ["KnockOption", "knock_options", "knock_options_mask"]


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
    s = mask & 8191
    h = mask >> 13 & 8191
    d = mask >> 26 & 8191
    c = mask >> 39
    t = RUN_DEADWOOD
    found: list[tuple[int, int]] = []
    if not (s & h & (d | c) | d & c & (s | h)):
        # No rank with three cards, and taking a card away cannot make one: only the
        # discard's lane changes, so each discard costs one lookup.
        whole = t[s] + t[h] + t[d] + t[c]
        g = LANE_DISCARD_GAIN
        if (
            whole - g[s] > knock_limit
            and whole - g[h] > knock_limit
            and whole - g[d] > knock_limit
            and whole - g[c] > knock_limit
            and not (big_gin and whole == 0)
        ):
            return []
        for base, lane in ((0, s), (13, h), (26, d), (39, c)):
            if whole - g[lane] > knock_limit:
                continue
            others = whole - t[lane]
            rest = lane
            while rest:
                low = rest & -rest
                rest ^= low
                dw = others + t[lane ^ low]
                if dw <= knock_limit:
                    found.append((dw, base + low.bit_length() - 1))
    else:
        whole = deadwood_mask(mask)
        top = (s | h | d | c).bit_length()
        # Laying a card aside lowers deadwood by at most its value.
        if whole - min(top, 10) > knock_limit and not (big_gin and whole == 0):
            return []
        rest = mask
        while rest:
            low = rest & -rest
            rest ^= low
            dw = deadwood_mask(mask ^ low)
            if dw <= knock_limit:
                found.append((dw, low.bit_length() - 1))
    out: list[KnockOption] = []
    if big_gin and whole == 0:
        out.append(KnockOption(None, best_melds_mask(mask), 0, True, True))
    found.sort()
    for dw, card in found:
        if card == forbidden:
            continue
        out.append(KnockOption(card, best_melds_mask(mask ^ 1 << card), dw, dw == 0, False))
    return out

