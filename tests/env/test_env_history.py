"""The information state as a history encoding: a search for collisions over many plays of
the same deals (where the compact observation does collide), and the dealt cards it finds."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from ginrummy.engine import Hand
from ginrummy.env import encode_view, raw_env
from ginrummy.env.actions import decode, legal_ids
from ginrummy.env.history import dealt_cards, encode_history
from ginrummy.rules import Ruleset
from ginrummy.views import view
from helpers import make_hand, names, play


def _truth(hand: Hand, seat: int) -> tuple[Any, ...]:
    """What the seat has seen, from the engine itself: its dealt cards, the upcard and its
    own log (its stock cards included)."""
    n, size = hand.players, hand.rules.cards_per_hand
    dealt = frozenset(hand.deck[i] for i in range(n * size) if (hand.dealer + 1 + i) % n == seat)
    return seat, hand.dealer, dealt, hand.upcard, tuple(hand.seat_logs[seat])


@pytest.mark.parametrize(("preset", "players"), [("eaai", 2), ("arena", 3), ("arena", 4)])
def test_no_two_information_states_share_an_encoding(preset: str, players: int) -> None:
    rules = Ruleset.preset(preset, players=players)
    by_encoding: dict[bytes, tuple[Any, ...]] = {}
    by_truth: dict[tuple[Any, ...], bytes] = {}
    for deal in range(6):
        for attempt in range(150):
            rng = random.Random(deal * 1000 + attempt)
            hand = Hand.deal(rules, dealer=0, seed=deal)
            for _ in range(rng.randint(1, 14)):
                if hand.over or hand.to_move < 0:
                    break
                hand.apply_legal(decode(rng.choice(legal_ids(hand)), hand))
            for seat in range(players):
                seen = view(hand, seat)
                truth = _truth(hand, seat)
                code = encode_history(seen)
                key = code.tobytes() + bytes(code.shape[0])
                assert by_encoding.setdefault(key, truth) == truth, "a collision"
                assert by_truth.setdefault(truth, key) == key
                assert set(dealt_cards(seen)) == set(truth[2])
    assert len(by_truth) > 1_000


def test_an_order_the_observation_loses_is_in_the_information_state() -> None:
    """The opponent throws his Kc then his Qd, or the Qd then the Kc (seat 0 throwing back
    what he draws): seat 0 holds the same
    cards and sees the same pile in both, so the compact observations are byte-identical;
    the information states are not."""
    rules = Ruleset.preset("classic")
    states = []
    for first, second in (("Kc", "Qd"), ("Qd", "Kc")):
        hand = make_hand(rules, {0: "As 3s 5s 7s 9s Jh 2h 4h 6h 8h",
                                 1: "Kc Qd 2c 4c 6c 8c Td 3d 5d 7d"}, dealer=0)
        for card in (first, second):
            play(hand, "stock", f"discard {card}")  # seat 1 keeps what he drew
            play(hand, "stock", f"discard {names([hand.stock[-1]])}")  # seat 0 keeps nothing
        states.append(view(hand, 0))
    assert encode_view(states[0]).tobytes() == encode_view(states[1]).tobytes()
    assert encode_history(states[0]).tobytes() != encode_history(states[1]).tobytes()


def test_the_aec_environment_gives_each_agent_its_information_state() -> None:
    game = raw_env()
    game.reset(seed=5)
    rng = np.random.default_rng(5)
    for _ in range(20):
        agent = game.agent_selection
        state = game.information_state(agent)
        assert state.dtype == np.int64 and state.shape[1] == 4
        assert (state[0] == [0, int(agent[-1]), game.view(agent).dealer, 2]).all()
        mask = game.observe(agent)["action_mask"]
        game.step(int(rng.choice(np.flatnonzero(mask))))
    with pytest.raises(ValueError, match="spectator"):
        encode_history(view(game.game.match.hand, None))
