"""Hypothesis properties of deadwood, arrangements, knock options and layoffs (R1.4, R4)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ginrummy.cards import CARD_VALUES, CardSet
from ginrummy.solver import (
    best_arrangements,
    best_defence,
    best_melds,
    check_layoffs,
    deadwood,
    deadwood_mask,
    knock_options,
)

cards_st = st.integers(0, 51)
hands = st.sets(cards_st, max_size=11)
dense = st.integers(0, 8).flatmap(
    lambda low: st.sets(st.sampled_from([s * 13 + r for s in range(4)
                                         for r in range(low, low + 5)]), max_size=11))
any_hand = st.one_of(hands, dense)


def value(cards: set[int] | frozenset[int]) -> int:
    return sum(CARD_VALUES[c] for c in cards)


@given(any_hand)
def test_R1_4_deadwood_is_at_most_the_hand_value(hand: set[int]) -> None:
    assert 0 <= deadwood(hand) <= value(hand)


@given(any_hand, cards_st)
def test_R1_4_one_more_card_adds_at_most_its_value(hand: set[int], card: int) -> None:
    if card not in hand:
        assert deadwood(hand | {card}) <= deadwood(hand) + CARD_VALUES[card]


@given(any_hand, any_hand)
def test_R1_4_deadwood_is_subadditive_on_disjoint_hands(a: set[int], b: set[int]) -> None:
    b = b - a
    assert deadwood(a | b) <= deadwood(a) + deadwood(b)


@given(any_hand, st.permutations(range(4)))
def test_R1_4_deadwood_ignores_which_suit_is_which(hand: set[int], perm: list[int]) -> None:
    moved = {perm[c // 13] * 13 + c % 13 for c in hand}
    assert deadwood(moved) == deadwood(hand)


@st.composite
def melded_hands(draw: st.DrawFn) -> frozenset[int]:
    """Unions of disjoint valid melds."""
    used: set[int] = set()
    for _ in range(draw(st.integers(0, 4))):
        if draw(st.booleans()):
            rank = draw(st.integers(0, 12))
            suits = draw(st.sets(st.integers(0, 3), min_size=3, max_size=4))
            meld = {s * 13 + rank for s in suits}
        else:
            suit = draw(st.integers(0, 3))
            length = draw(st.integers(3, 6))
            start = draw(st.integers(0, 13 - length))
            meld = {suit * 13 + r for r in range(start, start + length)}
        if not meld & used:
            used |= meld
    return frozenset(used)


@given(melded_hands())
def test_R1_3_a_hand_of_disjoint_melds_has_no_deadwood(hand: frozenset[int]) -> None:
    assert deadwood(hand) == 0
    assert best_melds(hand).unmatched == ()


@given(melded_hands(), st.sets(cards_st, max_size=3))
def test_R1_4_melds_plus_extra_cards_cost_at_most_the_extras(
    hand: frozenset[int], extra: set[int]
) -> None:
    extra = extra - hand
    assert deadwood(hand | extra) <= value(extra)


@given(any_hand)
def test_best_melds_and_arrangements_agree_with_deadwood(hand: set[int]) -> None:
    best = best_melds(hand)
    mask = CardSet.from_cards(hand).mask
    assert best.deadwood == deadwood_mask(mask) == deadwood(hand)
    assert best.cards == CardSet.from_cards(hand)
    arrangements = best_arrangements(hand)
    assert arrangements[0] == best
    assert all(a.deadwood == best.deadwood and a.cards == best.cards for a in arrangements)
    assert len(set(arrangements)) == len(arrangements)


@settings(max_examples=200)
@given(st.integers(0, 8).flatmap(
    lambda low: st.sets(st.sampled_from([s * 13 + r for s in range(4)
                                         for r in range(low, low + 5)]),
                        min_size=2, max_size=11)),
       st.integers(0, 10))
def test_R4_1_knock_options_are_exactly_the_discards_within_the_limit(
    hand: set[int], limit: int
) -> None:
    options = knock_options(hand, knock_limit=limit)
    expected = sorted((deadwood(hand - {c}), c) for c in hand)
    assert [(o.deadwood, o.discard) for o in options] == [e for e in expected if e[0] <= limit]


@settings(max_examples=200)
@given(melded_hands(), st.sets(cards_st, min_size=1, max_size=8))
def test_R4_4_layoffs_never_raise_deadwood_and_are_legal(
    table: frozenset[int], hand: set[int]
) -> None:
    melds = best_melds(table).melds
    hand = hand - table
    for chain in ("own", "none"):
        defence = best_defence(hand, melds, chain=chain)
        assert defence.deadwood <= deadwood(hand)
        assert check_layoffs(melds, defence.layoffs, chain=chain) is None
    assert best_defence(hand, melds, "own").deadwood <= best_defence(hand, melds, "none").deadwood
