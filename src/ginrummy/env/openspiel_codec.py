"""A codec between engine actions (and the environment's ids) and OpenSpiel's ``gin_rummy``
action ids, for the positions the two rule sets share (two players, the ``eaai`` preset:
OpenSpiel's defaults, knock card 10, gin and undercut bonus 25).

OpenSpiel's 241 ids: 0-51 a card (a discard, a layoff, or the discard after a knock), 52 draw
the upcard (our ``take``), 53 draw from the stock, 54 pass, 55 knock, 56-240 a meld
(:data:`OPENSPIEL_MELDS`). Its cards are ``suit * 13 + rank`` like ours but with the suits in
the order spades, clubs, diamonds, hearts (ours: spades, hearts, diamonds, clubs).

Where ours is one decision, OpenSpiel's may be several: a knock is ``55``, the discard, each
meld, then ``54``; a defender's layoffs are each card laid off then ``54``, then each of his
melds then ``54``. OpenSpiel's melds are at most five cards long, so a longer run is written
as two (a run of 6-10 cards: a run of 3-5 then the rest). Big gin (R4.2, 11 cards melded)
does not exist in OpenSpiel and has no ids.
"""

from __future__ import annotations

from collections.abc import Sequence

from ginrummy.actions import (
    DISCARDS,
    DRAW_DISCARD,
    DRAW_STOCK,
    PASS,
    Action,
    Discard,
    DrawDiscard,
    DrawStock,
    Knock,
    LayOff,
    Meld,
    Pass,
)
from ginrummy.cards import card_name, rank_of, suit_of
from ginrummy.engine import Hand
from ginrummy.env.actions import decode, encode

OS_DRAW_UPCARD = 52
OS_DRAW_STOCK = 53
OS_PASS = 54
OS_KNOCK = 55
OS_MELD_BASE = 56
OS_NUM_ACTIONS = 241

_SUIT_TO_OS = (0, 3, 2, 1)  # ours s h d c -> OpenSpiel s c d h (its own inverse)

__all__ = ["OPENSPIEL_MELDS", "OS_NUM_ACTIONS", "from_openspiel", "id_from_openspiel",
           "id_to_openspiel", "knock_from_openspiel", "meld_from_openspiel", "meld_ids",
           "openspiel_action_text", "os_card", "our_card", "to_openspiel"]


def os_card(card: int) -> int:
    """OpenSpiel's id of one of our cards."""
    return 13 * _SUIT_TO_OS[suit_of(card)] + rank_of(card)


