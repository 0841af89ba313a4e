"""The vectorised form's rows, built straight from each hand's state, are exactly the seat's
view encoded (:func:`encode_view`) and its legal ids, and never encode hidden cards."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_env_hidden import _other_world

from ginrummy.env import VectorGinRummy
from ginrummy.env.actions import NUM_ACTIONS, legal_bits
from ginrummy.env.core import Game
from ginrummy.env.observation import encode_view, mask_array, pile_below_top
from ginrummy.views import view

TABLES: list[dict[str, Any]] = [
    {"preset": "eaai"},
    {"preset": "classic", "options": {"stock_end": "reshuffle"}, "episode": "match"},
    {"preset": "playok", "options": {"discard_history_visible": True, "big_gin": True}},
    {"preset": "arena", "players": 3},
    {"preset": "arena", "players": 4, "episode": "match", "reward": "margin"},
]
CHECKED = {"rows": 0, "resets": 0, "reshuffles": 0, "knocks": 0, "scores": 0}


def _expected(game: Game) -> tuple[np.ndarray, np.ndarray, int]:
    """The row as the plain environment builds it: from the seat's view alone."""
    seat = game.to_move
    seen = view(game.match, seat)
    return (encode_view(seen, pile_below_top(seen)),
            mask_array(legal_bits(game.hand), NUM_ACTIONS), seat)


def _check_rows(games: VectorGinRummy, obs: np.ndarray, masks: np.ndarray,
                seats: np.ndarray) -> None:
    assert obs.dtype == np.float32 and masks.dtype == np.int8 and seats.dtype == np.int64
    for index, game in enumerate(games.games):
        tensor, mask, seat = _expected(game)
        assert np.array_equal(obs[index], tensor), (index, game.hand.log)
        assert np.array_equal(masks[index], mask), (index, game.hand.log)
        assert seats[index] == seat
        hand = game.hand
        CHECKED["rows"] += 1
        CHECKED["reshuffles"] += hand.reshuffles > 0
        CHECKED["knocks"] += hand.knock is not None
        CHECKED["scores"] += any(game.match.scores)


@pytest.mark.parametrize("table", TABLES, ids=lambda t: f"{t['preset']}-{t.get('players', 2)}")
def test_every_row_is_the_seats_view_encoded(table: dict[str, Any]) -> None:
    games = VectorGinRummy(6, **table)
    obs, masks, seats = games.reset(seed=11)
    _check_rows(games, obs, masks, seats)
    rng = np.random.default_rng(3)
    for _ in range(400):
        actions = (rng.random(masks.shape) * masks).argmax(axis=1)
        knocks = masks[:, 55:108].argmax(axis=1) + 55  # knock when it may: hands end
        can_knock = masks[:, 55:108].any(axis=1)
        actions = np.where(can_knock, knocks, actions)
        obs, masks, seats, rewards, terminated, truncated = games.step(actions)
        CHECKED["resets"] += int(terminated.sum() + truncated.sum())
        assert np.allclose(rewards.sum(axis=1), 0, atol=1e-3)
        _check_rows(games, obs, masks, seats)


def test_the_rows_covered_resets_reshuffles_knocks_and_scores() -> None:
    """Runs after the comparisons (file order): they saw every kind of state. When some of
    them ran in another test process (pytest-xdist splits a file), all run again here."""
    if CHECKED["rows"] < 10_000:
        CHECKED.update(dict.fromkeys(CHECKED, 0))
        for table in TABLES:
            test_every_row_is_the_seats_view_encoded(table)
    assert CHECKED["rows"] >= 10_000
    assert min(CHECKED["resets"], CHECKED["reshuffles"], CHECKED["knocks"],
               CHECKED["scores"]) > 0, CHECKED


def _rows_of(games: VectorGinRummy, index: int, hand: Any) -> tuple[np.ndarray, np.ndarray]:
    """Game ``index``'s row with ``hand`` in place of its own (a fresh vector reads it)."""
    probe = VectorGinRummy(1, games.config.rules, episode=games.config.episode,
                           reward=games.config.reward)
    clone = probe.games[0]
    clone.match, clone.hand = games.games[index].match, hand
    obs, masks, _ = probe.observe()
    return obs[0], masks[0]


STEPS_PLAYED = [0]
CHANGED = [0]


@settings(max_examples=40, deadline=None)
@given(table=st.sampled_from(TABLES), seed=st.integers(0, 2**32 - 1),
       checkpoints=st.lists(st.integers(0, 150), min_size=1, max_size=3))
