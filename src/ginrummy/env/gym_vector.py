"""The vectorised self-play games as a Gymnasium ``VectorEnv`` (docs/env.md): Gymnasium's
spaces and step signature over :class:`~ginrummy.env.vector.VectorGinRummy` (or its compiled
twin :class:`~ginrummy.env.fast_vector.FastVectorGinRummy`), with the final observation of
each game that ends kept in ``info`` (Gymnasium's same-step autoreset)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ginrummy.env.actions import NUM_ACTIONS
from ginrummy.env.aec import observation_space
from ginrummy.env.fast_vector import make_vector

__all__ = ["GinRummyVectorEnv"]

Batch = dict[str, npt.NDArray[Any]]


class GinRummyVectorEnv(VectorEnv):
    """``num_envs`` self-play games (arguments: :class:`VectorGinRummy`), one decision of
    each per :meth:`step`, for whichever seat is to move in it. ``backend``: ``auto`` plays
    on the compiled core when numba is installed and it plays the rules, else in Python;
    ``numba`` or ``python`` insist (:func:`~ginrummy.env.fast_vector.make_vector`).

    The observation is a batch of :class:`~ginrummy.env.aec.GinRummyAEC`'s dicts (the tensor
    and the action mask of the seat to move); the action a batch of ids. The reward of a row
    is the reward its action brought the seat that chose it; ``info["rewards"]`` has every
    seat's ``(num_envs, players)``, ``info["seat"]`` the seat now to move. A game that ends is
    dealt again in the same step (``autoreset_mode`` ``SAME_STEP``): its row shows the new
    game, and ``info["final_obs"]`` (where ``info["_final_obs"]``) the last observation of the
    ended one for the seat that moved last.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP}  # noqa: RUF012

    def __init__(self, num_envs: int, backend: str = "auto", **kwargs: Any) -> None:
        self.vector = make_vector(num_envs, backend, **kwargs)
        self.num_envs = num_envs
        self.single_observation_space = observation_space()
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._seats = np.zeros(num_envs, dtype=np.int64)

    def reset(self, *, seed: int | list[int] | None = None,
              options: dict[str, Any] | None = None) -> tuple[Batch, dict[str, Any]]:
        """Deal every game (``seed``: one integer for the whole batch, or none to go on
        with the vector's generator)."""
        if isinstance(seed, list):
            raise ValueError("give one integer seed for the whole batch, not a list")
        obs, masks, seats = self.vector.reset(seed)
        self._seats = seats
        return {"observation": obs, "action_mask": masks}, {"seat": seats}

    def step(self, actions: npt.ArrayLike) -> tuple[Batch, npt.NDArray[np.float32],
                                                    npt.NDArray[np.bool_], npt.NDArray[np.bool_],
                                                    dict[str, Any]]:
        """One decision in every game (an illegal id raises ``ValueError`` naming it)."""
        movers = self._seats
        obs, masks, seats, rewards, terminated, truncated = self.vector.step(actions)
        self._seats = seats
        mine = rewards[np.arange(self.num_envs), movers]
        info: dict[str, Any] = {"seat": seats, "rewards": rewards}
        if self.vector.final_observations:
            final = np.empty(self.num_envs, dtype=object)
            flags = np.zeros(self.num_envs, dtype=np.bool_)
            for index, (_, tensor) in self.vector.final_observations.items():
                final[index] = {"observation": tensor,
                                "action_mask": np.zeros(NUM_ACTIONS, dtype=np.int8)}
                flags[index] = True
            info["final_obs"], info["_final_obs"] = final, flags
        return ({"observation": obs, "action_mask": masks}, mine.astype(np.float32),
                terminated, truncated, info)
