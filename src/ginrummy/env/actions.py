"""The environment's fixed action space (109 ids) and its codec to and from engine actions.

=========  ==============================================================================
id         action
=========  ==============================================================================
0          ``stock``: draw the top card of the stock
1          ``take``: take the top discard (or the first-turn upcard)
2          ``pass``: decline the first-turn upcard (R3.5)
3-54       ``discard C``: discard card ``C = id - 3`` (cards as in :mod:`ginrummy.cards`)
55-106     knock (or gin) discarding card ``C = id - 55``, laying down the solver's best
           arrangement of the other cards (``best_melds``: least deadwood, the solver's own
           tie-break); an engine knock with other melds of the same discard encodes to the
           same id
107        big gin (R4.2): every card melded, no discard
108        lay off: the defender's best defence (least deadwood after own melds and layoffs,
           the engine's proposal)
=========  ==============================================================================

Every legal engine action encodes to exactly one id; every id legal in a state decodes to an
engine action the engine accepts. Reshuffles are chance moves: the environment plays them.
"""

from __future__ import annotations

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
    Pass,
)
from ginrummy.cards import card_name
from ginrummy.engine import Hand, Phase
from ginrummy.solver import best_melds_mask, knock_options_mask

DRAW_STOCK_ID = 0
TAKE_ID = 1
PASS_ID = 2
DISCARD_BASE = 3
KNOCK_BASE = 55
BIG_GIN_ID = 107
LAYOFF_ID = 108
NUM_ACTIONS = 109

_PLAIN_ACTIONS: tuple[Action, ...] = (DRAW_STOCK, DRAW_DISCARD, PASS, *DISCARDS)
"""The action of each id below ``KNOCK_BASE`` (the same in every state): ids 0, 1, 2 then
the 52 discards."""
_DRAW_BOTH = 1 << DRAW_STOCK_ID | 1 << TAKE_ID
_OFFER = 1 << TAKE_ID | 1 << PASS_ID

__all__ = [
    "BIG_GIN_ID",
    "DISCARD_BASE",
    "DRAW_STOCK_ID",
    "KNOCK_BASE",
    "LAYOFF_ID",
    "NUM_ACTIONS",
    "PASS_ID",
    "TAKE_ID",
    "action_name",
    "decode",
    "decode_legal",
    "encode",
    "legal_bits",
    "legal_ids",
]


# Enum member lookups cost about 0.2 us each on Python 3.11: legal_bits compares with these.
_DISCARD_PHASE, _DRAW_PHASE, _OFFER_PHASE, _LAYOFF_PHASE = (
    Phase.DISCARD, Phase.DRAW, Phase.OFFER, Phase.LAYOFF)


def legal_bits(hand: Hand) -> int:
    """The legal ids of the seat to move as an int bitmask (bit ``i``: id ``i`` is legal)."""
    if hand.wall or hand.rules.openspiel_limits:  # R4.7 wall, R4.9: the engine decides
        bits = 0
        for action in hand.legal_actions():
            bits |= 1 << encode(action)
        return bits
    phase = hand.phase
    if phase is _DISCARD_PHASE:
        cards = hand.hands[hand.to_move]
        forbidden = hand.taken if hand.rules.no_rediscard_of_taken_card else None
        allowed = cards if forbidden is None else cards & ~(1 << forbidden)
        bits = allowed << DISCARD_BASE
        for option in knock_options_mask(cards, hand.knock_limit, hand.rules.big_gin,
                                         forbidden):
            if option.discard is None:
                bits |= 1 << BIG_GIN_ID
            else:
                bits |= 1 << (KNOCK_BASE + option.discard)
        return bits
    if phase is _DRAW_PHASE:
        if hand.stock_only or not hand.discards:
            return 1 << DRAW_STOCK_ID
        return _DRAW_BOTH
    if phase is _OFFER_PHASE:
        return _OFFER
    if phase is _LAYOFF_PHASE:
        return 1 << LAYOFF_ID
    return 0


def legal_ids(hand: Hand) -> list[int]:
    """The legal ids of the seat to move, ascending."""
    bits = legal_bits(hand)
    out = []
    while bits:
        low = bits & -bits
        out.append(low.bit_length() - 1)
        bits ^= low
    return out


def encode(action: Action) -> int:
    """The id of an engine action (a knock's melds are not part of its id).

    Raises ``ValueError`` for a chance action (reshuffle), which has no id.
    """
    if isinstance(action, Discard):
        return DISCARD_BASE + action.card
    if isinstance(action, DrawStock):
        return DRAW_STOCK_ID
    if isinstance(action, DrawDiscard):
        return TAKE_ID
    if isinstance(action, Pass):
        return PASS_ID
    if isinstance(action, Knock):
        return BIG_GIN_ID if action.discard is None else KNOCK_BASE + action.discard
    if isinstance(action, LayOff):
        return LAYOFF_ID
    raise ValueError(f"{action} is a chance action: it has no id in the action space")


def decode(action_id: int, hand: Hand) -> Action:
    """The engine action of ``action_id`` in ``hand``'s current state.

    Raises ``ValueError`` naming the id when it is outside 0-108 or not legal now.
    """
    if not isinstance(action_id, int) or not 0 <= action_id < NUM_ACTIONS:
        raise ValueError(f"action id {action_id!r} is outside 0..{NUM_ACTIONS - 1}")
    if not legal_bits(hand) >> action_id & 1:
        raise ValueError(
            f"action id {action_id} ({action_name(action_id)}) is not legal in the "
            f"{hand.phase} phase; legal ids: {legal_ids(hand)}")
    return decode_legal(action_id, hand)


def decode_legal(action_id: int, hand: Hand) -> Action:
    """:func:`decode` for an id already known to be legal (unchecked)."""
    if action_id < KNOCK_BASE:
        return _PLAIN_ACTIONS[action_id]
    if action_id == LAYOFF_ID:
        return hand.legal_actions()[0]
    cards = hand.hands[hand.to_move]
    if action_id == BIG_GIN_ID:
        return Knock(None, best_melds_mask(cards).melds)
    card = action_id - KNOCK_BASE
    return Knock(card, best_melds_mask(cards & ~(1 << card)).melds)


def action_name(action_id: int) -> str:
    """A short text for an id (``discard 7h``, ``knock 7h``, ``layoff``...)."""
    if DISCARD_BASE <= action_id < KNOCK_BASE:
        return f"discard {card_name(action_id - DISCARD_BASE)}"
    if KNOCK_BASE <= action_id < BIG_GIN_ID:
        return f"knock {card_name(action_id - KNOCK_BASE)}"
    names = {DRAW_STOCK_ID: "stock", TAKE_ID: "take", PASS_ID: "pass", BIG_GIN_ID: "big gin",
             LAYOFF_ID: "layoff"}
    if action_id in names:
        return names[action_id]
    raise ValueError(f"action id {action_id!r} is outside 0..{NUM_ACTIONS - 1}")
