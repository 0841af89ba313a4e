"""Melds, deadwood and arrangements on chosen hands (R1.1-R1.4, R4.3)."""

from __future__ import annotations

import pytest

from ginrummy.cards import CardSet, parse_card, parse_card_list
from ginrummy.solver import (
    Arrangement,
    arrangement_from_melds,
    best_arrangements,
    best_melds,
    deadwood,
    deadwood_mask,
    is_meld,
    meld_kind,
)


def cards(text: str) -> list[int]:
    return parse_card_list(text)


def test_R1_3_set_is_three_or_four_of_a_rank() -> None:
    assert meld_kind(cards("7h 7d 7c")) == "set"
    assert meld_kind(cards("7s 7h 7d 7c")) == "set"
    assert meld_kind(cards("7h 7d")) is None
    assert meld_kind(cards("7h 7d 8c")) is None
    assert is_meld(CardSet.parse("Ks Kh Kc"))


def test_R1_3_run_is_three_or_more_consecutive_of_a_suit() -> None:
    assert meld_kind(cards("5h 6h 7h")) == "run"
    assert meld_kind(cards("9c Tc Jc Qc Kc")) == "run"
    assert meld_kind(cards("As 2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks")) == "run"
    assert meld_kind(cards("5h 6h")) is None
    assert meld_kind(cards("5h 6h 8h")) is None
    assert meld_kind(cards("5h 6h 7d")) is None
    assert not is_meld([])


def test_R1_1_ace_is_low_and_runs_never_wrap() -> None:
    assert meld_kind(cards("As 2s 3s")) == "run"
    assert meld_kind(cards("Qs Ks As")) is None
    assert meld_kind(cards("Ks As 2s")) is None
    # the king of spades and the ace of hearts are neighbours as ints, not as cards
    assert meld_kind(cards("Qs Ks Ah")) is None
    assert deadwood(cards("Qs Ks Ah")) == 21


def test_R1_2_card_values() -> None:
    assert deadwood(cards("As")) == 1
    assert deadwood(cards("9d")) == 9
    assert deadwood(cards("Th Jh Qc Kd")) == 40
    assert deadwood([]) == 0


def test_R1_3_a_card_belongs_to_one_meld() -> None:
    # 7h cannot be in both the set and the run: either meld leaves 14
    hand = cards("7s 7d 7h 6h 8h")
    assert deadwood(hand) == 14
    assert [str(a) for a in best_arrangements(hand)] == [
        "[7s 7h 7d] | 8h 6h (14)", "[6h 7h 8h] | 7s 7d (14)"]


def test_R1_4_deadwood_is_the_minimum_over_arrangements() -> None:
    hand = cards("As 2s 3s 7h 7d 7c Kd 9c")
    assert deadwood(hand) == 19
    best = best_melds(hand)
    assert best.melds == (tuple(cards("As 2s 3s")), tuple(cards("7h 7d 7c")))
    assert best.unmatched == tuple(cards("Kd 9c"))
    assert str(best) == "[As 2s 3s] [7h 7d 7c] | Kd 9c (19)"


def test_R1_4_four_of_a_kind_lends_one_card_to_a_run() -> None:
    hand = cards("5s 5h 5d 5c 6c 7c")
    assert deadwood(hand) == 0
    assert best_melds(hand).melds == (tuple(cards("5s 5h 5d")), tuple(cards("5c 6c 7c")))


def test_R1_4_sets_or_runs_whichever_is_better() -> None:
    assert str(best_melds(cards("4s 5s 6s 6h 6d 4h 4d"))) == "[4s 4h 4d] [6s 6h 6d] | 5s (5)"
    assert str(best_melds(cards("3s 3h 3d 4s 5s 4h 5h"))) == "[3s 4s 5s] [3h 4h 5h] | 3d (3)"
    assert str(best_melds(cards("7s 7h 7d 7c 8s 9s 8h 9h"))) == "[7s 8s 9s] [7h 8h 9h] | 7d 7c (14)"
    assert str(best_melds(cards("3s 4s 5s 5h 5d"))) == "[5s 5h 5d] | 4s 3s (7)"
    assert str(best_melds(cards("2c 3c 4c 4h 4d 2h 2d"))) == "[2h 2d 2c] [4h 4d 4c] | 3c (3)"


def test_R1_4_a_long_run_is_one_meld_not_its_splits() -> None:
    assert [a.melds for a in best_arrangements(cards("4d 5d 6d 7d 8d 9d"))] == [
        (tuple(cards("4d 5d 6d 7d 8d 9d")),)]
    # a set takes the middle card: the run breaks into two blocks, each reported whole
    assert str(best_melds(cards("3d 4d 5d 6d 7d 8d 9d 6s 6h"))) == (
        "[3d 4d 5d] [6s 6h 6d] [7d 8d 9d] | (0)")


