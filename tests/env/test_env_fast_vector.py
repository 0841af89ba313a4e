"""The compiled vector env (:class:`FastVectorGinRummy`, numba) against the pure-Python
reference (:class:`VectorGinRummy`) in lock-step: the same seed, the same actions, and at
every step the same observations, masks, seats, rewards, terminations, truncations and
final observations of the games that ended, over thousands of games that hold gins, knocks,
undercuts and hands voided at the stock's end."""

from __future__ import annotations

import collections
from typing import Any

import numpy as np
import pytest

from ginrummy.env import VectorGinRummy
from ginrummy.env.actions import KNOCK_BASE
from ginrummy.env.fast_vector import (
    FastVectorGinRummy,
    fast_path_problem,
    make_vector,
    numba_available,
)
from ginrummy.scoring import Outcome
from ginrummy.solver import deadwood_mask

needs_numba = pytest.mark.skipif(
    not numba_available(),
    reason="numba is not installed (pip install 'ginrummy[env]'): the fast vector env's "
           "lock-step test needs it")


def _greedy(game: Any, legal: np.ndarray) -> int:
    """Knock (gin first) when it may, else throw the card that leaves the least deadwood:
    a player that reaches gins, knocks and undercuts often."""
    knocks = legal[(legal >= KNOCK_BASE) & (legal < KNOCK_BASE + 52)]
    hand = game.hand.hands[game.hand.to_move]
    if len(knocks):
        return int(min(knocks, key=lambda i: deadwood_mask(hand & ~(1 << (int(i) - KNOCK_BASE)))))
    discards = legal[(legal >= 3) & (legal < KNOCK_BASE)]
    if len(discards):
        return int(min(discards, key=lambda i: deadwood_mask(hand & ~(1 << (int(i) - 3)))))
    if 1 in legal and deadwood_mask(hand | 1 << game.hand.discards[-1]) < deadwood_mask(hand):
        return 1
    return int(legal[0])


def _lockstep(num_envs: int, steps: int, seed: int, **kwargs: Any) -> collections.Counter[str]:
    """Play both for ``steps`` steps and compare everything; the outcomes of the ended
    games (from the reference's results)."""
    reference = VectorGinRummy(num_envs, **kwargs)
    fast = FastVectorGinRummy(num_envs, **kwargs)
    first: list[np.ndarray] = [*fast.reset(seed=seed)]
    again: list[np.ndarray] = [*reference.reset(seed=seed)]
    for mine, theirs in zip(first, again, strict=True):
        assert mine.dtype == theirs.dtype and np.array_equal(mine, theirs)
    rng = np.random.default_rng(seed)
    greedy = rng.random(num_envs) < 0.6  # the other games play uniformly at random
    outcomes: collections.Counter[str] = collections.Counter()
    masks = reference.observe()[1]
    for step in range(steps):
        actions = np.empty(num_envs, dtype=np.int64)
        for index, game in enumerate(reference.games):
            legal = np.flatnonzero(masks[index])
            actions[index] = (_greedy(game, legal) if greedy[index]
                              else legal[rng.integers(len(legal))])
        ended = {index: game.hand for index, game in enumerate(reference.games)}
        expected: list[np.ndarray] = [*reference.step(actions)]
        got: list[np.ndarray] = [*fast.step(actions)]
        for name, mine, theirs in zip(("obs", "masks", "seats", "rewards", "terminated",
                                       "truncated"), got, expected, strict=True):
            assert mine.dtype == theirs.dtype and mine.shape == theirs.shape, name
            where = np.flatnonzero((mine != theirs).reshape(num_envs, -1).any(axis=1))
            assert not len(where), (f"step {step}: {name} differ in games {where.tolist()}: "
                                    f"{ended[int(where[0])].log}")
        assert fast.final_observations.keys() == reference.final_observations.keys()
        for index, (seat, tensor) in reference.final_observations.items():
            mine_seat, mine_tensor = fast.final_observations[index]
            assert mine_seat == seat and np.array_equal(mine_tensor, tensor), (
                step, index, ended[index].log)
            result = ended[index].result
            outcomes["truncated" if result is None else str(result.outcome)] += 1
        masks = expected[1]
    return outcomes


@needs_numba
def test_lockstep_eaai_hundreds_of_games() -> None:
    """The default run: about 900 games (1.4 s of CPU once compiled)."""
    outcomes = _lockstep(32, 1_200, seed=7)
    assert sum(outcomes.values()) >= 800, outcomes
    for outcome in (Outcome.GIN, Outcome.KNOCK, Outcome.UNDERCUT, Outcome.VOID):
        assert outcomes[str(outcome)] >= 10, outcomes


@needs_numba
@pytest.mark.soak
def test_lockstep_eaai_thousands_of_games() -> None:
    outcomes = _lockstep(64, 2_500, seed=7)
    assert sum(outcomes.values()) >= 2_000, outcomes
    for outcome in (Outcome.GIN, Outcome.KNOCK, Outcome.UNDERCUT, Outcome.VOID):
        assert outcomes[str(outcome)] >= 20, outcomes


@needs_numba
@pytest.mark.parametrize("kwargs", [
    {"options": {"undercut_ties": "strict", "layoff_chain": "none", "knock_limit": 7,
                 "gin_bonus": 20, "undercut_bonus": 10}, "reward_scale": 0.01},
    {"options": {"layoff_chain": "two", "no_rediscard_of_taken_card": False}},
    {"preset": "eaai", "max_decisions": 25},
], ids=["strict-none-limit7", "two-rediscard", "truncated"])
def test_lockstep_options(kwargs: dict[str, Any]) -> None:
    outcomes = _lockstep(32, 800, seed=11, **kwargs)
    assert sum(outcomes.values()) >= 300, outcomes
    if kwargs.get("max_decisions"):
        assert outcomes["truncated"] >= 100, outcomes
    else:
        assert outcomes[str(Outcome.KNOCK)] and outcomes[str(Outcome.UNDERCUT)], outcomes


