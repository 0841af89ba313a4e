"""``beginner`` does exactly what Neller's SimpleGinRummyPlayer does (docs/bots.md)."""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from ginrummy.actions import (
    DRAW_DISCARD,
    DRAW_STOCK,
    PASS,
    Action,
    Discard,
    DrawDiscard,
    DrawStock,
    Knock,
    LayOff,
)
from ginrummy.bots import beginner as beginner_module
from ginrummy.bots import make_bot
from ginrummy.bots.beginner import BeginnerBot, in_some_meld, used_pairs
from ginrummy.cards import cards_of
from ginrummy.engine import CHANCE, Hand, Phase
from ginrummy.rules import Ruleset
from ginrummy.solver import best_arrangements, deadwood_mask, is_meld
from ginrummy.views import PlayerView, view
from helpers import card, make_hand, mask, play

PRESETS = [("eaai", 2), ("classic", 2), ("playok", 2), ("arena", 2), ("arena", 3),
           ("arena", 4)]


def _brute_in_meld(hand: int, top: int) -> bool:
    """Some meld of hand + top holds top: then some 3-card meld does."""
    return any(is_meld([top, a, b]) for a, b in combinations(cards_of(hand), 2))


def test_meld_check_matches_its_definition() -> None:
    rng = random.Random(1)
    for _ in range(3000):
        cards = rng.sample(range(52), 11)
        hand = mask(cards[1:])
        assert in_some_meld(hand, cards[0]) == _brute_in_meld(hand, cards[0])


def _pairs_and_drawn(hand: Hand, seat: int) -> tuple[set[frozenset[int]], int | None]:
    """Replay the true log: the seat's (drawn, discarded) pairs and its last drawn card."""
    replay = Hand(hand.rules, hand.dealer, hand.deck)
    pairs: set[frozenset[int]] = set()
    drawn: int | None = None
    for who, action in hand.log:
        if who == seat and isinstance(action, DrawStock):
            drawn = replay.stock[-1]
        elif who == seat and isinstance(action, DrawDiscard):
            drawn = replay.discards[-1]
        elif who == seat and isinstance(action, Discard):
            assert drawn is not None
            pairs.add(frozenset((drawn, action.card)))
        replay.apply(action)
    return pairs, drawn


def _expected_discards(hand: Hand) -> set[int]:
    """Least deadwood among the cards neither just taken nor repeating a pair."""
    seat = hand.to_move
    cards = hand.hands[seat]
    allowed = [c for c in cards_of(cards) if c != hand.taken]
    pairs, drawn = _pairs_and_drawn(hand, seat)
    fresh = [c for c in allowed if frozenset((drawn, c)) not in pairs] or allowed
    least = min(deadwood_mask(cards ^ 1 << c) for c in fresh)
    return {c for c in fresh if deadwood_mask(cards ^ 1 << c) == least}


Decision = tuple[Hand, PlayerView, Action]


def _decisions(rules: Ruleset, seeds: range) -> list[Decision]:
    """(hand before, view, action) for every decision of beginner-vs-beginner hands."""
    out: list[Decision] = []
    for seed in seeds:
        rng = random.Random(seed)
        hand = Hand.deal(rules, dealer=seed % rules.players, rng=rng)
        bots = [BeginnerBot(seed * 7 + s) for s in range(rules.players)]
        while not hand.over:
            if hand.to_move == CHANCE:
                hand.apply(hand.reshuffle_order(rng))
                continue
            v = view(hand, hand.to_move)
            action = bots[hand.to_move].choose(v, hand.legal_actions())
            out.append((hand.copy(), v, action))
            hand.apply(action)
    return out


@pytest.fixture(scope="module", params=PRESETS, ids=[f"{p}{n}" for p, n in PRESETS])
def decisions(request: pytest.FixtureRequest) -> list[Decision]:
    preset, players = request.param
    return _decisions(Ruleset.preset(preset, players=players), range(25))


def test_takes_the_face_up_card_exactly_when_it_melds(decisions: list[Decision]) -> None:
    seen = {True: 0, False: 0}
    for hand, _view, action in decisions:
        if hand.phase in (Phase.OFFER, Phase.DRAW):
            legal = hand.legal_actions()
            top = hand.top_discard
            assert top is not None
            melds = _brute_in_meld(hand.hands[hand.to_move], top)
            if DRAW_DISCARD in legal:
                seen[melds] += 1
                assert (action == DRAW_DISCARD) == melds
            else:
                assert action == DRAW_STOCK
            if action != DRAW_DISCARD:
                assert action == (PASS if hand.phase is Phase.OFFER else DRAW_STOCK)
    assert seen[True] and seen[False]