def test_vector_rows_never_encode_hidden_cards(table: dict[str, Any], seed: int,
                                               checkpoints: list[int]) -> None:
    """At random steps, each game's seat to move gets the same row when the cards it cannot
    know are exchanged among themselves (the same deal otherwise, the same actions)."""
    games = VectorGinRummy(3, **table)
    obs, masks, _ = games.reset(seed=seed)
    rng = random.Random(seed)
    for step in range(max(checkpoints) + 1):
        if step in checkpoints:
            for index, game in enumerate(games.games):
                other = _other_world(game.hand, game.to_move, rng)
                CHANGED[0] += other.hands != game.hand.hands or other.stock != game.hand.stock
                theirs, their_mask = _rows_of(games, index, other)
                assert np.array_equal(obs[index], theirs), (index, game.hand.log)
                assert np.array_equal(masks[index], their_mask)
        actions = [rng.choice(np.flatnonzero(row).tolist()) for row in masks]
        obs, masks, *_ = games.step(actions)
        STEPS_PLAYED[0] += len(actions)


def test_the_vector_property_played_thousands_of_steps() -> None:
    """Runs after the property (file order): thousands of steps, and the exchanged worlds
    did differ (other hands or another stock) at most checkpoints."""
    if STEPS_PLAYED[0] == 0:
        test_vector_rows_never_encode_hidden_cards()
    assert STEPS_PLAYED[0] >= 2_000, STEPS_PLAYED[0]
    assert CHANGED[0] >= 40, CHANGED[0]


def test_bad_ids_name_the_game_and_the_id() -> None:
    games = VectorGinRummy(3)
    _, masks, _ = games.reset(seed=1)
    good = masks.argmax(axis=1)
    bad = good.copy()
    bad[1] = 3
    with pytest.raises(ValueError, match=r"game 1: action id 3 \(discard As\) is not legal "
                                         r"in the offer phase; legal ids: \[1, 2\]"):
        games.step(bad)
    bad[1] = 109
    with pytest.raises(ValueError, match=r"game 1: action id 109 is outside 0..108"):
        games.step(bad)
    bad[1] = -1
    with pytest.raises(ValueError, match=r"game 1: action id -1 is outside 0..108"):
        games.step(bad)
    with pytest.raises(ValueError, match=r"step needs 3 action ids"):
        games.step(good[:2])
    games.step(good)  # the refused calls changed nothing


def test_a_seed_replays_every_episode_after_the_auto_resets() -> None:
    """Games dealt again from their own generators: the same seed and actions give the same
    rows, rewards and ends through many episodes; another seed gives other deals."""
    def run(seed: int) -> tuple[list[np.ndarray], int]:
        games = VectorGinRummy(4, preset="classic", players=2)
        obs, masks, _ = games.reset(seed=seed)
        rng = np.random.default_rng(8)
        trace, ends = [obs.copy()], 0
        for _ in range(600):
            obs, masks, _, rewards, terminated, truncated = games.step(
                (rng.random(masks.shape) * masks).argmax(axis=1))
            ends += int(terminated.sum() + truncated.sum())
            trace += [obs.copy(), rewards.copy(), terminated.copy()]
        return trace, ends

    first, ends = run(5)
    again, _ = run(5)
    other, _ = run(6)
    assert ends >= 8
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert not np.array_equal(first[0], other[0])


def test_the_aec_rows_of_the_seat_to_move_are_the_views_encoding() -> None:
    """env()'s row of the seat to move, built with its pile memory kept between views, is
    the encoding of the seat's view with a fresh memory and its legal ids, in every preset."""
    from ginrummy.env import raw_env
    from ginrummy.env.observation import PileMemory, encode_with_mask

    rng = np.random.default_rng(0)
    rows = 0
    for kwargs in ({}, {"preset": "arena", "players": 3}, {"preset": "arena", "players": 4},
                   {"preset": "classic", "episode": "match",
                    "options": {"stock_end": "reshuffle", "discard_history_visible": True}}):
        game = raw_env(**kwargs)
        for seed in range(6):
            game.reset(seed=seed)
            for _agent in game.agent_iter(max_iter=400):
                observation, _, terminated, truncated, _ = game.last()
                if terminated or truncated:
                    game.step(None)
                    continue
                seen = view(game.game.match, game.game.to_move)
                tensor, mask = encode_with_mask(seen, PileMemory().below_top(seen),
                                                legal_bits(game.game.hand), NUM_ACTIONS)
                assert (observation["observation"] == tensor).all()
                assert (observation["action_mask"] == mask).all()
                rows += 1
                game.step(int(rng.choice(np.flatnonzero(mask))))
    assert rows > 1_000
