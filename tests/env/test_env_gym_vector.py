"""The vector as a Gymnasium VectorEnv: its spaces, its step, the final observation kept on
the same-step autoreset, and the mover's reward."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, VectorEnv

from ginrummy.env.gym_vector import GinRummyVectorEnv


def test_a_gymnasium_vector_env_with_spaces_that_keeps_the_final_observation() -> None:
    games = GinRummyVectorEnv(8, preset="eaai")
    assert isinstance(games, VectorEnv)
    assert games.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    assert games.action_space.shape == (8,)
    obs, info = games.reset(seed=3)
    assert games.observation_space.contains(obs) and info["seat"].shape == (8,)
    rng = np.random.default_rng(3)
    ended = 0
    for _ in range(600):
        movers = info["seat"]
        actions = (rng.random(obs["action_mask"].shape) * obs["action_mask"]).argmax(axis=1)
        obs, reward, terminated, truncated, info = games.step(actions)
        assert games.observation_space.contains(obs)
        assert (reward == info["rewards"][np.arange(8), movers]).all()
        done = terminated | truncated
        if done.any():
            assert (info["_final_obs"] == done).all()
            for index in np.flatnonzero(done):
                final = info["final_obs"][index]
                assert games.single_observation_space.contains(final)
                assert final["observation"][368] == 1.0  # phase "over"
                assert obs["observation"][index][368] == 0.0  # the new game's row
                assert abs(info["rewards"][index].sum()) < 1e-4
                ended += 1
        else:
            assert "final_obs" not in info
    assert ended > 5
    with pytest.raises(ValueError, match="one integer seed"):
        games.reset(seed=[1, 2])
