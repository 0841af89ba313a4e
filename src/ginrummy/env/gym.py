"""The Gymnasium single-agent wrapper: one seat is the agent, the others computer players."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, SupportsFloat

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from ginrummy.bots import Bot, make_bot, parse_spec
from ginrummy.env.actions import NUM_ACTIONS
from ginrummy.env.aec import Observation, observation_space
from ginrummy.env.core import MAX_DECISIONS, Game, GameConfig, make_rules
from ginrummy.env.observation import PileMemory, encode_with_mask
from ginrummy.rules import Ruleset
from ginrummy.views import PlayerView, view

__all__ = ["GinRummyGym"]


class GinRummyGym(gymnasium.Env[dict[str, Any], np.int64]):
    """Gin Rummy against computer players, as one Gymnasium environment.

    ``opponents``: one computer level for every other seat (``"random"``, ``"simple"``,
    ``"beginner"``, ``"intermediate"``, ``"expert"``, ``"expert:250"``) or one per other seat
    in turn order from the agent's left. ``seat``: the agent's seat, or ``None`` for a seat
    drawn at each reset. ``illegal_reward``: an id that is not legal ends the episode with
    this reward (as PettingZoo's classic games do), or raises ``ValueError`` when ``None``.
    The other arguments are :class:`~ginrummy.env.aec.GinRummyAEC`'s.
    The reward of a step is the agent's share of every reward until its next decision.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi"]}  # noqa: RUF012  # Env's own

    def __init__(self, opponents: str | Sequence[str] = "random", seat: int | None = 0,
                 preset: str | Ruleset = "eaai", players: int | None = None,
                 options: dict[str, Any] | None = None, episode: str = "hand",
                 reward: str = "points", reward_scale: float = 1.0,
                 max_decisions: int = MAX_DECISIONS, render_mode: str | None = None,
                 illegal_reward: float | None = -1.0) -> None:
        rules = make_rules(preset, players, options)
        self.config = GameConfig(rules, episode, reward, reward_scale, max_decisions)
        n = rules.players
        specs = [opponents] * (n - 1) if isinstance(opponents, str) else list(opponents)
        if len(specs) != n - 1:
            raise ValueError(f"opponents: {n} players need {n - 1} computer levels, "
                             f"got {len(specs)}")
        for spec in specs:
            make_bot(spec, 0)  # a clear error now for an unknown level
            parse_spec(spec)
        if seat is not None and not (isinstance(seat, int) and 0 <= seat < n):
            raise ValueError(f"seat must be 0..{n - 1} or None, got {seat!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be 'ansi' or None, got {render_mode!r}")
        self.render_mode = render_mode
        self.illegal_reward = illegal_reward
        self._ended_illegally = False
        self.opponents = specs
        self.fixed_seat = seat
        self.seat = 0 if seat is None else seat
        self.observation_space = observation_space()
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self.game = Game(self.config)
        self._bots: dict[int, Bot] = {}
        self._memory = PileMemory()

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[Observation, dict[str, Any]]:
        """A new episode, played up to the agent's first decision."""
        super().reset(seed=seed)
        draw = self.np_random.integers
        n = self.config.rules.players
        self.seat = int(draw(n)) if self.fixed_seat is None else self.fixed_seat
        self.game.reset(int(draw(2**63)))
        others = [(self.seat + offset) % n for offset in range(1, n)]
        self._bots = {s: make_bot(spec, int(draw(2**63)))
                      for s, spec in zip(others, self.opponents, strict=True)}
        self._memory = PileMemory()
        self._ended_illegally = False
        self._play_opponents()
        return self._observe(), {"seat": self.seat}

    def step(self, action: np.int64 | int) -> tuple[Observation, SupportsFloat, bool, bool,
                                         dict[str, Any]]:
        """Play the agent's action id, then the computer players up to its next decision."""
        game = self.game
        if game.over or self._ended_illegally:
            raise ValueError("the episode is over: call reset()")
        action = int(action)
        if not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"action id {action} is outside 0..{NUM_ACTIONS - 1}")
        if self.illegal_reward is not None and not game.legal_bits() >> action & 1:
            self._ended_illegally = True
            observation = self._observe()
            observation["action_mask"][:] = 0
            return (observation, self.illegal_reward, True, False,
                    {"seat": self.seat, "illegal_action": int(action)})
        rewards = game.step(int(action))
        reward = 0.0 if rewards is None else rewards[self.seat]
        reward += self._play_opponents()
        return (self._observe(), reward, game.over and not game.truncated, game.truncated,
                {"seat": self.seat})

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal ids now as 109 booleans (sb3-contrib's ``MaskablePPO`` asks for this);
        all false once the episode is over."""
        bits = 0 if self._ended_illegally else self.game.legal_bits()
        return np.array([bits >> i & 1 for i in range(NUM_ACTIONS)], dtype=np.bool_)

    def view(self) -> PlayerView:
        """The agent's view of the current hand."""
        return view(self.game.match, self.seat)

    def render(self) -> str | None:
        """The hand as text (every card shown)."""
        return repr(self.game.hand) if self.render_mode == "ansi" else None

    def _play_opponents(self) -> float:
        game = self.game
        seat = self.seat
        reward = 0.0
        while not game.over and game.to_move != seat:
            mover = game.to_move
            hand = game.hand
            action = self._bots[mover].choose(view(game.match, mover), hand.legal_actions())
            rewards = game.play(action)
            if rewards is not None:
                reward += rewards[seat]
        return reward

    def _observe(self) -> Observation:
        seen = view(self.game.match, self.seat)
        tensor, mask = encode_with_mask(seen, self._memory.below_top(seen),
                                        self.game.legal_bits(), NUM_ACTIONS)
        return {"observation": tensor, "action_mask": mask}
