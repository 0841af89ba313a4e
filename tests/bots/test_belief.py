"""The expert's belief: certain cards, normalisation, updates in the right direction, and
sampled deals consistent with the view."""

from __future__ import annotations

import random

import pytest

from ginrummy.bots.belief import belief_of, meld_partners
from ginrummy.cards import card_name, cards_of
from ginrummy.engine import Hand
from ginrummy.rules import Ruleset
from ginrummy.solver import deadwood_mask
from ginrummy.views import view
from helpers import card, make_hand, mask

EAAI = Ruleset.preset("eaai")


def _after(hand: Hand, *actions: str) -> Hand:
    for action in actions:
        hand.apply(action)
    return hand


def _deal() -> Hand:
    # seat 0 plays first (seat 1 deals); the upcard 7h, then the stock 2c, Kd, ...
    return make_hand(EAAI, {0: "As 2s 3s 9h 9d Jc Qc Kh 4d 5c",
                            1: "7s 7d 8h 4c Js Qs 2h Th 3d 6c"},
                     upcard="7h", stock="2c Kd 5h 8c Ac 6d")


def test_uniform_at_the_deal() -> None:
    belief = belief_of(view(_deal(), 0))
    probs = belief.probabilities[1]
    assert len(probs) == 52 - 10 - 1  # everything but my hand and the upcard
    assert all(p == pytest.approx(10 / 41) for p in probs.values())
    assert belief.expected_count(1) == pytest.approx(10)
    assert belief.probability(1, card("As")) == 0.0  # my own card


def test_taken_card_is_certain_and_raises_its_partners() -> None:
    hand = _after(_deal(), "pass", "take", "discard 2h")  # seat 1 takes the 7h upcard
    belief = belief_of(view(hand, 0))
    assert belief.probability(1, card("7h")) == 1.0
    partners = [card(c) for c in ("7c", "6h", "8h")]
    far = card("9c")  # unrelated to 7h
    for partner in partners:
        assert belief.probability(1, partner) > belief.probability(1, far)
    assert belief.expected_count(1) == pytest.approx(10)
    assert belief.probability(1, card("2h")) == 0.0  # discarded: in the pile


def test_discards_and_declined_cards_lower_partners() -> None:
    hand = _after(_deal(), "pass", "pass", "stock", "discard Jc", "stock", "discard Th")
    belief = belief_of(view(hand, 0))
    # seat 1 declined the 7h upcard and my Jc, and discarded Th
    baseline = belief.probability(1, card("3c"))
    for lowered in ("Tc", "9h", "Jh", "7c", "6h", "Qc"):
        if belief.tracker.unseen >> card(lowered) & 1:
            assert belief.probability(1, card(lowered)) < baseline, lowered
    assert belief.expected_count(1) == pytest.approx(10)


def test_probabilities_are_capped_at_one_and_sum_to_the_unknown_count() -> None:
    rng = random.Random(5)
    for seed in range(20):
        hand = Hand.deal(EAAI, dealer=seed % 2, seed=seed)
        while not hand.over and len(hand.log) < 2 + seed:
            hand.apply(rng.choice(hand.legal_actions()))
        if hand.over:
            continue
        for seat in (0, 1):
            belief = belief_of(view(hand, seat))
            other = 1 - seat
            probs = belief.probabilities[other]
            assert all(0.0 <= p <= 1.0 for p in probs.values())
            assert belief.expected_count(other) == pytest.approx(hand.hands[other].bit_count())


def test_samples_are_consistent_with_the_view() -> None:
    hand = _after(_deal(), "pass", "take", "discard 2h", "stock")
    v = view(hand, 0)  # seat 0 to discard, 11 cards
    belief = belief_of(v)
    rng = random.Random(1)
    for _ in range(50):
        world = belief.sample(rng)
        assert world.hands[0] == v.hand_mask
        assert world.hands[1].bit_count() == 10
        assert world.hands[1] & mask("7h")  # taken from the pile: known
        assert len(world.stock) == v.stock_size
        everything = world.hands[0] | world.hands[1] | mask(list(world.stock))
        assert everything.bit_count() == 10 + 11 + v.stock_size  # all disjoint
        assert not everything & mask("2h")  # the discard pile is out of play


def test_three_player_belief() -> None:
    rules = Ruleset.preset("arena", players=3)
    hand = Hand.deal(rules, dealer=0, seed=4)
    hand.apply("stock")
    v = view(hand, 1)
    belief = belief_of(v)
    for other in (0, 2):
        assert belief.expected_count(other) == pytest.approx(7)
    world = belief.sample(random.Random(2))
    assert [h.bit_count() for h in world.hands] == [7, 8, 7]
    assert len(world.stock) == v.stock_size


def test_meld_partners() -> None:
    partners = meld_partners(card("7h"))
    expected = mask("7s 7d 7c 5h 6h 8h 9h")
    assert partners == expected
    assert meld_partners(card("Ks")) == mask("Kh Kd Kc Js Qs")


def test_spectator_view_is_refused() -> None:
    with pytest.raises(ValueError, match="spectator"):
        belief_of(view(_deal(), None))


def test_organized_samples_have_less_deadwood() -> None:
    hand = Hand.deal(EAAI, dealer=1, seed=12)
    rng = random.Random(3)
    # both players pass the upcard, then draw from the stock and discard a few times
    hand.apply("pass")
    hand.apply("pass")
    for _ in range(8):
        hand.apply("stock")
        hand.apply(f"discard {card_name(max(cards_of(hand.hands[hand.to_move])))}")
    v = view(hand, hand.to_move)
    belief = belief_of(v)
    other = 1 - v.to_move
    organized = [belief.sample(rng).hands[other] for _ in range(60)]
    plain = [belief.sample(rng, organized=False).hands[other] for _ in range(60)]
    assert all(h.bit_count() == 10 for h in organized + plain)
    known = belief.tracker.held_known[other]
    assert all(h & known == known for h in organized)
    mean = sum(map(deadwood_mask, organized)) / 60
    assert mean < sum(map(deadwood_mask, plain)) / 60 - 3


def test_the_sampled_stock_is_in_a_random_order() -> None:
    """The stock's order is hidden, so a sampled world's stock is shuffled: the card drawn
    next (the last) is any unseen card, each about equally often, never the cards' own
    order. (Left in card order, every play-out drew the highest club first, which valued
    taking a useless king 10 points above a stock draw.)"""
    belief = belief_of(view(_deal(), 0))
    rng = random.Random(5)
    draws = 2000
    next_card: dict[int, int] = {}
    for _ in range(draws):
        stock = belief.sample(rng).stock
        assert list(stock) != sorted(stock)
        next_card[stock[-1]] = next_card.get(stock[-1], 0) + 1
    unseen = 52 - 10 - 1 - 10  # neither my hand, the upcard nor the opponent's sampled hand
    assert len(next_card) == 52 - 10 - 1  # every unseen card is drawn next sometimes
    assert max(next_card.values()) < 4 * draws / unseen
