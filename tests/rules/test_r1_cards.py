"""R1. Cards, values, melds: checked through the engine with explicit decks."""

from __future__ import annotations

import pytest

from ginrummy.actions import parse_action
from ginrummy.cards import RANKS, SUITS, CardSet, card_name, card_value, parse_card
from ginrummy.engine import Hand, Phase
from ginrummy.errors import InvalidArrangementError, InvalidLayoffError, KnockLimitError
from ginrummy.rules import Ruleset
from helpers import assert_illegal, card, make_hand, play

CLASSIC = Ruleset.preset("classic")


# --------------------------------------------------------------------------- R1.1


def test_R1_1_one_52_card_deck_no_jokers():
    deck = CardSet.full_deck()
    assert len(deck) == 52
    assert {card_name(c) for c in deck} == {r + s for r in RANKS for s in SUITS}
    for joker in ("Jo", "JK", "joker", "Xs", "1s", "11h"):
        with pytest.raises(ValueError):
            parse_card(joker)
    hand = Hand.deal(CLASSIC, dealer=0, seed=5)
    everything = [c for s in range(2) for c in hand.hand_of(s)] + hand.stock + hand.discards
    assert sorted(everything) == list(range(52))


def test_R1_1_a_deck_must_hold_each_card_once():
    deck = list(range(52))
    with pytest.raises(ValueError, match="52 cards"):
        Hand(CLASSIC, 0, deck[:51])
    with pytest.raises(ValueError, match="52 cards"):
        Hand(CLASSIC, 0, [*deck[:51], 0])


def _ace_hand() -> Hand:
    # seat 0 draws Ah: A-2-3 of hearts is a run, Q-K-A of hearts is not
    return make_hand(CLASSIC, {0: "2h 3h Qh Kh 4s 4d 4c 9c 9d 9s"}, stock="Ah")


def test_R1_1_ace_is_low_no_wraparound():
    hand = _ace_hand()
    play(hand, "stock")
    assert_illegal(hand, "knock 9s [Qh Kh Ah] [4s 4d 4c]", InvalidArrangementError,
                   "not a meld", "Ah", "Kh", "Qh")
    assert_illegal(hand, "knock 9s [Kh Ah 2h] [4s 4d 4c]", InvalidArrangementError, "not a meld")
    play(hand, "knock Kh [Ah 2h 3h] [4s 4d 4c] [9s 9d 9c]")
    assert hand.knock is not None
    assert hand.knock.deadwood == 10  # Qh alone: the ace went into A-2-3
    assert hand.knock.unmatched == (card("Qh"),)


def test_R1_1_no_layoff_wraps_past_the_king():
    # the knocker lays Js Qs Ks; the defender's As may not extend it (and 2s 3s cannot either)
    hand = make_hand(
        CLASSIC,
        {0: "Js Qs Ks 5h 5d 5c 8c 9c Tc 2d", 1: "As 2s 3s 7h 7d 7c Kh Kd 4h 6d"},
        stock="Kc",
    )
    play(hand, "stock", "knock Kc [Js Qs Ks] [5h 5d 5c] [8c 9c Tc]")
    js_meld = next(i for i, m in enumerate(hand.knock.melds) if card("Js") in m) + 1
    assert_illegal(hand, f"layoff [7h 7d 7c] As@{js_meld}", InvalidLayoffError, "wrap")
    assert_illegal(hand, f"layoff [As 2s 3s] [7h 7d 7c] As@{js_meld}",
                   InvalidArrangementError, "As")
    play(hand, "layoff [As 2s 3s] [7h 7d 7c]")
    assert hand.phase is Phase.OVER
    assert hand.result.deadwood == (2, 30)


# --------------------------------------------------------------------------- R1.2


@pytest.mark.parametrize(
    ("rank", "value"),
    [("A", 1), ("2", 2), ("3", 3), ("4", 4), ("5", 5), ("6", 6), ("7", 7), ("8", 8), ("9", 9),
     ("T", 10), ("J", 10), ("Q", 10), ("K", 10)],
)
def test_R1_2_card_values(rank, value):
    for suit in SUITS:
        assert card_value(parse_card(rank + suit)) == value


def test_R1_2_values_decide_the_knock():
    # after drawing Ah: [As 2s 3s] [4h 4d 4c] [7c 8c 9c] with Kd and Ah loose
    hand = make_hand(CLASSIC, {0: "As 2s 3s 4h 4d 4c 7c 8c 9c Kd"}, stock="Ah")
    play(hand, "stock")
    # Ah 7c 8c Kd: 1 + 7 + 8 + 10
    assert_illegal(hand, "knock 9c [As 2s 3s] [4h 4d 4c]", KnockLimitError, "deadwood 26")
    # 4h 4d Kd Ah: 4 + 4 + 10 + 1
    assert_illegal(hand, "knock 4c [As 2s 3s] [7c 8c 9c]", KnockLimitError, "deadwood 19")
    # a king alone is worth 10: exactly the limit
    copy = hand.copy()
    play(copy, "knock Ah [As 2s 3s] [4h 4d 4c] [7c 8c 9c]")
    assert copy.knock.deadwood == 10
    play(hand, "knock Kd [As 2s 3s] [4h 4d 4c] [7c 8c 9c]")
    assert hand.knock.deadwood == 1


