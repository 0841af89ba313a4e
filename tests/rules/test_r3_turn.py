"""R3. A turn: drawing, discarding, the taken card, discard history, the first-turn offer."""

from __future__ import annotations

import json

import pytest

from ginrummy.actions import Discard, DrawDiscard, DrawStock, Knock, Pass
from ginrummy.engine import Hand, Phase
from ginrummy.errors import (
    CardNotHeldError,
    IllegalActionError,
    NotYourTurnError,
    RediscardError,
    WrongPhaseError,
)
from ginrummy.rules import Ruleset, RulesetError
from ginrummy.views import view
from helpers import assert_illegal, card, make_hand, play

CLASSIC = Ruleset.preset("classic")
ARENA = Ruleset.preset("arena")

# seat 0 plays first (seat 1 deals); the stock top is 5c, then 6c, then 7c; the upcard Qd
HANDS = {0: "As 2s 3s 4h 4d 4c 9c 8h Kh Jd", 1: "5s 6s 7s Th Tc Ts 2h 3d 6d 8d"}


def _hand(rules: Ruleset = CLASSIC, **kw) -> Hand:
    return make_hand(rules, HANDS, upcard="Qd", stock="5c 6c 7c", **kw)


# --------------------------------------------------------------------------- R3.1


def test_R3_1_draw_the_top_card_of_the_stock():
    hand = _hand()
    assert hand.phase is Phase.DRAW and hand.to_move == 0
    assert set(hand.legal_actions()) == {DrawStock(), DrawDiscard()}
    play(hand, "stock")
    assert card("5c") in hand.hand_of(0)
    assert hand.phase is Phase.DISCARD and hand.taken is None
    play(hand, "discard Kh", "stock")
    assert card("6c") in hand.hand_of(1)


def test_R3_1_take_the_top_discard():
    hand = _hand()
    play(hand, "take")
    assert card("Qd") in hand.hand_of(0)
    assert hand.discards == [] and hand.taken == card("Qd")
    play(hand, "discard Kh", "take")
    assert card("Kh") in hand.hand_of(1)


def test_R3_1_cards_below_the_top_discard_are_dead():
    hand = _hand()
    play(hand, "stock", "discard Kh")
    assert hand.discards == [card("Qd"), card("Kh")]
    play(hand, "take")  # only the Kh can be taken; the Qd below it is dead
    assert card("Kh") in hand.hand_of(1) and card("Qd") not in hand.hand_of(1)
    # the Qd is on top for a moment, but the taker must discard before anyone draws again
    assert hand.top_discard == card("Qd")
    assert_illegal(hand, "take", WrongPhaseError, "take", "discard phase")
    play(hand, "discard 2h")
    assert hand.top_discard == card("2h") and hand.discards == [card("Qd"), card("2h")]


# --------------------------------------------------------------------------- R3.2


def test_R3_2_after_drawing_discard_or_knock():
    hand = _hand()
    assert_illegal(hand, "discard Kh", WrongPhaseError, "discard", "draw phase")
    play(hand, "stock")
    kinds = {type(a) for a in hand.legal_actions()}
    assert kinds == {Discard}  # this hand cannot knock yet
    assert_illegal(hand, "stock", WrongPhaseError, "stock", "discard phase")
    assert_illegal(hand, "take", WrongPhaseError, "take")
    assert_illegal(hand, "pass", WrongPhaseError, "pass")
    assert_illegal(hand, "layoff [As 2s 3s]", WrongPhaseError, "layoff")
    play(hand, "discard Kh")
    assert len(hand.hand_of(0)) == 10
    assert hand.phase is Phase.DRAW and hand.to_move == 1


def test_R3_2_knock_is_offered_after_drawing_when_possible():
    hand = make_hand(CLASSIC, {0: "As 2s 3s 4h 4d 4c 7c 8c 2d Kh"}, stock="9c")
    assert not any(isinstance(a, Knock) for a in hand.legal_actions())
    play(hand, "stock")
    knocks = [a for a in hand.legal_actions() if isinstance(a, Knock)]
    assert {k.discard for k in knocks} == {card("Kh"), card("2d")}
    assert {type(a) for a in hand.legal_actions()} == {Discard, Knock}


def test_R3_2_illegal_turn_actions_change_nothing():
    hand = _hand()
    assert_illegal(hand, "stock", NotYourTurnError, "seat 1", "seat 0", seat=1)
    assert_illegal(hand, "dance", IllegalActionError, "unknown action")
    assert_illegal(hand, "discard", IllegalActionError, "discard")
    play(hand, "stock")
    assert_illegal(hand, "discard Kd", CardNotHeldError, "Kd", "not in seat 0")
    assert_illegal(hand, Discard(77), CardNotHeldError, "not in seat 0")
    assert_illegal(hand, "discard 5s", CardNotHeldError, "5s")  # seat 1's card
    assert_illegal(hand, "discard Kh", NotYourTurnError, "seat 1", seat=1)