@needs_numba
def test_bad_ids_are_refused_like_the_reference() -> None:
    fast = FastVectorGinRummy(3)
    reference = VectorGinRummy(3)
    fast.reset(seed=2)
    reference.reset(seed=2)
    for actions in ([1, 1, 40], [1, 1, 200], [1, 1.5, 1], [1, 1]):
        with pytest.raises(ValueError) as theirs:
            reference.step(actions)
        with pytest.raises(ValueError) as mine:
            fast.step(actions)
        assert str(mine.value) == str(theirs.value)
    # nothing moved: the same step still plays the same in both
    moved: list[np.ndarray] = [*fast.step([1, 2, 1])]
    expected: list[np.ndarray] = [*reference.step([1, 2, 1])]
    assert all(np.array_equal(a, b) for a, b in zip(moved, expected, strict=True))


@needs_numba
def test_make_vector_picks_the_backend() -> None:
    assert isinstance(make_vector(2), FastVectorGinRummy)
    assert isinstance(make_vector(2, backend="python"), VectorGinRummy)
    assert isinstance(make_vector(2, preset="arena", players=3), VectorGinRummy)
    with pytest.raises(ValueError, match="cannot play these rules: it plays two players"):
        make_vector(2, backend="numba", preset="arena", players=3)
    with pytest.raises(ValueError, match="backend must be one of"):
        make_vector(2, backend="cuda")


def test_without_numba_auto_falls_back_and_numba_says_so(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    from ginrummy.env import fast_vector

    monkeypatch.setattr(fast_vector, "numba_available", lambda: False)
    assert isinstance(make_vector(2), VectorGinRummy)
    with pytest.raises(ImportError, match="fast vector env needs numba"):
        make_vector(2, backend="numba")


def test_fast_path_problem_names_the_rule() -> None:
    from ginrummy.env.core import GameConfig
    from ginrummy.rules import Ruleset

    assert fast_path_problem(GameConfig(Ruleset.preset("eaai"))) is None
    assert fast_path_problem(GameConfig(Ruleset.preset("eaai", big_gin=True))) == (
        "it plays without big gin")
    assert fast_path_problem(GameConfig(Ruleset.preset("classic"))) is not None


@needs_numba
def test_gymnasium_vector_on_either_backend_gives_the_same_steps() -> None:
    from ginrummy.env import GinRummyVectorEnv

    fast = GinRummyVectorEnv(16, backend="numba")
    plain = GinRummyVectorEnv(16, backend="python")
    assert isinstance(fast.vector, FastVectorGinRummy)
    assert isinstance(plain.vector, VectorGinRummy)
    (obs, info), (expected, their_info) = fast.reset(seed=5), plain.reset(seed=5)
    rng = np.random.default_rng(5)
    finals = 0
    for _ in range(300):
        assert np.array_equal(obs["observation"], expected["observation"])
        assert np.array_equal(obs["action_mask"], expected["action_mask"])
        assert np.array_equal(info["seat"], their_info["seat"])
        actions = (rng.random(obs["action_mask"].shape) * obs["action_mask"]).argmax(axis=1)
        obs, reward, terminated, truncated, info = fast.step(actions)
        expected, their_reward, their_terminated, their_truncated, their_info = plain.step(
            actions)
        assert np.array_equal(reward, their_reward)
        assert np.array_equal(terminated, their_terminated)
        assert np.array_equal(truncated, their_truncated)
        assert np.array_equal(info["rewards"], their_info["rewards"])
        assert ("final_obs" in info) == ("final_obs" in their_info)
        if "final_obs" in info:
            assert np.array_equal(info["_final_obs"], their_info["_final_obs"])
            for index in np.flatnonzero(info["_final_obs"]):
                finals += 1
                assert np.array_equal(info["final_obs"][index]["observation"],
                                      their_info["final_obs"][index]["observation"])
    assert finals >= 20


@needs_numba
@pytest.mark.parametrize("chain", ["own", "none", "two"])
def test_core_deadwood_and_defence_match_the_solver(chain: str) -> None:
    """The core's least deadwood and a defender's deadwood after layoffs, against the
    solver's on crowded hands (cards from a few ranks, so that sets of three and four, long
    runs and several equal arrangements are common)."""
    import random

    from ginrummy.env import fast_core
    from ginrummy.solver import Chaining, best_defence, best_melds_mask

    reach = {"own": 13, "none": 1, "two": 2}[chain]
    rng = random.Random(chain)
    differ_by_layoffs = 0
    for _ in range(4_000):
        low = rng.randrange(0, 8)
        deck = [suit * 13 + rank for suit in range(4) for rank in range(low, low + 6)]
        rng.shuffle(deck)
        rest = sum(1 << card for card in deck[:10])
        hand = sum(1 << card for card in deck[10:20])
        for mask in (rest, hand, rest | 1 << deck[20], rest & ~(1 << deck[0])):
            assert fast_core.deadwood(mask) == deadwood_mask(mask)
        melds = best_melds_mask(rest).melds
        expected = best_defence(hand, melds, Chaining(chain)).deadwood
        assert fast_core.defence_deadwood(hand, rest, reach) == expected, (deck, chain)
        differ_by_layoffs += expected < deadwood_mask(hand)
    assert differ_by_layoffs >= 1_000
