"""Knock options (R4.1, R4.2, R3.3) against the oracle, discard by discard."""

from __future__ import annotations

import random

import oracle
import pytest

from ginrummy.cards import CardSet, parse_card, parse_card_list
from ginrummy.solver import KnockOption, knock_options


def cards(text: str) -> list[int]:
    return parse_card_list(text)


def test_R4_1_openspiel_trap_discarding_7h_leaves_10() -> None:
    hand = cards("3s 5s 6s 5c 6c 3d 6d 4h 5h 6h 7h")
    options = knock_options(hand)
    by_card = {o.discard: o for o in options}
    seven = by_card[parse_card("7h")]
    assert seven.deadwood == 10 and not seven.gin
    assert seven.arrangement.deadwood == 10
    assert seven.arrangement.cards == CardSet.from_cards(hand) - [parse_card("7h")]
    assert [(o.discard, o.deadwood) for o in options] == [(parse_card("7h"), 10)]
    assert knock_options(hand, knock_limit=9) == []


def test_R4_1_options_sorted_by_deadwood_then_card() -> None:
    hand = cards("As 2s 3s 4h 5h 6h 7c 7d 7s 2c Kd")
    options = knock_options(hand)
    assert [(o.deadwood, o.discard) for o in options] == [
        (2, parse_card("Kd")), (10, parse_card("2c"))]
    assert str(options[0]) == "discard Kd, knock: [As 2s 3s] [4h 5h 6h] [7s 7d 7c] | 2c (2)"


def test_R4_2_gin_and_big_gin() -> None:
    hand = cards("As 2s 3s 4s 4h 5h 6h 7c 7d 7s Kd")
    options = knock_options(hand)
    assert [(o.discard, o.deadwood, o.gin) for o in options] == [
        (parse_card("Kd"), 0, True), (parse_card("As"), 10, False),
        (parse_card("4s"), 10, False)]
    assert str(options[0]) == "discard Kd, gin: [As 2s 3s 4s] [4h 5h 6h] [7s 7d 7c] | (0)"
    assert knock_options(hand, big_gin=True) == options
    hand = cards("As 2s 3s 4s 4h 5h 6h 7c 7d 7s 7h")
    without = knock_options(hand)
    assert all(o.discard is not None and not o.big_gin for o in without)
    assert [(o.discard, o.deadwood) for o in without] == list(zip(
        cards("As 4s 7s 4h 7h 7d 7c 3s 2s 6h 5h"), (0, 0, 0, 0, 0, 0, 0, 7, 8, 9, 10),
        strict=True))
    assert str(without[3]) == "discard 4h, gin: [As 2s 3s 4s] [5h 6h 7h] [7s 7d 7c] | (0)"
    with_big = knock_options(hand, big_gin=True)
    big = with_big[0]
    assert big == KnockOption(None, big.arrangement, 0, True, True)
    assert big.arrangement.cards == CardSet.from_cards(hand) and big.arrangement.deadwood == 0
    assert with_big[1:] == without
    assert str(big) == "big gin: [As 2s 3s 4s] [4h 5h 6h] [7s 7h 7d 7c] | (0)"


def test_R3_3_forbidden_discard_is_not_offered() -> None:
    hand = cards("As 2s 3s 4h 5h 6h 7c 7d 7s 2c Kd")
    options = knock_options(hand, forbidden=parse_card("Kd"))
    assert [o.discard for o in options] == [parse_card("2c")]
    with pytest.raises(ValueError, match="forbidden"):
        knock_options(hand, forbidden=parse_card("Qd"))


def test_knock_limit_zero_is_gin_only() -> None:
    hand = cards("As 2s 3s 4s 4h 5h 6h 7c 7d 7s Kd")
    assert [o.discard for o in knock_options(hand, knock_limit=0)] == [parse_card("Kd")]
    assert knock_options(hand, knock_limit=0, forbidden=parse_card("Kd")) == []


def test_bad_hand_sizes_are_refused() -> None:
    with pytest.raises(ValueError, match="2 to 11"):
        knock_options(cards("As"))
    with pytest.raises(ValueError, match="2 to 11"):
        knock_options(list(range(12)))
    with pytest.raises(ValueError, match="knock limit"):
        knock_options(cards("As 2s"), knock_limit=-1)


def _random_hand(rng: random.Random, size: int) -> int:
    if rng.random() < 0.3:
        pool = list(range(52))
    else:
        low = rng.randrange(0, 9)
        pool = [s * 13 + r for s in range(4) for r in range(low, low + rng.choice((4, 5)))]
        pool += rng.sample([c for c in range(52) if c not in pool], 4)
    return oracle.mask_of(rng.sample(pool, size))


@pytest.mark.parametrize("seed", range(4))
def test_R4_1_every_discard_matches_the_oracle(seed: int) -> None:
    rng = random.Random(50 + seed)
    for _ in range(2500):
        size = rng.choice((11, 11, 11, 8, 8, rng.randint(2, 11)))
        mask = _random_hand(rng, size)
        limit = rng.choice((10, 10, 10, 0, rng.randint(0, 10)))
        big = rng.random() < 0.3
        hand = oracle.cards_in(mask)
        forbidden = rng.choice(hand) if rng.random() < 0.5 else None
        memo: dict[int, int] = {}
        expected = []
        for card in hand:
            dw = oracle.min_deadwood(mask & ~(1 << card), memo)
            if dw <= limit and card != forbidden:
                expected.append((dw, card))
        expected.sort()
        got = knock_options(mask, knock_limit=limit, big_gin=big, forbidden=forbidden)
        if big and oracle.min_deadwood(mask, memo) == 0:
            assert got[0].discard is None and got[0].big_gin and got[0].gin
            assert got[0].arrangement.cards == CardSet(mask)
            assert got[0].arrangement.deadwood == 0
            got = got[1:]
        assert [(o.deadwood, o.discard) for o in got] == expected, CardSet(mask)
        for option in got:
            assert option.discard is not None and not option.big_gin
            assert option.gin == (option.deadwood == 0)
            assert option.arrangement.deadwood == option.deadwood
            assert option.arrangement.cards.mask == mask & ~(1 << option.discard)
