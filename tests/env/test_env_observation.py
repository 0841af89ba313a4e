"""The AEC environment's observations, read straight from the hand's state
(:func:`~ginrummy.env.observation.encode_seat`), are exactly each seat's view encoded
(:func:`encode_view` with the pile replayed from the view's own log) and its legal ids, for
every seat at every step: the seat to move, the others, and after the episode ends."""

from __future__ import annotations

from typing import Any

import numpy as np

from ginrummy.env import raw_env
from ginrummy.env.actions import NUM_ACTIONS, legal_bits
from ginrummy.env.observation import DiscardMemory, encode_view, mask_array, pile_below_top
from ginrummy.rules import OPENSPIEL_OPTIONS
from ginrummy.views import view

TABLES: list[dict[str, Any]] = [
    {},
    {"preset": "classic", "options": {"stock_end": "reshuffle"}, "episode": "match"},
    {"preset": "playok", "options": {"discard_history_visible": True, "big_gin": True}},
    {"preset": "arena", "players": 3, "episode": "match"},
    {"preset": "arena", "players": 4, "episode": "match", "reward": "margin"},
    {"options": OPENSPIEL_OPTIONS},
]


def _expected(game: Any, seat: int) -> tuple[np.ndarray, np.ndarray]:
    seen = view(game.game.match, seat)
    core = game.game
    bits = legal_bits(core.hand) if not core.over and core.hand.to_move == seat else 0
    return encode_view(seen, pile_below_top(seen)), mask_array(bits, NUM_ACTIONS)


def test_every_seats_observation_is_its_views_encoding() -> None:
    """Every seat's observation after every step equals its view's encoding and its mask."""
    rng = np.random.default_rng(3)
    seen = {"rows": 0, "knocks": 0, "reshuffles": 0, "scores": 0, "ended": 0}
    for kwargs in TABLES:
        game = raw_env(**kwargs)
        for seed in range(5):
            game.reset(seed=seed)
            for agent in game.agent_iter(max_iter=1_500):
                for other in game.possible_agents:
                    got = game.observe(other)
                    tensor, mask = _expected(game, game._seats[other])
                    assert (got["observation"] == tensor).all(), (kwargs, seed, other)
                    assert (got["action_mask"] == mask).all(), (kwargs, seed, other)
                    seen["rows"] += 1
                hand = game.game.hand
                seen["knocks"] += hand.knock is not None
                seen["reshuffles"] += hand.reshuffles > 0
                seen["scores"] += any(game.game.match.scores)
                if game.terminations[agent] or game.truncations[agent]:
                    seen["ended"] += 1
                    game.step(None)
                    continue
                mask = game.observe(agent)["action_mask"]
                game.step(int(rng.choice(np.flatnonzero(mask))))
    assert seen["rows"] > 20_000
    assert min(seen.values()) > 0, seen


def test_the_discard_memory_follows_the_pile() -> None:
    """The pile below its top, kept between calls, equals the pile read afresh after any
    mix of discards, takes, reshuffles and new lists (the pile never holds a card twice)."""
    rng = np.random.default_rng(0)
    memory = DiscardMemory()
    pile = [5]
    for _ in range(5_000):
        roll = rng.random()
        if roll < 0.5:  # a discard: a card not in the pile (each card is in one place)
            pile.append(int(rng.choice(sorted(set(range(52)) - set(pile)))))
        elif roll < 0.8 and pile:
            pile.pop()
        elif roll < 0.9:
            pile = pile[-1:]  # a reshuffle: a new list with the top card alone
        else:
            pile = list(pile)  # a copy of the hand: the same cards in a new list
        expected = 0
        for card in pile[:-1]:
            expected |= 1 << card
        assert memory.below_top(pile) == expected
