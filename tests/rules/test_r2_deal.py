"""R2. The deal: hand sizes, dealers, deck order, turn order."""

from __future__ import annotations

import pytest

from ginrummy.cards import card_name
from ginrummy.engine import Hand, Phase
from ginrummy.match import Match
from ginrummy.rules import Ruleset, RulesetError
from helpers import build_deck, cards, draw_and_discard, start_deck

CLASSIC = Ruleset.preset("classic")
ARENA = Ruleset.preset("arena")


# --------------------------------------------------------------------------- R2.1


@pytest.mark.parametrize(("players", "size", "stock"), [(2, 10, 31), (3, 7, 30), (4, 7, 23)])
def test_R2_1_hand_size_by_player_count(players, size, stock):
    rules = ARENA.replace(players=players)
    assert rules.cards_per_hand == size
    hand = Hand.deal(rules, dealer=0, seed=players)
    assert [len(hand.hand_of(s)) for s in range(players)] == [size] * players
    assert len(hand.stock) == stock
    assert hand.discards == [hand.upcard]


def test_R2_1_player_count_and_hand_size_options():
    assert Ruleset.preset("arena", players=4).cards_per_hand == 7
    assert Ruleset.preset("arena", players=3, hand_size=10).cards_per_hand == 10
    assert Ruleset.preset("classic", hand_size=7).cards_per_hand == 7
    hand = Hand.deal(Ruleset.preset("classic", hand_size=7), dealer=1, seed=3)
    assert [len(hand.hand_of(s)) for s in range(2)] == [7, 7]
    assert len(hand.stock) == 52 - 14 - 1
    for players in (1, 5):
        with pytest.raises(RulesetError) as info:
            Ruleset.preset("arena", players=players)
        assert info.value.option == "players"


# --------------------------------------------------------------------------- R2.2


@pytest.mark.parametrize("players", [2, 3, 4])
def test_R2_2_first_dealer_is_chosen_at_random(players):
    rules = ARENA.replace(players=players)
    dealers = {Match(rules, seed=seed).first_dealer for seed in range(60)}
    assert dealers == set(range(players))
    # the same seed chooses the same dealer; an explicit first dealer is kept
    assert Match(rules, seed=11).first_dealer == Match(rules, seed=11).first_dealer
    assert Match(rules, seed=11, first_dealer=players - 1).dealer == players - 1


def test_R2_2_same_dealer_after_a_void_hand():
    match = Match(CLASSIC, seed=1, first_dealer=1)
    hand = start_deck(match)
    draw_and_discard(match, 29)  # the 29th draw leaves two cards: he discards, void (R4.7)
    assert hand.result is not None and hand.result.void
    assert match.dealer == 1
    assert start_deck(match).dealer == 1


def test_R2_2_next_dealer_after_a_scored_hand():
    match = Match(CLASSIC, seed=1, first_dealer=1)
    start_deck(match, {0: "As 2s 3s 4s 5h 5d 5c 9h 9d 9c"}, stock="Kd")
    match.apply("stock")
    match.apply("knock Kd [As 2s 3s 4s] [5h 5d 5c] [9h 9d 9c]")
    assert match.hand.over and not match.over
    assert match.dealer == 0  # alternate (R5.6)


# --------------------------------------------------------------------------- R2.3


@pytest.mark.parametrize(("players", "dealer"), [(2, 0), (2, 1), (3, 1), (4, 2), (4, 3)])
def test_R2_3_deck_order_one_card_at_a_time_from_the_dealers_left(players, dealer):
    rules = ARENA.replace(players=players)
    size = rules.cards_per_hand
    deck = list(range(51, -1, -1))
    hand = Hand(rules, dealer, deck)
    for i in range(players):
        seat = (dealer + 1 + i) % players
        assert hand.hand_of(seat) == sorted(deck[i:players * size:players])
    dealt = players * size
    assert hand.upcard == deck[dealt]
    assert hand.discards == [deck[dealt]]
    # the stock's top is the next card of the deck order, then the next...
    expected = deck[dealt + 1:]
    drawn = []
    for _ in range(3):
        drawn.append(hand.stock[-1])
        draw_and_discard(hand)
    assert drawn == expected[:3]
    assert list(reversed(hand.stock)) == expected[3:]


def test_R2_3_build_deck_helper_follows_the_convention():
    deck = build_deck(3, 7, 0, {1: "As 2s 3s", 0: "Kd"}, upcard="9h", stock="5c 6c")
    hand = Hand(ARENA.replace(players=3), 0, deck)
    assert set(cards("As 2s 3s")) <= set(hand.hand_of(1))
    assert cards("Kd")[0] in hand.hand_of(0)
    assert card_name(hand.upcard) == "9h"
    assert [card_name(c) for c in hand.stock[-2:]] == ["6c", "5c"]


def test_R2_3_reshuffle_order_is_part_of_the_record():
    from ginrummy.actions import Reshuffle
    from ginrummy.records import GameRecord

    match = Match(ARENA, seed=2, first_dealer=0, pool_cents=100)
    hand = start_deck(match)
    draw_and_discard(match, 31)
    assert hand.phase is Phase.RESHUFFLE
    order = tuple(reversed(hand.discards[:-1]))
    match.apply(Reshuffle(order))
    assert hand.stock[-1] == order[0]  # the order is given top card first
    record = GameRecord.from_match(match)
    text = record.hands[0]["actions"][-1]
    assert text == "reshuffle " + " ".join(card_name(c) for c in order)


# --------------------------------------------------------------------------- R2.4


@pytest.mark.parametrize(("players", "dealer"), [(2, 0), (2, 1), (3, 0), (3, 2), (4, 1), (4, 3)])
def test_R2_4_play_goes_clockwise_from_the_dealers_left(players, dealer):
    hand = Hand.deal(ARENA.replace(players=players), dealer=dealer, seed=4)
    order = []
    for _ in range(2 * players):
        order.append(hand.to_move)
        draw_and_discard(hand)
    assert order == [(dealer + 1 + i) % players for i in range(2 * players)]
