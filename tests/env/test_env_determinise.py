"""Determinisation from a seat's view: the sampled hand shows the seat exactly what the real
one does, the other seats' cards vary, and every move replays legally in it."""

from __future__ import annotations

import random

import pytest

from ginrummy.engine import CHANCE, Hand
from ginrummy.env import encode_view
from ginrummy.env.determinise import determinise
from ginrummy.env.history import encode_history
from ginrummy.rules import Ruleset
from ginrummy.views import view


@pytest.mark.parametrize(("preset", "players"), [("eaai", 2), ("classic", 2), ("arena", 3),
                                                 ("arena", 4)])
def test_a_determinisation_shows_the_seat_the_same_and_varies_the_rest(
        preset: str, players: int) -> None:
    rules = Ruleset.preset(preset, players=players)
    checked = 0
    for seed in range(30):
        rng = random.Random(seed)
        hand = Hand.deal(rules, dealer=seed % players, seed=seed)
        while not hand.over and hand.to_move != CHANCE and hand.knock is None \
                and not hand.reshuffles:
            if rng.random() < 0.25:
                seat = rng.randrange(players)
                seen = view(hand, seat)
                others = set()
                for k in range(4):
                    sample = determinise(seen, random.Random(k))
                    again = view(sample, seat)
                    assert encode_view(again).tobytes() == encode_view(seen).tobytes()
                    assert encode_history(again).tobytes() == encode_history(seen).tobytes()
                    assert sample.legal_actions() == hand.legal_actions() or \
                        seat != hand.to_move
                    assert sorted(sample.deck) == list(range(52))
                    others.add(tuple(sample.hands[s] for s in range(players) if s != seat))
                assert len(others) > 1
                checked += 1
            hand.apply(rng.choice(hand.legal_actions()))
    assert checked > 30


def test_positions_it_cannot_sample_are_refused() -> None:
    rules = Ruleset.preset("eaai")
    hand = Hand.deal(rules, dealer=0, seed=1)
    with pytest.raises(ValueError, match="spectator"):
        determinise(view(hand, None), random.Random(0))
