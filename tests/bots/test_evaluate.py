"""The evaluator behind the coach and the hint key: every legal choice on the same worlds,
the best the highest valued, standard errors, the mistake rule, the budget and the early
stop, and clear errors."""

from __future__ import annotations

import pytest

from ginrummy.actions import Discard, Knock, LayOff
from ginrummy.bots.evaluate import (
    BATCH,
    MIN_WORLDS,
    MISTAKE_POINTS,
    SETTLED_ERRORS,
    evaluate,
    is_mistake,
)
from ginrummy.bots.expert import KNOCK_COST_MS, PLAYOUT_COST_MS
from ginrummy.engine import Hand, Phase
from ginrummy.rules import Ruleset
from ginrummy.views import view
from helpers import simple_positions

RULES = Ruleset.preset("eaai")


def test_every_legal_choice_on_the_same_worlds_best_first() -> None:
    checked = 0
    for hand in simple_positions(RULES, range(2))[::2]:
        legal = hand.legal_actions()
        if len(legal) < 2 or hand.phase is Phase.LAYOFF:
            continue
        v = view(hand, hand.to_move)
        evaluated = evaluate(v, legal, 15.0, seed=4)
        assert {str(c.action) for c in evaluated.choices} == {str(a) for a in legal}
        assert max(c.samples for c in evaluated.choices) == evaluated.worlds
        for c in evaluated.choices:  # a choice dropped early was clearly worse than the best
            assert c.samples == evaluated.worlds or c.loss > max(
                SETTLED_ERRORS * c.loss_error, MISTAKE_POINTS)
        values = [c.value for c in evaluated.choices]
        assert values[0] == max(values) and values[1:] == sorted(values[1:], reverse=True)
        best = evaluated.best
        assert best.loss == 0.0 and best.loss_error == 0.0 and not best.mistake
        for c in evaluated.choices[1:]:
            assert c.loss == pytest.approx(best.value - c.value, abs=1e-9)
            assert c.error > 0 or c.loss == 0
            assert c.mistake == is_mistake(c.loss, c.loss_error)
        again = evaluate(v, legal, 15.0, seed=4)
        assert again == evaluated  # the budget, never the clock: reproducible
        checked += 1
    assert checked >= 10


def test_the_mistake_rule() -> None:
    assert is_mistake(1.5, 0.5) and not is_mistake(1.5, 0.8)  # 2 standard errors
    assert not is_mistake(0.9, 0.1)  # and at least 1 point
    assert is_mistake(10.0, 4.9) and not is_mistake(10.0, 5.0)


def test_the_budget_bounds_the_work_and_a_settled_ranking_stops_early() -> None:
    stopped_early = 0
    for hand in simple_positions(RULES, range(2))[::2]:
        legal = hand.legal_actions()
        if len(legal) < 2 or hand.phase is not Phase.DRAW:
            continue
        v = view(hand, hand.to_move)
        budget = 60.0
        evaluated = evaluate(v, legal, budget, seed=1)
        every = len(legal) * PLAYOUT_COST_MS
        assert evaluated.work_ms <= max(budget, MIN_WORLDS * every) + 1e-9
        assert all(c.samples == evaluated.worlds for c in evaluated.choices)  # two draws
        assert evaluated.worlds % BATCH == 0 and evaluated.worlds >= MIN_WORLDS
        if evaluated.settled:
            assert evaluated.work_ms < budget
            stopped_early += 1
        else:  # the budget ran out: no room for another batch
            assert evaluated.work_ms + BATCH * every > budget
    assert stopped_early >= 1


def test_an_extra_action_is_valued_too_and_a_layoff_exactly() -> None:
    hand = next(h for h in simple_positions(RULES, range(4)) if h.phase is Phase.DISCARD
                and any(isinstance(a, Knock) for a in h.legal_actions()))
    v = view(hand, hand.to_move)
    legal = [a for a in hand.legal_actions() if isinstance(a, Discard)]
    knock = next(a for a in hand.legal_actions() if isinstance(a, Knock))
    evaluated = evaluate(v, legal, 10.0, extra=(knock,))
    assert evaluated.find(knock).samples == evaluated.worlds
    layoff = next(h for h in simple_positions(RULES, range(8)) if h.phase is Phase.LAYOFF)
    lv = view(layoff, layoff.to_move)
    nothing = LayOff((), ())
    exact = evaluate(lv, layoff.legal_actions(), 10.0, extra=(nothing,))
    assert exact.worlds == 1 and all(c.error == 0.0 for c in exact.choices)
    best_defence = exact.find(layoff.legal_actions()[0])  # the engine's: the best
    assert best_defence.value == exact.best.value >= exact.find(nothing).value


def test_errors_are_named() -> None:
    hand = Hand.deal(RULES, dealer=0, seed=1)
    legal = hand.legal_actions()
    with pytest.raises(ValueError, match="not to move"):
        evaluate(view(hand, 0), legal, 5.0)
    with pytest.raises(ValueError, match="spectator"):
        evaluate(view(hand, None), legal, 5.0)
    with pytest.raises(ValueError, match="budget"):
        evaluate(view(hand, 1), legal, 0.0)
    with pytest.raises(ValueError, match="no legal action"):
        evaluate(view(hand, 1), [], 5.0)


def test_choices_clearly_worse_are_dropped_and_the_work_goes_to_the_others() -> None:
    dropped = 0
    for hand in simple_positions(RULES, range(3)):
        legal = hand.legal_actions()
        if hand.phase is not Phase.DISCARD or len(legal) < 6:
            continue
        v = view(hand, hand.to_move)
        evaluated = evaluate(v, legal, 60.0, seed=2)
        short = [c for c in evaluated.choices if c.samples < evaluated.worlds]
        dropped += len(short)
        cost = {True: KNOCK_COST_MS, False: PLAYOUT_COST_MS}
        work = sum(c.samples * cost[isinstance(c.action, Knock)] for c in evaluated.choices)
        assert evaluated.work_ms == pytest.approx(work)  # a dropped choice costs nothing more
        if short:
            every = sum(cost[isinstance(a, Knock)] for a in legal)
            assert evaluated.work_ms < evaluated.worlds * every
    assert dropped >= 5
