"""The environments against PettingZoo's and Gymnasium's own checks, seeding, rewards, errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

from ginrummy.env import GinRummyAEC, GinRummyGym, VectorGinRummy, env, raw_env
from ginrummy.env.actions import BIG_GIN_ID, DISCARD_BASE, KNOCK_BASE
from ginrummy.env.core import zero_sum
from ginrummy.solver import deadwood_mask


def _quiet(check: object, *args: object, **kwargs: object) -> None:
    with warnings.catch_warnings():  # Dict observations: PettingZoo's advice, not a failure
        warnings.simplefilter("ignore", UserWarning)
        check(*args, **kwargs)  # type: ignore[operator]


@pytest.mark.parametrize("kwargs", [
    {},
    {"preset": "arena", "players": 3},
    {"preset": "arena", "players": 4},
    {"preset": "classic", "episode": "match", "reward": "margin"},
    {"preset": "playok", "options": {"big_gin": True}, "episode": "match"},
])
def test_pettingzoo_api_test(kwargs: dict[str, object]) -> None:
    _quiet(api_test, env(**kwargs), num_cycles=300)


def test_pettingzoo_seed_test() -> None:
    _quiet(seed_test, lambda: env(preset="arena", players=3), num_cycles=200)


@pytest.mark.parametrize("opponents", ["random", "simple", "beginner"])
def test_gymnasium_check_env(opponents: str) -> None:
    _quiet(check_env, GinRummyGym(opponents=opponents), skip_render_check=True)


def _random_episode(game: object, seed: int) -> list[tuple[str, int, float]]:
    rng = np.random.default_rng(seed)
    game.reset(seed=seed)  # type: ignore[attr-defined]
    trace = []
    for agent in game.agent_iter():  # type: ignore[attr-defined]
        observation, reward, terminated, truncated, _ = game.last()  # type: ignore[attr-defined]
        action = None
        if not (terminated or truncated):
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        trace.append((agent, -1 if action is None else action, float(reward)))
        game.step(action)  # type: ignore[attr-defined]
    return trace


def test_seed_reproduces_an_episode_exactly() -> None:
    for kwargs in ({}, {"preset": "classic", "options": {"stock_end": "reshuffle"}}):
        first = _random_episode(env(**kwargs), 11)
        assert first == _random_episode(env(**kwargs), 11)
        assert first != _random_episode(env(**kwargs), 12)
    gym = GinRummyGym(opponents="simple", seat=None)
    a, _ = gym.reset(seed=5)
    b, _ = GinRummyGym(opponents="simple", seat=None).reset(seed=5)
    assert np.array_equal(a["observation"], b["observation"])


def _knocking(game: GinRummyAEC, rng: np.random.Generator) -> int:
    """Knock when possible, else mostly the discard leaving the least deadwood (scores)."""
    legal = [int(i) for i in np.flatnonzero(game.observe(game.agent_selection)["action_mask"])]
    knocks = [i for i in legal if KNOCK_BASE <= i <= BIG_GIN_ID]
    if knocks:
        return knocks[0]
    discards = [i for i in legal if DISCARD_BASE <= i < KNOCK_BASE]
    if discards and rng.random() < 0.9:
        cards = game.game.hand.hands[game.game.to_move]
        return min(discards, key=lambda i: deadwood_mask(cards & ~(1 << (i - DISCARD_BASE))))
    return int(rng.choice(legal))


def test_rewards_are_zero_sum_and_the_hand_score() -> None:
    assert zero_sum([25, 0]) == [25.0, -25.0]
    assert zero_sum([0, 30, 0]) == [-15.0, 30.0, -15.0]
    for players, preset in ((2, "eaai"), (3, "arena"), (4, "arena")):
        game = raw_env(preset=preset, players=players)
        totals = []
        for seed in range(15):
            game.reset(seed=seed)
            rng = np.random.default_rng(seed)
            rewards = dict.fromkeys(game.possible_agents, 0.0)
            for agent in game.agent_iter():
                _, reward, terminated, truncated, _ = game.last()
                rewards[agent] += reward
                action = None if terminated or truncated else _knocking(game, rng)
                game.step(action)
            result = game.game.hand.result
            assert result is not None
            assert abs(sum(rewards.values())) < 1e-6
            if not result.void and players == 2:
                winner = f"player_{result.winner}"
                assert rewards[winner] == pytest.approx(sum(result.points))
            totals.append(sum(abs(r) for r in rewards.values()))
        assert sum(1 for t in totals if t) >= 8, totals


def test_match_episode_plays_to_the_target() -> None:
    game = raw_env(preset="classic", episode="match", reward="margin")
    rng = np.random.default_rng(3)
    game.reset(seed=3)
    final = dict.fromkeys(game.possible_agents, 0.0)
    for agent in game.agent_iter():
        _, reward, terminated, truncated, _ = game.last()
        final[agent] += reward
        game.step(None if terminated or truncated else _knocking(game, rng))
    result = game.game.match.result
    assert result is not None and len(game.game.match.hands) > 1
    assert final[f"player_{result.winner}"] == pytest.approx(result.margin)


def test_bad_input_gets_a_clear_error() -> None:
    game = raw_env()
    game.reset(seed=1)
    with pytest.raises(ValueError, match=(r"player_1: action id 40 \(discard Qd\) is not legal "
                                         r"in the offer phase")):
        game.step(40)
    with pytest.raises(ValueError, match=r"outside 0\.\.108"):
        game.step(500)
    with pytest.raises(ValueError, match="episode must be one of"):
        raw_env(episode="season")
    with pytest.raises(ValueError, match="reward 'margin' scores a whole match"):
        raw_env(reward="margin")
    with pytest.raises(ValueError, match="2 players need 1 computer levels"):
        GinRummyGym(opponents=["simple", "random"])
    with pytest.raises(ValueError, match=r"unknown|known"):
        GinRummyGym(opponents="grandmaster")
    wrapped = env()
    wrapped.reset(seed=1)
    mover = wrapped.agent_selection
    wrapped.step(40)  # as PettingZoo's TerminateIllegalWrapper: the episode ends at -1
    assert wrapped.rewards == {mover: -1.0, ({"player_0", "player_1"} - {mover}).pop(): 0.0}
    assert all(wrapped.terminations.values())
    fresh = env()
    fresh.reset(seed=2)
    with pytest.raises(ValueError, match=r"action id -1 is outside 0\.\.108"):
        fresh.step(-1)
    solo = GinRummyGym()
    solo.reset(seed=1)
    with pytest.raises(ValueError, match=r"action id 200 is outside 0\.\.108"):
        solo.step(200)
    with pytest.raises(RuntimeError, match=r"call reset\(\) before step\(\)"):
        env().step(1)


def test_vector_matches_single_games() -> None:
    vector = VectorGinRummy(8, preset="arena", players=3)
    single = VectorGinRummy(1, preset="arena", players=3)
    obs, masks, seats = vector.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(300):
        actions = (rng.random(masks.shape) * masks).argmax(axis=1)
        assert all(masks[i, a] for i, a in enumerate(actions))
        obs, masks, seats, rewards, _, _ = vector.step(actions)
        assert np.allclose(rewards.sum(axis=1), 0, atol=1e-4)
        assert obs.shape == (8, 387) and masks.shape == (8, 109) and seats.shape == (8,)
    # every row is the observation the AEC environment gives the same seat
    for index, game in enumerate(vector.games):
        seat = game.to_move
        aec = raw_env(preset="arena", players=3)
        aec.game = game
        assert np.array_equal(aec.observe(f"player_{seat}")["observation"], obs[index])
        assert np.array_equal(aec.observe(f"player_{seat}")["action_mask"], masks[index])
    assert single.reset(seed=4)[0].shape == (1, 387)


def test_defaults_and_vector_seeding() -> None:
    game = env()
    assert game.config.rules.name == "eaai" and game.possible_agents == ["player_0", "player_1"]
    assert game.config.episode == "hand" and game.config.reward == "points"
    runs = []
    for _ in range(2):
        vector = VectorGinRummy(4)
        obs, masks, _ = vector.reset(seed=9)
        rng = np.random.default_rng(1)
        trace = [obs.copy()]
        for _ in range(120):
            obs, masks, _, rewards, _, _ = vector.step(
                (rng.random(masks.shape) * masks).argmax(axis=1))
            trace += [obs.copy(), rewards.copy()]
        runs.append(trace)
    assert all(np.array_equal(a, b) for a, b in zip(*runs, strict=True))
