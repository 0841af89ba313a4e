"""sb3-contrib's MaskablePPO trains on GinRummyGym through its action_masks() hook (the
``train`` extra), and the trained policy only ever picks legal ids."""

from __future__ import annotations

import numpy as np
import pytest

from ginrummy.env import GinRummyGym

sb3_contrib = pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")


def test_maskable_ppo_trains_a_few_thousand_steps_and_plays_legally() -> None:
    torch.set_num_threads(1)  # one thread: several are slower on a shared two-core machine
    game = GinRummyGym(opponents="random")
    model = sb3_contrib.MaskablePPO("MultiInputPolicy", game, n_steps=256, batch_size=64,
                                    n_epochs=2, seed=0, device="cpu")
    model.learn(total_timesteps=2_048)
    assert model.num_timesteps >= 2_048
    observation, _ = game.reset(seed=9)
    for _ in range(300):
        masks = game.action_masks()
        action, _ = model.predict(observation, action_masks=masks, deterministic=True)
        assert masks[int(action)]
        observation, _, terminated, truncated, info = game.step(int(action))
        assert "illegal_action" not in info
        if terminated or truncated:
            observation, _ = game.reset()
    assert np.isfinite(model.policy.parameters().__next__().detach().numpy()).all()
