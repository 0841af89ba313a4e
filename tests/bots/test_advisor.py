"""The advisor: every evaluated candidate ranked, the best one is what the expert plays, only
legal actions, only for the player to move."""

from __future__ import annotations

import pytest

from ginrummy.actions import Discard, DrawDiscard, DrawStock, Knock
from ginrummy.bots.advisor import advise
from ginrummy.bots.expert import ExpertBot
from ginrummy.engine import Hand, Phase
from ginrummy.rules import Ruleset
from ginrummy.views import view
from helpers import simple_positions

BUDGET = 4.0


def test_best_advice_is_what_the_expert_plays() -> None:
    rules = Ruleset.preset("eaai")
    positions = simple_positions(rules, range(3))[::3]
    assert len(positions) > 8
    for hand in positions:
        v = view(hand, hand.to_move)
        legal = hand.legal_actions()
        advice = advise(v, legal, budget_ms=BUDGET, seed=5, safety_stop=False)
        expert = ExpertBot(5, BUDGET, safety_stop=False)
        assert advice[0].action == expert.choose(v, legal)
        for a in advice:
            assert hand.is_legal(a.action), a.action
        actions = [a.action for a in advice]
        assert len(set(map(str, actions))) == len(actions)  # each candidate once


def test_draw_advice_lists_both_draws() -> None:
    rules = Ruleset.preset("eaai")
    for hand in simple_positions(rules, range(2)):
        if hand.phase is Phase.DRAW and len(hand.legal_actions()) == 2:
            advice = advise(view(hand, hand.to_move), hand.legal_actions(), budget_ms=BUDGET)
            assert {type(a.action) for a in advice} == {DrawStock, DrawDiscard}
            assert all(a.samples >= 1 for a in advice)
            return
    pytest.fail("no draw decision found")


def test_discard_advice_includes_the_knocks() -> None:
    rules = Ruleset.preset("eaai")
    found = 0
    for hand in simple_positions(rules, range(6)):
        legal = hand.legal_actions()
        knocks = [a for a in legal if isinstance(a, Knock)]
        if hand.phase is not Phase.DISCARD or not knocks:
            continue
        advice = advise(view(hand, hand.to_move), legal, budget_ms=BUDGET)
        kinds = {type(a.action) for a in advice}
        assert Knock in kinds
        gin = any(not k.melds or _leaves_nothing(hand, k) for k in knocks)
        if not gin:
            assert Discard in kinds  # waiting is a candidate too
        found += 1
    assert found


def _leaves_nothing(hand: Hand, knock: Knock) -> bool:
    rest = hand.hands[hand.to_move]
    if knock.discard is not None:
        rest &= ~(1 << knock.discard)
    for meld in knock.melds:
        for card in meld:
            rest &= ~(1 << card)
    return rest == 0


def test_only_for_the_player_to_move() -> None:
    hand = Hand.deal(Ruleset.preset("eaai"), dealer=0, seed=1)
    with pytest.raises(ValueError, match="not to move"):
        advise(view(hand, 0), hand.legal_actions(), budget_ms=BUDGET)
    with pytest.raises(ValueError, match="spectator"):
        advise(view(hand, None), hand.legal_actions(), budget_ms=BUDGET)
    advice = advise(view(hand, 1), hand.legal_actions(), budget_ms=BUDGET)
    assert advice[0].to_dict()["action"] in ("take", "pass")
