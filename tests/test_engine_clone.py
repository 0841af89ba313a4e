"""Hand.clone: the fast copy equals Hand.copy (the replay) in every field, and playing on it
never touches the original (issue 30, point 3: a clone for searches)."""

from __future__ import annotations

import random

import pytest

from ginrummy.engine import CHANCE, Hand
from ginrummy.match import Match
from ginrummy.rules import OPENSPIEL_OPTIONS, Ruleset


def _step(hand: Hand, rng: random.Random) -> None:
    if hand.to_move == CHANCE:
        hand.apply(hand.reshuffle_order(rng))
    else:
        hand.apply(rng.choice(hand.legal_actions()))


def _fields(hand: Hand) -> dict[str, object]:
    return {k: v for k, v in vars(hand).items() if k != "_on_over"}


@pytest.mark.parametrize("rules", [
    Ruleset.preset("eaai"), Ruleset.preset("eaai", **OPENSPIEL_OPTIONS),
    Ruleset.preset("arena", players=3), Ruleset.preset("arena", players=4),
    Ruleset.preset("classic", stock_end="reshuffle", big_gin=True),
], ids=["eaai", "openspiel", "arena3", "arena4", "classic-reshuffle"])
def test_a_clone_is_the_copy_and_independent(rules: Ruleset) -> None:
    checked = 0
    for seed in range(25):
        rng = random.Random(seed)
        match = Match(rules, seed=seed)
        hand = match.start_hand()
        while not hand.over:
            if rng.random() < 0.2:
                clone, copy = hand.clone(), hand.copy()
                assert _fields(clone) == _fields(copy) and clone._on_over is None
                before = hand.snapshot()
                other = random.Random(seed * 7 + checked)
                again = random.Random(seed * 7 + checked)
                for _ in range(6):
                    if clone.over:
                        break
                    _step(clone, other)
                    _step(copy, again)
                    assert clone.snapshot() == copy.snapshot()
                assert hand.snapshot() == before
                checked += 1
            _step(hand, rng)
    assert checked > 40