# --------------------------------------------------------------------------- R1.3


def _meld_hand() -> Hand:
    hand = make_hand(CLASSIC, {0: "5s 5h 5d 5c 6c 7c 8c 9c Ks Kh"}, stock="Kd")
    play(hand, "stock")
    return hand


def test_R1_3_sets_of_three_or_four_runs_of_three_or_more():
    hand = _meld_hand()
    # a run of four, sets of three
    assert hand.is_legal(parse_action("knock 5s [5h 5d 5c] [6c 7c 8c 9c] [Ks Kh Kd]"))
    # a run of five (big gin keeps every card, so the 5c can join the run)
    big = make_hand(CLASSIC.replace(big_gin=True), {0: "5s 5h 5d 5c 6c 7c 8c 9c Ks Kh"},
                    stock="Kd")
    play(big, "stock")
    assert big.is_legal(parse_action("gin [5s 5h 5d] [5c 6c 7c 8c 9c] [Ks Kh Kd]"))
    # a set of four
    play(hand, "knock 9c [5s 5h 5d 5c] [6c 7c 8c] [Ks Kh Kd]")
    assert hand.knock.gin
    assert sorted(len(m) for m in hand.knock.melds) == [3, 3, 4]


def test_R1_3_not_melds_are_refused():
    hand = _meld_hand()
    assert_illegal(hand, "knock 9c [5s 5h 5d 5c] [6c 7c 8c] [Ks Kh]", InvalidArrangementError,
                   "not a meld")
    assert_illegal(hand, "knock 9c [5s 6c 7c] [Ks Kh Kd]", InvalidArrangementError,
                   "not a meld")
    assert_illegal(hand, "knock 9c [5s 5h 5d 5c 6c] [Ks Kh Kd]", InvalidArrangementError,
                   "not a meld")
    assert_illegal(hand, "knock 9c [6c 8c 9c] [Ks Kh Kd]", InvalidArrangementError, "not a meld")


def test_R1_3_a_card_belongs_to_at_most_one_meld():
    hand = _meld_hand()
    assert_illegal(hand, "knock 9c [5s 5h 5d 5c] [5c 6c 7c 8c] [Ks Kh Kd]",
                   InvalidArrangementError, "5c", "another meld")


def test_R1_3_melds_are_of_the_players_own_cards():
    hand = _meld_hand()
    assert_illegal(hand, "knock 9c [5s 5h 5d 5c] [6c 7c 8c] [Qs Ks Kh]",
                   InvalidArrangementError, "not a meld")
    assert_illegal(hand, "knock 9c [5s 5h 5d 5c] [6c 7c 8c] [Ks Kh Kc]",
                   InvalidArrangementError, "Kc", "not in the hand")
    # the discard cannot be melded as well
    assert_illegal(hand, "knock 9c [5s 5h 5d 5c] [6c 7c 8c 9c] [Ks Kh Kd]",
                   InvalidArrangementError, "9c", "not in the hand")


# --------------------------------------------------------------------------- R1.4


def test_R1_4_deadwood_is_the_least_over_all_arrangements():
    # the defender's 7s 7h 7d 8d 9d: the run 7d 8d 9d leaves 7s 7h (14), the set would leave
    # 8d 9d (17); with Kc Qc 2h 3c 4c loose his deadwood is 14 + 29 = 43
    hand = make_hand(
        CLASSIC,
        {0: "As 2s 3s 4s 5h 5d 5c 9h 9c 9s", 1: "7s 7h 7d 8d 9d Kc Qc 2h 3c 4c"},
        stock="Kd",
    )
    play(hand, "stock", "knock Kd [As 2s 3s 4s] [5h 5d 5c] [9h 9c 9s]")
    assert hand.knock.gin
    assert hand.result.deadwood == (0, 14 + 10 + 10 + 2 + 3 + 4)
    defence = hand.defences[0]
    assert (card("7d"), card("8d"), card("9d")) in defence.melds


def test_R1_4_a_player_laying_down_his_own_arrangement_keeps_its_deadwood():
    # after a knock a defender who melds less than he could is held to what he lays down
    hand = make_hand(
        CLASSIC,
        {0: "As 2s 3s 4s 5h 5d 5c 6h 2c Ah", 1: "7s 7h 7d 8d 9d Kc Qc 2h 3c 4c"},
        stock="Kd",
    )
    play(hand, "stock", "knock Kd [As 2s 3s 4s] [5h 5d 5c]")
    assert hand.knock.deadwood == 6 + 2 + 1
    # the defender could meld 7d 8d 9d (deadwood 43) but lays down the set of sevens only
    play(hand, "layoff [7s 7h 7d]")
    assert hand.result.deadwood == (9, 8 + 9 + 10 + 10 + 2 + 3 + 4)
