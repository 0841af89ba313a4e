"""The observation never encodes hidden cards: a Hypothesis property over thousands of steps.

At a checkpoint of a random game, the cards the observing seat cannot know (the others'
unseen cards and the stock) are permuted among themselves, consistently: the same deal with
those cards exchanged, the same actions replayed. The other seats' hands and the stock order
then differ, yet the seat's observation and action mask must be exactly the same.
"""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ginrummy import Ruleset
from ginrummy.actions import Reshuffle
from ginrummy.engine import Hand, Phase
from ginrummy.env.actions import NUM_ACTIONS, legal_bits, legal_ids
from ginrummy.env.observation import (
    PileMemory,
    encode_view,
    encode_with_mask,
    mask_array,
    pile_below_top,
)
from ginrummy.views import view

TABLES = [
    ("eaai", {}),
    ("classic", {"stock_end": "reshuffle"}),
    ("playok", {"discard_history_visible": True, "big_gin": True}),
    ("arena", {"players": 3}),
    ("arena", {"players": 4}),
]
STEPS_PLAYED = [0]


def _hidden_from(hand: Hand, seat: int) -> list[int]:
    """The cards ``seat`` cannot know: not its own, never face up, not known to be held."""
    seen = hand.hands[seat]
    for card in hand.discard_history:
        seen |= 1 << card
    for mask in hand.known:
        seen |= mask
    if hand.knock is not None:  # R4.8: every hand is shown
        for mask in hand.hands:
            seen |= mask
    return [card for card in range(52) if not seen >> card & 1]


def _other_world(hand: Hand, seat: int, rng: random.Random) -> Hand:
    """The same game with ``seat``'s hidden cards permuted among themselves."""
    hidden = _hidden_from(hand, seat)
    shuffled = hidden[:]
    rng.shuffle(shuffled)
    swap = dict(zip(hidden, shuffled, strict=True))
    other = Hand(hand.rules, hand.dealer, [swap.get(card, card) for card in hand.deck])
    for _, action in hand.log:
        other.apply(action)
    return other


def _check(hand: Hand, rng: random.Random) -> bool:
    changed = False
    for seat in range(hand.players):
        other = _other_world(hand, seat, rng)
        mine, theirs = view(hand, seat), view(other, seat)
        assert np.array_equal(encode_view(mine), encode_view(theirs)), (seat, hand.log)
        if hand.to_move == seat:
            assert legal_bits(hand) == legal_bits(other)
        changed |= other.hands != hand.hands or other.stock != hand.stock
    return changed


@settings(max_examples=120, deadline=None)
@given(table=st.sampled_from(TABLES), seed=st.integers(0, 2**32 - 1),
       checkpoints=st.lists(st.integers(0, 200), min_size=1, max_size=4))
def test_observation_never_encodes_hidden_cards(
        table: tuple[str, dict[str, object]], seed: int, checkpoints: list[int]) -> None:
    preset, options = table
    rules = Ruleset.preset(preset, **options)
    rng = random.Random(seed)
    hand = Hand.deal(rules, dealer=seed % rules.players, rng=rng)
    memories = [PileMemory() for _ in range(rules.players)]
    step = 0
    while not hand.over and step <= max(checkpoints):
        if step in checkpoints:
            _check(hand, rng)
        for seat, memory in enumerate(memories):  # the incremental pile is the same
            seen = view(hand, seat)
            assert memory.below_top(seen) == pile_below_top(seen)
        if hand.phase is Phase.RESHUFFLE:
            hand.apply(hand.reshuffle_order(rng))
            continue
        legal = hand.legal_actions()
        hand.apply(legal[int(rng.random() * len(legal))])
        step += 1
    _check(hand, rng)
    STEPS_PLAYED[0] += step
    assert not any(isinstance(a, Reshuffle) and a.order == () for _, a in hand.log)


def test_the_property_played_thousands_of_steps() -> None:
    """Runs after the property (file order): it played thousands of steps in all."""
    if STEPS_PLAYED[0] == 0:
        test_observation_never_encodes_hidden_cards()
    assert STEPS_PLAYED[0] >= 2_000, STEPS_PLAYED[0]


def test_hidden_cards_do_change_in_the_other_world() -> None:
    """The check is not vacuous: the permuted world has other hands or another stock."""
    rng = random.Random(2)
    hand = Hand.deal(Ruleset.preset("eaai"), dealer=0, seed=2)
    for _ in range(20):
        hand.apply(hand.legal_actions()[0])
    assert _check(hand, rng)


def test_the_fast_encoder_equals_the_plain_one() -> None:
    """encode_with_mask (what the environments use) gives encode_view's tensor and the mask."""
    rng = random.Random(5)
    hand = Hand.deal(Ruleset.preset("arena", players=3), dealer=0, seed=5)
    while not hand.over:
        if hand.phase is Phase.RESHUFFLE:
            hand.apply(hand.reshuffle_order(rng))
            continue
        seat = hand.to_move
        seen = view(hand, seat)
        bits = legal_bits(hand)
        tensor, mask = encode_with_mask(seen, pile_below_top(seen), bits, NUM_ACTIONS)
        assert np.array_equal(tensor, encode_view(seen))
        assert np.array_equal(mask, mask_array(bits, NUM_ACTIONS))
        assert mask.dtype == np.int8 and sorted(np.flatnonzero(mask)) == legal_ids(hand)
        legal = hand.legal_actions()
        hand.apply(legal[int(rng.random() * len(legal))])
