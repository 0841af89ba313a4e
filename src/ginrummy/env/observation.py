"""The observation tensor: 387 numbers in [0, 1] built from one seat's view and nothing else.

Seats are relative to the observer: opponent 1 is the next seat in turn order (the observer's
left), then opponents 2 and 3 (zeros where the table has fewer players). Cards are indexed
0-51 as in :mod:`ginrummy.cards` (``suit * 13 + rank``, ace = 0, suits spades, hearts,
diamonds, clubs).

=========  =====================================================================
index      content
=========  =====================================================================
0-51       the observer's cards
52-103     the top of the discard pile (the card that may be taken), if any
104-155    the discard pile below its top (every discard the observer saw and
           nobody took back; after a reshuffle those cards are in the stock)
156-207    cards opponent 1 is known to hold: taken from the pile and still held,
           or all of their cards once revealed after a knock (R4.8)
208-259    the same for opponent 2
260-311    the same for opponent 3
312-363    the card taken from the pile this turn (R3.3: it may not be discarded)
364-368    phase: offer, draw, discard, layoff, over (one-hot)
369-372    the dealer: the observer, opponent 1, 2, 3 (one-hot)
373        cards left in the stock / 52
374        the knock limit in force / 10 (capped at 1)
375        the observer's least deadwood / 100 (capped at 1)
376-378    cards held by opponents 1, 2, 3 / 11
379-381    players: 2, 3, 4 (one-hot)
382        reshuffles so far / 2 (capped at 1)
383-386    match scores of the observer and opponents 1, 2, 3 / target (capped at 1;
           zeros for a lone hand or the single-hand format)
=========  =====================================================================
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ginrummy.actions import Discard, DrawDiscard, Knock, Reshuffle
from ginrummy.engine import Hand, Phase
from ginrummy.solver import deadwood_mask
from ginrummy.views import PlayerView

PLANES = 7
CARD_FEATURES = PLANES * 52
SCALARS = 23
OBS_SIZE = CARD_FEATURES + SCALARS
_PHASES = {Phase.OFFER: 0, Phase.DRAW: 1, Phase.DISCARD: 2, Phase.LAYOFF: 3, Phase.OVER: 4,
           Phase.RESHUFFLE: 1}
PHASE_INDEX = _PHASES
"""Each phase's place in the observation's one-hot (a reshuffle pending reads as draw)."""

__all__ = ["NUMBERS", "OBS_SIZE", "PHASE_INDEX", "WORDS", "DiscardMemory", "PileMemory",
           "card_planes", "decode_words", "encode_seat", "encode_view", "encode_with_mask",
           "mask_array", "number_divisors", "onehot_word", "pile_below_top", "scalars"]


def pile_below_top(view: PlayerView) -> int:
    """The discard pile below its top card as a mask, from the view's log alone."""
    pile: list[int] = [view.upcard]
    _replay_pile(pile, view.log, 0)
    return _pile_mask(pile)


def _replay_pile(pile: list[int], log: tuple[object, ...], start: int) -> None:
    for index in range(start, len(log)):
        action = log[index][1]  # type: ignore[index]
        kind = type(action)
        if kind is Discard:
            pile.append(action.card)
        elif kind is DrawDiscard:
            pile.pop()
        elif kind is Knock:
            if action.discard is not None:
                pile.append(action.discard)
        elif kind is Reshuffle:
            del pile[:-1]


def _pile_mask(pile: list[int]) -> int:
    mask = 0
    for card in pile[:-1]:
        mask |= 1 << card
    return mask


@dataclass(slots=True)
class PileMemory:
    """:func:`pile_below_top`, remembered between views of one seat so that each view reads
    only the log entries that are new (the result is the same)."""

    key: tuple[int, int, int] = (-1, -1, -1)
    read: int = 0
    pile: list[int] = field(default_factory=list)
    below: int = 0
    """The mask of ``pile[:-1]``, kept up to date."""

    def below_top(self, view: PlayerView) -> int:
        """The pile below its top in ``view``."""
        log = view.log
        end = len(log)
        read = self.read
        key = (view.hand_number, view.dealer, view.upcard)
        if read == end and key == self.key:
            return self.below
        if key != self.key or end < read:
            self.key, self.pile, self.below = key, [view.upcard], 0
            read = 0
        pile = self.pile
        below = self.below
        for index in range(read, end):
            action: Any = log[index][1]  # dispatched on its exact type below (hot loop)
            kind = type(action)
            if kind is Discard or (kind is Knock and action.discard is not None):
                if pile:
                    below |= 1 << pile[-1]
                pile.append(action.card if kind is Discard else action.discard)
            elif kind is DrawDiscard:
                pile.pop()
                if pile:
                    below &= ~(1 << pile[-1])
            elif kind is Reshuffle:
                del pile[:-1]
                below = 0
        self.read = end
        self.below = below
        return below


