"""Many games stepped in one call: every game's observation, mask and rewards as arrays."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import numpy.typing as npt

from ginrummy.env.actions import NUM_ACTIONS
from ginrummy.env.core import MAX_DECISIONS, Game, GameConfig, make_rules
from ginrummy.env.observation import (
    PileMemory,
    decode_rows,
    packed_row,
    raw_numbers,
)
from ginrummy.rules import Ruleset
from ginrummy.views import view

__all__ = ["VectorGinRummy", "VectorStep"]

VectorStep = tuple[npt.NDArray[np.float32], npt.NDArray[np.int8], npt.NDArray[np.int64],
                   npt.NDArray[np.float32], npt.NDArray[np.bool_], npt.NDArray[np.bool_]]


class VectorGinRummy:
    """``num_envs`` self-play games (the rules and options of
    :class:`~ginrummy.env.aec.GinRummyAEC`), each with one seat to move at a time.

    :meth:`reset` and :meth:`step` return, one row per game: the observation of the seat to
    move, its action mask and its seat; :meth:`step` also the rewards of every seat (columns by
    seat) and whether the game terminated or was truncated. A game that ends is dealt again at
    once (from the vector's seeded generator): its row then shows the new game's first seat.
    """

    def __init__(self, num_envs: int, preset: str | Ruleset = "eaai",
                 players: int | None = None, options: dict[str, Any] | None = None,
                 episode: str = "hand", reward: str = "points", reward_scale: float = 1.0,
                 max_decisions: int = MAX_DECISIONS) -> None:
        if not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a whole number >= 1, got {num_envs!r}")
        rules = make_rules(preset, players, options)
        self.config = GameConfig(rules, episode, reward, reward_scale, max_decisions)
        self.num_envs = num_envs
        self.players = rules.players
        self.games = [Game(self.config) for _ in range(num_envs)]
        self._memories = [[PileMemory() for _ in range(self.players)]
                          for _ in range(num_envs)]
        self._rng = random.Random()

    def reset(self, seed: int | None = None) -> tuple[
            npt.NDArray[np.float32], npt.NDArray[np.int8], npt.NDArray[np.int64]]:
        """Deal every game; the same ``seed`` replays the same games for the same actions."""
        self._rng = random.Random(seed)
        for index in range(self.num_envs):
            self._deal(index)
        obs, masks, seats = self._rows()
        return obs, masks, seats

    def step(self, actions: npt.ArrayLike) -> VectorStep:
        """Play one action id per game (for its seat to move)."""
        ids = np.asarray(actions).tolist()
        if len(ids) != self.num_envs:
            raise ValueError(f"step needs {self.num_envs} action ids, got {len(ids)}")
        rewards = np.zeros((self.num_envs, self.players), dtype=np.float32)
        terminated = np.zeros(self.num_envs, dtype=np.bool_)
        truncated = np.zeros(self.num_envs, dtype=np.bool_)
        for index, (game, action) in enumerate(zip(self.games, ids, strict=True)):
            try:
                got = game.step(action)
            except ValueError as error:
                raise ValueError(f"game {index}: {error}") from None
            if got is not None:
                rewards[index] = got
            if game.over:
                truncated[index] = game.truncated
                terminated[index] = not game.truncated
                self._deal(index)
        obs, masks, seats = self._rows()
        return obs, masks, seats, rewards, terminated, truncated

    def _deal(self, index: int) -> None:
        self.games[index].reset(self._rng.getrandbits(63))
        self._memories[index] = [PileMemory() for _ in range(self.players)]

    def _rows(self) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8],
                             npt.NDArray[np.int64]]:
        rows = []
        numbers: list[int] = []
        seats = []
        for game, memories in zip(self.games, self._memories, strict=True):
            seat = game.to_move
            seen = view(game.match, seat)
            rows.append(packed_row(seen, memories[seat].below_top(seen), game.legal_bits()))
            numbers += raw_numbers(seen)
            seats.append(seat)
        obs, masks = decode_rows(b"".join(rows), numbers, NUM_ACTIONS)
        return obs, masks, np.array(seats, dtype=np.int64)
