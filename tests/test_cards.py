"""CardSet behaves like a frozenset of card ints; text forms round-trip (R1.1, R1.2)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ginrummy.cards import (
    CARD_VALUES,
    CardSet,
    card_name,
    card_symbol,
    cards_of,
    cards_tuple,
    make_card,
    parse_card,
    parse_cards,
    rank_of,
    suit_of,
)

card_sets = st.frozensets(st.integers(0, 51))


@given(card_sets, card_sets)
def test_set_operations_agree_with_frozenset(a: frozenset[int], b: frozenset[int]) -> None:
    x, y = CardSet.from_cards(a), CardSet.from_cards(b)
    assert set(x | y) == a | b and set(x & y) == a & b
    assert set(x - y) == a - b and set(x ^ y) == a ^ b
    assert (x <= y) == (a <= b) and (x >= y) == (a >= b)
    assert x.isdisjoint(y) == a.isdisjoint(b)
    assert len(x) == len(a) and bool(x) == bool(a)
    assert x == a and hash(x) == hash(CardSet.from_cards(sorted(a)))
    assert list(x) == sorted(a) == cards_of(x.mask) == list(cards_tuple(x.mask))
    assert x.value() == sum(CARD_VALUES[c] for c in a)


@given(card_sets)
def test_text_forms_round_trip(a: frozenset[int]) -> None:
    x = CardSet.from_cards(a)
    assert parse_cards(str(x)) == x
    assert eval(repr(x), {"CardSet": CardSet}) == x
    symbols = " ".join(card_symbol(c) for c in x)
    assert parse_cards(symbols) == x
    assert parse_cards(str(x).lower()) == x


def test_lanes_sorting_and_single_cards() -> None:
    x = parse_cards("Kh As 10d 2s")
    assert x.sorted() == [parse_card(t) for t in ("As", "2s", "Kh", "Td")]
    assert x.sorted("rank") == [parse_card(t) for t in ("As", "2s", "Td", "Kh")]
    assert x.lane(0) == 0b11 and x.lane(1) == 1 << 12 and x.lane(3) == 0
    assert x.add(parse_card("Qc")) == parse_cards("Kh As Td 2s Qc")
    assert x.remove(parse_card("As")) == parse_cards("Kh Td 2s")
    with pytest.raises(KeyError):
        x.remove(parse_card("Qc"))
    assert parse_card("As") in x and 99 not in x and "As" not in x
    assert len(CardSet.full_deck()) == 52
    assert make_card(12, 1) == parse_card("Kh") and rank_of(make_card(12, 1)) == 12
    assert suit_of(parse_card("3c")) == 3 and card_name(make_card(9, 2)) == "Td"


def test_bad_input_is_refused_with_a_clear_message() -> None:
    for bad, words in [("Xs", "bad card 'Xs'"), ("1h", "bad card '1h'"), ("A", "bad card"),
                       ("As As", "duplicate card 'As'"), ("Ax", "bad card 'Ax'")]:
        with pytest.raises(ValueError, match=words):
            parse_cards(bad)
    with pytest.raises(ValueError):
        make_card(13, 0)
    with pytest.raises(ValueError):
        card_name(52)
    with pytest.raises(ValueError):
        CardSet(1 << 52)
    with pytest.raises(AttributeError):
        CardSet(1).mask = 2  # type: ignore[misc]
    with pytest.raises(TypeError):
        CardSet(1) | 5  # type: ignore[operator]