def card_planes(view: PlayerView, below_top: int) -> list[int]:
    """The seven card planes of the observation as 52-bit masks (layout in the module doc)."""
    seat = view.seat
    if seat is None:
        raise ValueError("a spectator's view has no observation: give a seat's view")
    n = len(view.counts)
    shown = view.revealed_masks if view.revealed_masks is not None else view.known_masks
    top = view.top_discard
    taken = view.taken
    planes = [view.hand_mask, 0 if top is None else 1 << top, below_top]
    for offset in (1, 2, 3):
        planes.append(shown[(seat + offset) % n] if offset < n else 0)
    planes.append(0 if taken is None else 1 << taken)
    return planes


def scalars(view: PlayerView) -> list[float]:
    """The 23 numbers after the card planes (layout in the module doc)."""
    seat = view.seat
    assert seat is not None
    n = len(view.counts)
    out = [0.0] * SCALARS
    out[_PHASES[view.phase]] = 1.0
    out[5 + (view.dealer - seat) % n] = 1.0
    out[9] = view.stock_size / 52
    out[10] = min(view.knock_limit / 10, 1.0)
    out[11] = min(deadwood_mask(view.hand_mask) / 100, 1.0)
    counts = view.counts
    for offset in range(1, n):
        out[11 + offset] = counts[(seat + offset) % n] / 11
    out[15 + n - 2] = 1.0
    out[18] = min(view.reshuffles / 2, 1.0)
    scores = view.scores
    target = view.rules.target
    if scores is not None and target:
        for offset in range(n):
            out[19 + offset] = min(scores[(seat + offset) % n] / target, 1.0)
    return out


_PLANE_BYTES = (CARD_FEATURES + 7) // 8
_BITS_F32 = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1,
                          bitorder="little").astype(np.float32)
"""Row ``b``: the eight bits of byte ``b``, lowest first (a table lookup is several times
faster than ``np.unpackbits(bitorder="little")`` on short rows)."""
_BITS_I8 = _BITS_F32.astype(np.int8)


def _packed(planes: list[int]) -> bytes:
    """The seven 52-bit planes end to end (plane ``i`` from bit ``52 * i``), little-endian."""
    p0, p1, p2, p3, p4, p5, p6 = planes
    joined = (p0 | p1 << 52 | p2 << 104 | p3 << 156 | p4 << 208 | p5 << 260 | p6 << 312)
    return joined.to_bytes(_PLANE_BYTES, "little")


def encode_view(view: PlayerView, below_top: int | None = None) -> npt.NDArray[np.float32]:
    """The observation of ``view`` (``below_top``: :func:`pile_below_top`, if known)."""
    if below_top is None:
        below_top = pile_below_top(view)
    out = np.empty(OBS_SIZE, dtype=np.float32)
    raw = np.frombuffer(_packed(card_planes(view, below_top)), dtype=np.uint8)
    np.take(_BITS_F32, raw, axis=0, out=out[:_PLANE_BYTES * 8].reshape(-1, 8))
    out[CARD_FEATURES:] = scalars(view)  # overwrites the padding bits after the planes
    return out


_MASK_AT = 392
"""Where :func:`encode_with_mask` packs the action mask: past the observation's 387."""


def encode_with_mask(view: PlayerView, below_top: int, mask_bits: int, mask_size: int
                     ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8]]:
    """:func:`encode_view` and :func:`mask_array` from one table lookup (the hot path of the
    environments: each numpy call costs about a microsecond)."""
    p0, p1, p2, p3, p4, p5, p6 = card_planes(view, below_top)
    joined = (p0 | p1 << 52 | p2 << 104 | p3 << 156 | p4 << 208 | p5 << 260 | p6 << 312
              | mask_bits << _MASK_AT)
    width = (_MASK_AT + mask_size + 7) // 8
    flat = _BITS_F32.take(np.frombuffer(joined.to_bytes(width, "little"), dtype=np.uint8),
                          axis=0).reshape(-1)
    flat[CARD_FEATURES:OBS_SIZE] = scalars(view)
    return flat[:OBS_SIZE], flat[_MASK_AT:_MASK_AT + mask_size].astype(np.int8)


