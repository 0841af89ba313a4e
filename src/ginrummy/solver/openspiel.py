"""OpenSpiel's own estimate of a hand's least deadwood (``GinRummyUtils::MinDeadwood``), which
decides whether its ``gin_rummy`` offers a knock (docs/rules.md R4.9, ``openspiel_limits``).

OpenSpiel walks every maximal group of melds of at most five cards, in the order its
``AllMeldGroups`` finds them, keeps the first group with the most melded points, and, for a hand
of ``hand_size`` + 1 cards, drops the highest-ranked card left over. Where two groups meld the
same points but leave different cards, that can be more than the least deadwood a discard
really leaves, and OpenSpiel then offers no knock (about 1 hand in 15,000 of the crowded hands
that can nearly knock). This module reproduces it exactly, in OpenSpiel's card order (suits
spades, clubs, diamonds, hearts), so that the engine can follow it.
"""

from __future__ import annotations

from functools import lru_cache

__all__ = ["openspiel_min_deadwood"]

_SUIT_SWAP = (0, 3, 2, 1)  # ours s h d c <-> OpenSpiel s c d h (its own inverse)


def _os_id(card: int) -> int:
    return 13 * _SUIT_SWAP[card // 13] + card % 13


def _value(os_card: int) -> int:
    return min(10, os_card % 13 + 1)


def _rank_key(card: int) -> tuple[int, int]:
    return card % 13, card


def _rank_melds(cards: list[int]) -> list[tuple[int, ...]]:
    melds: list[tuple[int, ...]] = []
    if len(cards) < 3:
        return melds
    cs = sorted(cards, key=_rank_key)
    for i in range(len(cs) - 3):
        if cs[i] % 13 == cs[i + 3] % 13:
            melds += [tuple(cs[i:i + 4]), (cs[i], cs[i + 1], cs[i + 3]),
                      (cs[i], cs[i + 2], cs[i + 3])]
    for i in range(len(cs) - 2):
        if cs[i] % 13 == cs[i + 2] % 13:
            melds.append(tuple(cs[i:i + 3]))
    return melds


def _suit_melds(cards: list[int]) -> list[tuple[int, ...]]:
    melds: list[tuple[int, ...]] = []
    cs = sorted(cards)  # OpenSpiel's suit order is its card order
    for length in (5, 4, 3):
        for i in range(len(cs) - length + 1):
            low, high = cs[i], cs[i + length - 1]
            if low == high - (length - 1) and low // 13 == high // 13:
                melds.append(tuple(cs[i:i + length]))
    return melds


def _best_group_value(cards: list[int]) -> tuple[int, int]:
    """(melded points, mask of melded OpenSpiel cards) of OpenSpiel's ``BestMeldGroup``."""
    all_melds = [(m, sum(1 << c for c in m), sum(_value(c) for c in m))
                 for m in _rank_melds(cards) + _suit_melds(cards)]
    best = [0, 0]

    def walk(melds: list[tuple[tuple[int, ...], int, int]], used: int, value: int) -> None:
        children = [m for m in melds if not m[1] & used]
        if not children:
            if value > best[0]:
                best[0], best[1] = value, used
            return
        for _, mask, points in children:
            walk(children, used | mask, value + points)

    for _, mask, points in all_melds:
        walk(all_melds, mask, points)
    return best[0], best[1]


@lru_cache(maxsize=1 << 16)
def openspiel_min_deadwood(mask: int, hand_size: int = 10) -> int:
    """OpenSpiel's ``MinDeadwood`` of a hand (a mask of our cards); with ``hand_size`` + 1
    cards, the highest-ranked leftover card is dropped as the discard."""
    cards = [_os_id(c) for c in range(52) if mask >> c & 1]
    _, melded = _best_group_value(cards)
    left = sorted((c for c in cards if not melded >> c & 1), key=_rank_key)
    if len(cards) == hand_size + 1 and left:
        left.pop()
    return sum(_value(c) for c in left)