def test_discards_and_knocks_by_the_rules(decisions: list[Decision]) -> None:
    knocks = 0
    for hand, _view, action in decisions:
        if hand.phase is not Phase.DISCARD:
            continue
        assert hand.is_legal(action)
        assert isinstance(action, Discard | Knock)
        discard = action.card if isinstance(action, Discard) else action.discard
        assert discard is not None
        assert discard in _expected_discards(hand)
        rest = hand.hands[hand.to_move] ^ 1 << discard
        # knocks exactly when the chosen discard leaves deadwood within the limit
        can_knock = deadwood_mask(rest) <= hand.knock_limit
        assert isinstance(action, Knock) == can_knock
        if isinstance(action, Knock):
            knocks += 1
            best = {frozenset(map(frozenset, a.melds)) for a in best_arrangements(rest)}
            assert frozenset(map(frozenset, action.melds)) in best
            assert action.gin == (deadwood_mask(rest) == 0)
    assert knocks


def test_lays_off_optimally(decisions: list[Decision]) -> None:
    for hand, _view, action in decisions:
        if hand.phase is Phase.LAYOFF:
            assert isinstance(action, LayOff)
            best = hand.best_defence(hand.to_move)
            assert (action.melds, action.layoffs) == (best.melds, best.layoffs)


def test_discard_is_uniform_over_the_least_deadwood_cards() -> None:
    """Over many seeds the discards picked are exactly the least-deadwood allowed cards."""
    checked = 0
    for hand, v, _action in _decisions(Ruleset.preset("eaai"), range(8)):
        if hand.phase is not Phase.DISCARD:
            continue
        expected = _expected_discards(hand)
        legal = hand.legal_actions()
        picked = set()
        for seed in range(120):
            action = BeginnerBot(seed).choose(v, legal)
            assert isinstance(action, Discard | Knock)
            picked.add(action.card if isinstance(action, Discard) else action.discard)
        assert picked == expected
        checked += len(expected) > 1
    assert checked >= 5


def test_knock_arrangement_is_random_among_the_best() -> None:
    # after discarding Kh the rest has two best arrangements: 3s 4s 5s or 4s 4h 4d (8)
    rules = Ruleset.preset("classic")
    hand = make_hand(rules, {0: "3s 4s 5s 4h 4d 7c 8c 9c Tc Jc"}, upcard="2h",
                     stock="Kh")
    play(hand, "stock")
    rest = hand.hands[0] ^ 1 << card("Kh")
    arrangements = {a.melds for a in best_arrangements(rest)}
    assert len(arrangements) == 2
    laid = set()
    for seed in range(40):
        action = BeginnerBot(seed).choose(view(hand, 0), hand.legal_actions())
        assert isinstance(action, Knock) and action.discard == card("Kh")
        laid.add(action.melds)
    assert laid == arrangements


def _pair_position() -> Hand:
    """Seat 0 drew Kh and discarded 9h; seat 1 took 9h and threw it back; seat 0 takes it.
    Discarding Kh now (the least deadwood) would repeat the pair {Kh, 9h}."""
    rules = Ruleset.preset("classic")
    hand = make_hand(rules, {0: "As 2s 3s 7h 7d 7c 4d 5c 9h 8c",
                             1: "Qs Qh Qd 2d 3d 9s Ts Js 5h 6h"},
                     upcard="Ks", stock="Kh 2c 8d")
    play(hand, "stock", "discard 9h", "take", "discard 5h", "stock", "discard 8c",
         "stock", "discard 9h", "take")
    return hand


def test_never_repeats_a_drawn_discarded_pair() -> None:
    hand = _pair_position()
    v = view(hand, 0)
    assert used_pairs(v) == {mask("Kh 9h"), mask("2c 8c")}
    cards = hand.hands[0]
    least = min(deadwood_mask(cards ^ 1 << c) for c in cards_of(cards) if c != card("9h"))
    assert deadwood_mask(cards ^ 1 << card("Kh")) == least   # Kh alone would be best
    picks = set()
    for seed in range(30):
        action = BeginnerBot(seed).choose(v, hand.legal_actions())
        assert isinstance(action, Discard)
        picks.add(action.card)
    assert picks == {card("5c")}                                # the next best card


def test_when_every_card_repeats_a_pair_the_rule_is_dropped(
        monkeypatch: pytest.MonkeyPatch) -> None:
    hand = _pair_position()
    everything = {1 << card("9h") | 1 << c for c in range(52)}
    monkeypatch.setattr(beginner_module, "used_pairs", lambda _view: everything)
    action = BeginnerBot(1).choose(view(hand, 0), hand.legal_actions())
    assert action == Discard(card("Kh"))


def test_per_hand_memory_starts_afresh_with_each_hand() -> None:
    """Pairs come from the current hand's log only: a new hand has none."""
    hand = _pair_position()
    assert used_pairs(view(hand, 0))
    fresh = Hand(hand.rules, hand.dealer, hand.deck)
    assert used_pairs(view(fresh, 0)) == set()


def test_deterministic_given_its_seed() -> None:
    rules = Ruleset.preset("eaai")
    logs = []
    for _ in range(2):
        hand = Hand.deal(rules, 0, seed=5)
        bots = [make_bot("beginner", 3), make_bot("beginner", 4)]
        while not hand.over:
            hand.apply(bots[hand.to_move].choose(view(hand, hand.to_move),
                                                 hand.legal_actions()))
        logs.append(hand.action_log_text())
    assert logs[0] == logs[1]