@dataclass(slots=True)
class DiscardMemory:
    """The discard pile below its top card, read from the hand's pile itself (public: the
    same for every seat) and kept between calls, so that each call reads only the card an
    action put on or took off (a reshuffle or a new hand gives a new list: read again)."""

    pile: object = None
    read: int = 0
    below: int = 0

    def below_top(self, discards: list[int]) -> int:
        """The mask of ``discards[:-1]``."""
        length = len(discards)
        below = self.below
        step = length - self.read
        if self.pile is not discards or not -1 <= step <= 1:
            below = 0
            for card in discards[:-1]:
                below |= 1 << card
            self.pile = discards
        elif step == 1:
            if length > 1:
                below |= 1 << discards[-2]
        elif step == -1 and length:
            below &= ~(1 << discards[-1])
        self.read = length
        self.below = below
        return below


def encode_seat(hand: Hand, scores: list[int] | None, seat: int, below_top: int,
                mask_bits: int, mask_size: int
                ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8]]:
    """:func:`encode_with_mask` of ``view(match, seat)`` read straight from the hand's state
    (``scores``: the match's, or ``None``), only the fields that view holds: the seat's cards,
    the pile, the cards others took from it or showed after a knock, counts, the match
    scores. The same numbers, without building the view (the environments' hot path;
    ``tests/env/test_env_observation.py`` checks it against
    :func:`encode_view`)."""
    hands = hand.hands
    n = len(hands)
    discards = hand.discards
    shown = hands if hand.knock is not None else hand.known
    taken = hand.taken
    one = seat + 1 if seat + 1 < n else 0
    cards = hands[seat]
    joined = (cards | (1 << discards[-1] << 52 if discards else 0) | below_top << 104
              | shown[one] << 156 | (0 if taken is None else 1 << taken << 312)
              | _PHASE_BITS[hand.phase] | 1 << (369 + (hand.dealer - seat) % n)
              | mask_bits << _MASK_AT)
    if n > 2:
        joined |= shown[(seat + 2) % n] << 208
        if n == 4:
            joined |= shown[(seat + 3) % n] << 260
    limit = hand.knock_limit
    deadwood = deadwood_mask(cards)
    reshuffles = hand.reshuffles
    target = hand.rules.target
    flat = _TAKE_F32(_frombuffer(joined.to_bytes((_MASK_AT + mask_size + 7) >> 3, "little"),
                                 _U8), 0).reshape(-1)  # take: about a microsecond less than [raw]
    # the numbers 373-386 written straight into the array's buffer (struct rounds each to
    # float32 as numpy does): a third of the time of assigning a sequence to a slice
    if n == 2 and (scores is None or not target):  # the common table: no list, no appends
        _PACK_HEAD(flat, _HEAD_OFFSET, len(hand.stock) / 52, limit / 10 if limit < 10 else 1.0,
                   deadwood / 100 if deadwood < 100 else 1.0, hands[one].bit_count() / 11,
                   0.0, 0.0, 1.0, 0.0, 0.0, reshuffles / 2 if reshuffles < 2 else 1.0,
                   0.0, 0.0, 0.0, 0.0)
    else:
        _PACK_HEAD(flat, _HEAD_OFFSET, *_head(hand, scores, seat, deadwood, target))
    return flat[:OBS_SIZE], flat[_MASK_AT:_MASK_AT + mask_size].astype(_I8)


def _head(hand: Hand, scores: list[int] | None, seat: int, deadwood: int,
          target: int | None) -> list[float]:
    """:func:`encode_seat`'s numbers 373-386 for any table."""
    hands = hand.hands
    n = len(hands)
    one = seat + 1 if seat + 1 < n else 0
    limit = hand.knock_limit
    head = [len(hand.stock) / 52, limit / 10 if limit < 10 else 1.0,
            deadwood / 100 if deadwood < 100 else 1.0, hands[one].bit_count() / 11]
    if n == 2:
        head += _TWO_SEATS
    else:
        head += (hands[(seat + 2) % n].bit_count() / 11, 0.0, 0.0, 1.0, 0.0)
        if n == 4:
            head[5:9] = (hands[(seat + 3) % n].bit_count() / 11, 0.0, 0.0, 1.0)
    reshuffles = hand.reshuffles
    head.append(reshuffles / 2 if reshuffles < 2 else 1.0)
    if scores is not None and target:
        for offset in range(4):
            share = scores[(seat + offset) % n] / target if offset < n else 0.0
            head.append(share if share < 1.0 else 1.0)
    else:
        head += _NO_SCORES
    return head