# --------------------------------------------------------------------------- R3.3


def test_R3_3_taken_card_cannot_be_rediscarded():
    hand = _hand()
    play(hand, "take")
    assert Discard(card("Qd")) not in hand.legal_actions()
    assert card("Qd") not in hand.discard_choices()
    assert_illegal(hand, "discard Qd", RediscardError, "Qd", "R3.3")
    play(hand, "discard Kh")
    play(hand, "take")
    assert_illegal(hand, "discard Kh", RediscardError, "Kh")


def test_R3_3_nor_as_the_knock_discard():
    # seat 0 can knock with any discard once he holds 10 melded/low cards; he takes the upcard
    hand = make_hand(CLASSIC, {0: "As 2s 3s 4h 4d 4c 7c 8c 9c 2d"}, upcard="Kd")
    play(hand, "take")
    knocks = [a for a in hand.legal_actions() if isinstance(a, Knock)]
    assert knocks and all(k.discard != card("Kd") for k in knocks)
    assert_illegal(hand, "knock Kd [As 2s 3s] [4h 4d 4c] [7c 8c 9c]", RediscardError,
                   "Kd", "R3.3")
    play(hand, "knock 2d [As 2s 3s] [4h 4d 4c] [7c 8c 9c]")
    assert hand.knock.deadwood == 10


def test_R3_3_option_off_allows_the_rediscard():
    rules = CLASSIC.replace(no_rediscard_of_taken_card=False)
    hand = make_hand(rules, {0: "As 2s 3s 4h 4d 4c 7c 8c 9c 2d"}, upcard="Kd")
    play(hand, "take")
    assert Discard(card("Kd")) in hand.legal_actions()
    assert any(isinstance(a, Knock) and a.discard == card("Kd") for a in hand.legal_actions())
    play(hand, "knock Kd [As 2s 3s] [4h 4d 4c] [7c 8c 9c]")
    assert hand.knock.deadwood == 2 and hand.top_discard == card("Kd")
    plain = _hand(rules)
    play(plain, "take", "discard Qd")
    assert plain.top_discard == card("Qd")


def test_R3_3_a_card_drawn_from_the_stock_may_be_discarded_at_once():
    hand = _hand()
    play(hand, "stock")
    assert Discard(card("5c")) in hand.legal_actions()
    play(hand, "discard 5c")
    assert hand.top_discard == card("5c")


def test_R3_3_applies_to_the_first_turn_upcard():
    hand = _hand(Ruleset.preset("playok"))
    assert hand.phase is Phase.OFFER and hand.to_move == 1  # dealer_first: seat 1 deals
    play(hand, "take")
    assert_illegal(hand, "discard Qd", RediscardError, "Qd")


# --------------------------------------------------------------------------- R3.4


def test_R3_4_discard_history_not_browsable_by_default():
    hand = _hand()
    play(hand, "stock", "discard Kh", "stock", "discard 2h")
    for seat in (0, 1, None):
        v = view(hand, seat)
        assert v.discard_pile is None
        assert v.top_discard == card("2h")
        data = v.to_dict()
        assert data["discard_pile"] is None
        json.dumps(data)
    # every seat's log still records every discard, since every seat saw it
    for seat in (0, 1, None):
        discards = [e.action.card for e in view(hand, seat).log if isinstance(e.action, Discard)]
        assert discards == [card("Kh"), card("2h")]


def test_R3_4_discard_history_visible_option():
    hand = _hand(CLASSIC.replace(discard_history_visible=True))
    play(hand, "stock", "discard Kh", "stock", "discard 2h")
    for seat in (0, 1, None):
        v = view(hand, seat)
        assert v.discard_pile == (card("Qd"), card("Kh"), card("2h"))
        assert v.to_dict()["discard_pile"] == ["Qd", "Kh", "2h"]


# --------------------------------------------------------------------------- R3.5


def test_R3_5_upcard_offer_none_first_player_draws_from_either_pile():
    for first in ("stock", "take"):
        hand = _hand()
        assert hand.phase is Phase.DRAW and hand.to_move == 0
        assert_illegal(hand, "pass", WrongPhaseError, "pass", "draw phase")
        play(hand, first)
        assert hand.phase is Phase.DISCARD and hand.to_move == 0


NON_DEALER = CLASSIC.replace(upcard_offer="non_dealer_first")
DEALER_FIRST = CLASSIC.replace(upcard_offer="dealer_first")


def test_R3_5_non_dealer_first_takes_the_upcard():
    hand = _hand(NON_DEALER)
    assert hand.phase is Phase.OFFER and hand.to_move == 0
    assert set(hand.legal_actions()) == {DrawDiscard(), Pass()}
    assert_illegal(hand, "stock", WrongPhaseError, "stock", "offer phase")
    play(hand, "take")
    assert card("Qd") in hand.hand_of(0) and hand.phase is Phase.DISCARD
    play(hand, "discard Kh")
    assert hand.phase is Phase.DRAW and hand.to_move == 1