def test_R1_4_equal_arrangements_are_all_listed() -> None:
    # Ts Th Td Jh Qh: the set of tens leaves Jh Qh, the run Th-Qh leaves Ts Td: 20 either way
    tie = best_arrangements(cards("Ts Th Td Jh Qh"))
    assert [str(a) for a in tie] == ["[Ts Th Td] | Qh Jh (20)", "[Th Jh Qh] | Ts Td (20)"]
    # four of a kind, either of two cards lent to a run
    quad = best_arrangements(cards("5s 5h 5d 5c 3s 4s 3h 4h"))
    assert [str(a) for a in quad] == ["[3s 4s 5s] [5h 5d 5c] | 4h 3h (7)",
                                      "[3h 4h 5h] [5s 5d 5c] | 4s 3s (7)"]
    assert best_melds(cards("5s 5h 5d 5c 3s 4s 3h 4h")) == quad[0]


def test_deadwood_accepts_cardset_mask_and_card_ints() -> None:
    hand = cards("As 2s 3s Kd")
    assert deadwood(hand) == deadwood(CardSet.from_cards(hand)) == 10
    assert deadwood(CardSet.from_cards(hand).mask) == deadwood_mask(CardSet.from_cards(hand).mask)
    assert deadwood(iter(hand)) == 10


def test_bad_cards_are_refused() -> None:
    with pytest.raises(ValueError, match="not a card"):
        deadwood([52])
    with pytest.raises(ValueError, match="not a card"):
        deadwood([-1])
    with pytest.raises(ValueError, match="twice"):
        deadwood([3, 3])
    with pytest.raises(ValueError):
        deadwood(1 << 52)
    with pytest.raises(ValueError):
        is_meld([1, 2, "x"])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        deadwood("As 2s")  # type: ignore[arg-type]


def test_arrangement_str_and_cards() -> None:
    a = best_melds(cards("As 2s 3s 4s"))
    assert str(a) == "[As 2s 3s 4s] | (0)"
    assert a.cards == CardSet.parse("As 2s 3s 4s")
    assert a.is_gin
    assert str(best_melds(cards("Kd"))) == "| Kd (10)"
    assert str(best_melds([])) == "| (0)"
    assert best_melds(cards("9c Kd 2h Kc")).unmatched == tuple(cards("Kd Kc 9c 2h"))


def test_R4_3_arrangement_from_melds_keeps_the_players_choice() -> None:
    hand = cards("4d 5d 6d 7d 8d 9d 7s 7c Kh")
    a = arrangement_from_melds(hand, [cards("7d 8d 9d"), cards("4d 5d 6d")])
    assert a == Arrangement(
        (tuple(cards("4d 5d 6d")), tuple(cards("7d 8d 9d"))), tuple(cards("Kh 7s 7c")), 24)
    b = arrangement_from_melds(hand, [cards("7c 7s 7d"), cards("4d 5d 6d")])
    assert b.melds == (tuple(cards("4d 5d 6d")), tuple(cards("7s 7d 7c")))
    assert b.deadwood == 27
    assert arrangement_from_melds(hand, []).deadwood == 4 + 5 + 6 + 7 + 8 + 9 + 7 + 7 + 10


def test_R4_3_arrangement_from_melds_refuses_bad_melds() -> None:
    hand = cards("4d 5d 6d 7d 7s 7c Kh")
    with pytest.raises(ValueError, match=r"\[4d 5d 7d\] is not a meld"):
        arrangement_from_melds(hand, [cards("4d 5d 7d")])
    with pytest.raises(ValueError, match="8d is not in the hand"):
        arrangement_from_melds(hand, [cards("6d 7d 8d")])
    with pytest.raises(ValueError, match="7d is already in another meld"):
        arrangement_from_melds(hand, [cards("5d 6d 7d"), cards("7s 7d 7c")])
    with pytest.raises(ValueError, match="not a card"):
        arrangement_from_melds(hand, [[60, 61, 62]])


def test_best_melds_is_deterministic() -> None:
    hand = cards("3s 5s 6s 5c 6c 3d 6d 4h 5h 6h 7h")
    assert best_melds(hand) == best_melds(list(reversed(hand))) == best_melds(CardSet.from_cards(
        hand))
    assert best_arrangements(hand) == best_arrangements(sorted(hand))


def test_parse_card_helper_agrees() -> None:
    assert cards("Th") == [parse_card("10h")]