_U8 = np.dtype(np.uint8)
_I8 = np.dtype(np.int8)
"""dtype instances: ``np.frombuffer`` and ``astype`` look a dtype class up on every call."""
_frombuffer = np.frombuffer
_TAKE_F32 = _BITS_F32.take
_HEAD_OFFSET = (CARD_FEATURES + 9) * 4
"""Where the numbers 373-386 start, in bytes (``_PACK_HEAD`` writes them in native order)."""
_PACK_HEAD: Callable[..., None] = struct.Struct(f"={OBS_SIZE - CARD_FEATURES - 9}f").pack_into
"""``pack_into(array, offset, *numbers)`` (typed loosely: numpy's stubs do not declare
arrays as buffers before Python 3.12)."""
_PHASE_BITS = {phase: 1 << (364 + index) for phase, index in _PHASES.items()}
"""Each phase's one-hot bit in the packed observation."""


_TWO_SEATS = (0.0, 0.0, 1.0, 0.0, 0.0)
"""Observation 377-381 with two seats: no opponents 2 and 3, players one-hot 2."""
_NO_SCORES = (0.0, 0.0, 0.0, 0.0)


WORDS = PLANES + 3
"""64-bit words of a :func:`decode_words` row: the seven card planes (:func:`card_planes`),
the action mask's low and high 64 bits, then the one-hot scalars (:func:`onehot_word`)."""
NUMBERS = 11
"""Whole numbers of a :func:`decode_words` row: stock size, knock limit, least deadwood,
opponents 1-3's counts, reshuffles, then the match scores of the observer and opponents 1-3
(zeros for a lone hand or the single-hand format)."""


def onehot_word(phase: int, dealer: int, players: int) -> int:
    """The one-hot scalars (phase, the dealer relative to the observer, players) as bits of
    one word, bit ``i`` for observation index ``364 + i``."""
    return 1 << phase | 1 << 5 + dealer | 1 << 13 + players


def number_divisors(target: int) -> npt.NDArray[np.float64]:
    """What :func:`decode_words` divides each of the :data:`NUMBERS` by (``target``: the
    match target, 0 for none)."""
    scores = float(target) if target else 1.0
    return np.array([52, 10, 100, 11, 11, 11, 2] + [scores] * 4, dtype=np.float64)


def decode_words(items: list[int], divisors: npt.NDArray[np.float64], mask_size: int
                 ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8]]:
    """Observations (rows, 387) and masks (rows, ``mask_size``) of many rows, each given as
    :data:`WORDS` words then :data:`NUMBERS` numbers (one flat list), in a few numpy calls:
    :func:`encode_view` and :func:`mask_array` of each row."""
    width = WORDS + NUMBERS
    count = len(items) // width
    raw = np.fromiter(items, dtype="<u8", count=len(items)).reshape(count, width)
    bits = np.unpackbits(raw[:, :WORDS].view(np.uint8), axis=1, bitorder="little").reshape(
        count, WORDS, 64)
    obs = np.empty((count, OBS_SIZE), dtype=np.float32)
    obs[:, :CARD_FEATURES] = bits[:, :PLANES, :52].reshape(count, CARD_FEATURES)
    obs[:, CARD_FEATURES:] = bits[:, PLANES + 2, :SCALARS]
    values = raw[:, WORDS:] / divisors
    np.minimum(values, 1.0, out=values)
    obs[:, CARD_FEATURES + 9:CARD_FEATURES + 15] = values[:, :6]  # stock ... opponents' counts
    obs[:, CARD_FEATURES + 18:] = values[:, 6:]  # reshuffles, scores
    masks = bits[:, PLANES:PLANES + 2].reshape(count, 128)[:, :mask_size].view(np.int8)
    return obs, masks.copy()


def mask_array(bits: int, size: int) -> npt.NDArray[np.int8]:
    """An int bitmask as an int8 array of ``size`` zeros and ones."""
    raw = np.frombuffer(bits.to_bytes((size + 7) // 8, "little"), dtype=np.uint8)
    return _BITS_I8.take(raw, axis=0).reshape(-1)[:size]
