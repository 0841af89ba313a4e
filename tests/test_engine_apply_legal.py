"""Hand.apply_legal (the environments' fast path) plays every legal action exactly as
Hand.apply does: the same state, logs and result, over random hands of every preset."""

from __future__ import annotations

import random

import pytest

from ginrummy import Ruleset
from ginrummy.actions import Knock, LayOff
from ginrummy.engine import Hand, Phase

TABLES = [
    ("eaai", {}),
    ("classic", {"stock_end": "reshuffle"}),
    ("playok", {"big_gin": True, "no_rediscard_of_taken_card": False}),
    ("arena", {"players": 3}),
    ("arena", {"players": 4}),
]


def _state(hand: Hand) -> tuple[object, ...]:
    return hand.snapshot(), tuple(map(tuple, hand.seat_logs)), tuple(hand.log)


@pytest.mark.parametrize(("preset", "options"), TABLES)
def test_apply_legal_plays_as_apply(preset: str, options: dict[str, object]) -> None:
    rules = Ruleset.preset(preset, **options)
    rng = random.Random(7)
    kinds: set[type] = set()
    for deal in range(25):
        hand = Hand.deal(rules, dealer=deal % rules.players, seed=deal)
        while not hand.over:
            if hand.phase is Phase.RESHUFFLE:
                hand.apply(hand.reshuffle_order(rng))
                continue
            legal = hand.legal_actions()
            for action in legal:
                # clone(): field by field; copy() replays the whole log, which made this
                # test quadratic in a hand's length (equal: tests/test_engine_clone.py)
                checked, fast = hand.clone(), hand.clone()
                checked.apply(action)
                fast.apply_legal(action)
                assert _state(fast) == _state(checked), (action, hand.log)
                kinds.add(type(action))
            knocks = [a for a in legal if isinstance(a, Knock)]
            # knock when possible half the time, so that hands reach the layoffs
            choice = knocks[0] if knocks and rng.random() < 0.5 else rng.choice(legal)
            hand.apply_legal(choice)
        assert hand.result is not None
    assert Knock in kinds and LayOff in kinds