def our_card(os_id: int) -> int:
    """Our card of an OpenSpiel card id (0-51)."""
    if not 0 <= os_id < 52:
        raise ValueError(f"OpenSpiel card ids are 0..51, got {os_id!r}")
    return 13 * _SUIT_TO_OS[os_id // 13] + os_id % 13


def _build_melds() -> tuple[frozenset[int], ...]:
    melds: list[frozenset[int]] = []
    for rank in range(13):  # sets: without each OpenSpiel suit in turn, then all four
        for missing in range(4):
            melds.append(frozenset(our_card(13 * s + rank) for s in range(4) if s != missing))
        melds.append(frozenset(our_card(13 * s + rank) for s in range(4)))
    for length in (3, 4, 5):  # runs by length, then OpenSpiel suit, then lowest rank
        for suit in range(4):
            for start in range(14 - length):
                melds.append(frozenset(our_card(13 * suit + start + i) for i in range(length)))
    return tuple(melds)


OPENSPIEL_MELDS: tuple[frozenset[int], ...] = _build_melds()
"""OpenSpiel's meld ``56 + i`` as a set of our cards."""
_MELD_ID = {meld: OS_MELD_BASE + i for i, meld in enumerate(OPENSPIEL_MELDS)}


def meld_ids(meld: Meld) -> list[int]:
    """OpenSpiel's ids for one of our melds (a run longer than five cards gives two)."""
    cards = sorted(meld, key=lambda c: (suit_of(c), rank_of(c)))
    parts = [cards] if len(cards) <= 5 else [cards[:len(cards) - 3], cards[len(cards) - 3:]]
    if len(parts[0]) > 5:
        parts = [cards[:5], cards[5:]]
    out = []
    for part in parts:
        key = frozenset(part)
        if key not in _MELD_ID:
            raise ValueError(f"{part} is not a meld OpenSpiel knows")
        out.append(_MELD_ID[key])
    return out


def meld_from_openspiel(os_id: int) -> Meld:
    """Our meld (cards ascending) of OpenSpiel's meld id 56-240."""
    if not isinstance(os_id, int) or not OS_MELD_BASE <= os_id < OS_NUM_ACTIONS:
        raise ValueError(f"OpenSpiel meld ids are {OS_MELD_BASE}..{OS_NUM_ACTIONS - 1}, "
                         f"got {os_id!r}")
    return tuple(sorted(OPENSPIEL_MELDS[os_id - OS_MELD_BASE]))


def openspiel_action_text(os_id: int) -> str:
    """What any of OpenSpiel's 241 ids means, in OpenSpiel's own words (its
    ``ActionToString`` without the player): ``7h``, ``Draw upcard``, ``Draw stock``, ``Pass``,
    ``Knock`` or a meld's cards (``AsAcAd``)."""
    if not isinstance(os_id, int) or not 0 <= os_id < OS_NUM_ACTIONS:
        raise ValueError(f"OpenSpiel action ids are 0..{OS_NUM_ACTIONS - 1}, got {os_id!r}")
    words = {OS_DRAW_UPCARD: "Draw upcard", OS_DRAW_STOCK: "Draw stock", OS_PASS: "Pass",
             OS_KNOCK: "Knock"}
    if os_id < 52:
        return card_name(our_card(os_id))
    if os_id in words:
        return words[os_id]
    cards = sorted(os_card(c) for c in meld_from_openspiel(os_id))
    return "".join(card_name(our_card(c)) for c in cards)


def to_openspiel(action: Action) -> list[int]:
    """OpenSpiel's ids for one engine action (several for a knock or a layoff)."""
    if isinstance(action, Discard):
        return [os_card(action.card)]
    if isinstance(action, DrawStock):
        return [OS_DRAW_STOCK]
    if isinstance(action, DrawDiscard):
        return [OS_DRAW_UPCARD]
    if isinstance(action, Pass):
        return [OS_PASS]
    if isinstance(action, Knock):
        if action.discard is None:
            raise ValueError("big gin (R4.2) does not exist in OpenSpiel's gin_rummy")
        ids = [OS_KNOCK, os_card(action.discard)]
        for meld in action.melds:
            ids += meld_ids(meld)
        return [*ids, OS_PASS]
    if isinstance(action, LayOff):
        ids = [os_card(card) for card, _ in action.layoffs] + [OS_PASS]
        for meld in action.melds:
            ids += meld_ids(meld)
        return [*ids, OS_PASS]
    raise ValueError(f"{action} is a chance action: OpenSpiel deals its own chance nodes")


def from_openspiel(os_id: int) -> Action:
    """Our action for a one-id OpenSpiel decision: draw, take, pass (at the upcard offer) or a
    discard. A knock is several ids: :func:`knock_from_openspiel`."""
    if not isinstance(os_id, int) or not 0 <= os_id < OS_NUM_ACTIONS:
        raise ValueError(f"OpenSpiel action ids are 0..{OS_NUM_ACTIONS - 1}, got {os_id!r}")
    if os_id < 52:
        return DISCARDS[our_card(os_id)]
    simple: dict[int, Action] = {OS_DRAW_UPCARD: DRAW_DISCARD, OS_DRAW_STOCK: DRAW_STOCK,
                                 OS_PASS: PASS}
    if os_id in simple:
        return simple[os_id]
    raise ValueError(f"OpenSpiel id {os_id} is part of a knock or meld sequence: "
                     "decode the whole sequence with knock_from_openspiel")


def knock_from_openspiel(os_ids: Sequence[int]) -> Knock:
    """Our knock for OpenSpiel's sequence ``55, discard, melds..., 54``."""
    ids = list(os_ids)
    if len(ids) < 3 or ids[0] != OS_KNOCK or ids[-1] != OS_PASS or not 0 <= ids[1] < 52:
        raise ValueError(f"a knock is 55, a card 0-51, melds 56-240, then 54; got {ids}")
    melds = []
    for os_id in ids[2:-1]:
        if not OS_MELD_BASE <= os_id < OS_NUM_ACTIONS:
            raise ValueError(f"{os_id} is not an OpenSpiel meld id (56-240)")
        melds.append(tuple(sorted(OPENSPIEL_MELDS[os_id - OS_MELD_BASE])))
    return Knock(our_card(ids[1]), tuple(melds))


def id_to_openspiel(action_id: int, hand: Hand) -> list[int]:
    """OpenSpiel's ids for one of the environment's ids in ``hand``'s current state."""
    return to_openspiel(decode(action_id, hand))


def id_from_openspiel(os_id: int) -> int:
    """The environment's id for a one-id OpenSpiel decision (:func:`from_openspiel`)."""
    return encode(from_openspiel(os_id))