def test_R3_5_non_dealer_first_pass_then_dealer_takes():
    hand = _hand(NON_DEALER)
    play(hand, "pass")
    assert hand.phase is Phase.OFFER and hand.to_move == 1
    play(hand, "take")
    assert card("Qd") in hand.hand_of(1) and hand.to_move == 1
    play(hand, "discard 2h")
    assert hand.phase is Phase.DRAW and hand.to_move == 0
    assert DrawDiscard() in hand.legal_actions()


def test_R3_5_non_dealer_first_all_pass_then_stock():
    hand = _hand(NON_DEALER)
    play(hand, "pass", "pass")
    assert hand.phase is Phase.DRAW and hand.to_move == 0
    assert hand.legal_actions() == [DrawStock()]
    assert_illegal(hand, "take", WrongPhaseError, "stock", "R3.5")
    assert_illegal(hand, "pass", WrongPhaseError, "pass")
    play(hand, "stock", "discard Kh")
    assert card("5c") in hand.hand_of(0)
    assert set(hand.legal_actions()) == {DrawStock(), DrawDiscard()}  # normal play again
    play(hand, "take")
    assert card("Kh") in hand.hand_of(1)


@pytest.mark.parametrize(("players", "dealer"), [(3, 0), (3, 2), (4, 1), (4, 3)])
def test_R3_5_non_dealer_first_with_more_players(players, dealer):
    rules = ARENA.replace(players=players, upcard_offer="non_dealer_first")
    order = [(dealer + 1 + i) % players for i in range(players)]
    # everybody passes, dealer last; then the dealer's left draws from the stock
    hand = Hand.deal(rules, dealer=dealer, seed=8)
    for seat in order:
        assert hand.phase is Phase.OFFER and hand.to_move == seat
        play(hand, "pass")
    assert hand.phase is Phase.DRAW and hand.to_move == order[0]
    assert hand.legal_actions() == [DrawStock()]
    # the third to be offered takes it; play goes on clockwise from him
    hand = Hand.deal(rules, dealer=dealer, seed=8)
    up = hand.upcard
    play(hand, "pass", "pass")
    taker = order[2]
    assert hand.to_move == taker
    play(hand, "take")
    assert up in hand.hand_of(taker)
    draw_and_discard_after_take(hand)
    assert hand.to_move == (taker + 1) % players and hand.phase is Phase.DRAW


def draw_and_discard_after_take(hand: Hand) -> None:
    """The player who just took discards his highest-indexed other card."""
    mover = hand.to_move
    choice = max(c for c in hand.hand_of(mover) if c != hand.taken)
    hand.apply(Discard(choice))
    assert mover != hand.to_move


def test_R3_5_dealer_first_dealer_takes():
    hand = _hand(DEALER_FIRST)
    assert hand.phase is Phase.OFFER and hand.to_move == 1  # seat 1 deals
    play(hand, "take", "discard 2h")
    assert card("Qd") in hand.hand_of(1)
    assert hand.phase is Phase.DRAW and hand.to_move == 0
    assert set(hand.legal_actions()) == {DrawStock(), DrawDiscard()}


def test_R3_5_dealer_first_dealer_passes_opponent_takes():
    hand = _hand(DEALER_FIRST)
    play(hand, "pass")
    assert hand.phase is Phase.OFFER and hand.to_move == 0
    play(hand, "take", "discard Kh")
    assert card("Qd") in hand.hand_of(0)
    assert hand.phase is Phase.DRAW and hand.to_move == 1


def test_R3_5_dealer_first_both_pass_opponent_draws_from_stock():
    hand = _hand(DEALER_FIRST)
    play(hand, "pass", "pass")
    assert hand.phase is Phase.DRAW and hand.to_move == 0
    assert hand.legal_actions() == [DrawStock()]
    assert_illegal(hand, "take", WrongPhaseError, "R3.5")
    play(hand, "stock")
    assert card("5c") in hand.hand_of(0)


def test_R3_5_dealer_first_is_for_two_players_only():
    for players in (3, 4):
        with pytest.raises(RulesetError) as info:
            ARENA.replace(players=players, upcard_offer="dealer_first")
        assert info.value.option == "upcard_offer"


@pytest.mark.parametrize("rules", [NON_DEALER, DEALER_FIRST, CLASSIC])
def test_R3_5_taking_the_upcard_is_a_draw_the_taker_may_go_gin(rules):
    # the player offered the upcard first completes a gin hand with it
    first = 0 if rules.upcard_offer != "dealer_first" else 1
    hand = make_hand(rules, {first: "As 2s 3s 4h 4d 4c 7c 8c Kd Qh"}, upcard="9c")
    play(hand, "take")
    assert hand.to_move == first
    assert any(isinstance(a, Knock) for a in hand.legal_actions())
    play(hand, "knock Kd [As 2s 3s] [4h 4d 4c] [7c 8c 9c]")
    assert hand.knock.knocker == first and hand.knock.deadwood == 10
