"""The PettingZoo AEC environment: 2-4 seats, any preset and option, a hand or a match."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv  # type: ignore[import-untyped]

from ginrummy.env.actions import NUM_ACTIONS
from ginrummy.env.core import MAX_DECISIONS, Game, GameConfig, make_rules
from ginrummy.env.history import encode_history
from ginrummy.env.observation import OBS_SIZE, DiscardMemory, encode_seat
from ginrummy.rules import Ruleset
from ginrummy.views import PlayerView, view

__all__ = ["GinRummyAEC", "env", "observation_space", "raw_env"]

Observation = dict[str, npt.NDArray[Any]]


def observation_space() -> spaces.Dict:
    """Each agent's observation: the tensor and the mask of legal action ids."""
    return spaces.Dict({
        "observation": spaces.Box(0.0, 1.0, (OBS_SIZE,), dtype=np.float32),
        "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
    })


class GinRummyAEC(AECEnv):  # type: ignore[misc]  # PettingZoo ships no type hints
    """Gin Rummy for 2-4 agents ``player_0`` ... (seat numbers), one decision per step.

    ``preset`` (a name or a :class:`~ginrummy.rules.Ruleset`), ``players`` and ``options``
    choose the rules; ``episode`` is ``"hand"`` (the first hand of a match) or ``"match"``;
    ``reward`` is ``"points"`` (each hand's score as it ends) or ``"margin"`` (the match's
    final totals), made zero-sum and multiplied by ``reward_scale``. A hand longer than
    ``max_decisions`` decisions is truncated. ``illegal_reward``: ``None`` raises
    ``ValueError`` for an id that is not legal; a number ends the episode instead, that
    reward to the player who chose it (PettingZoo's ``TerminateIllegalWrapper``).
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["human", "ansi"], "name": "ginrummy_v0",
                "is_parallelizable": False}

    def __init__(self, preset: str | Ruleset = "eaai", players: int | None = None,
                 options: dict[str, Any] | None = None, episode: str = "hand",
                 reward: str = "points", reward_scale: float = 1.0,
                 max_decisions: int = MAX_DECISIONS, render_mode: str | None = None,
                 illegal_reward: float | None = None) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} "
                             f"or None, got {render_mode!r}")
        rules = make_rules(preset, players, options)
        self.config = GameConfig(rules, episode, reward, reward_scale, max_decisions)
        self.render_mode = render_mode
        self.illegal_reward = illegal_reward
        self._was_reset = False
        self.game = Game(self.config)
        self.possible_agents = [f"player_{seat}" for seat in range(rules.players)]
        self.agents = self.possible_agents[:]
        self._seats = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self._space = observation_space()
        self.observation_spaces = {a: self._space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self._pile = DiscardMemory()
        self._zeros = dict.fromkeys(self.possible_agents, 0.0)
        self.rewards = self._zeros.copy()
        self._cumulative_rewards = self._zeros.copy()
        self.terminations = dict.fromkeys(self.possible_agents, False)
        self.truncations = dict.fromkeys(self.possible_agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.possible_agents}
        self.agent_selection = self.possible_agents[0]

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The same space for every agent."""
        return self._space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """``Discrete(109)``: the ids of :mod:`ginrummy.env.actions`."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new episode; the same ``seed`` replays the same deals and reshuffles."""
        self.game.reset(seed)
        self._was_reset = True
        self.agents = self.possible_agents[:]
        self._pile = DiscardMemory()
        self.rewards = self._zeros.copy()
        self._cumulative_rewards = self._zeros.copy()
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.game.to_move]

    def view(self, agent: str) -> PlayerView:
        """The agent's view of the current hand: everything its seat may know."""
        return view(self.game.match, self._seats[agent])

    STATE_OBSERVATIONS = 0
    """:meth:`state`: each seat's observation (4 x 387, zeros for absent seats) from here,"""
    STATE_HANDS = 4 * OBS_SIZE
    """then each seat's cards (4 x 52),"""
    STATE_STOCK = STATE_HANDS + 4 * 52
    """then each card's place in the stock (1 for its top card, 1 - i/52 for the i-th below
    it, 0 when not in the stock): 1,808 numbers in all."""
    STATE_SIZE = STATE_STOCK + 52

    @property
    def state_space(self) -> spaces.Box:
        """The space of :meth:`state`."""
        return spaces.Box(0.0, 1.0, (self.STATE_SIZE,), dtype=np.float32)

    def state(self) -> npt.NDArray[np.float32]:
        """The full state, for centralised critics (never an agent's input: it holds every
        hidden card and the stock order): every seat's observation, every seat's cards, the
        order of the stock."""
        out = np.zeros(self.STATE_SIZE, dtype=np.float32)
        for seat, agent in enumerate(self.possible_agents):
            start = self.STATE_OBSERVATIONS + seat * OBS_SIZE
            out[start:start + OBS_SIZE] = self.observe(agent)["observation"]
        hand = self.game.hand
        for seat in range(len(self.possible_agents)):
            for card in hand.hand_of(seat):
                out[self.STATE_HANDS + 52 * seat + card] = 1.0
        for depth, card in enumerate(reversed(hand.stock)):
            out[self.STATE_STOCK + card] = 1.0 - depth / 52
        return out

    def information_state(self, agent: str) -> npt.NDArray[np.int64]:
        """The agent's information state as a history encoding (:mod:`ginrummy.env.history`):
        unlike the compact observation, different for any two different information states."""
        return encode_history(self.view(agent))

    def last(self, observe: bool = True) -> tuple[Observation | None, float, bool, bool,
                                                   dict[str, Any]]:
        """The selected agent's observation (``observe=False``: ``None``), cumulative
        reward, terminated, truncated and info (PettingZoo's ``last``)."""
        agent = self.agent_selection
        if not observe:
            return (None, self._cumulative_rewards[agent], self.terminations[agent],
                    self.truncations[agent], self.infos[agent])
        return (self.observe(agent), self._cumulative_rewards[agent],
                self.terminations[agent], self.truncations[agent], self.infos[agent])

    def observe(self, agent: str) -> Observation:
        """The agent's observation tensor and, on its turn, its legal action ids."""
        seat = self._seats[agent]
        game = self.game
        hand = game.hand
        tensor, mask = encode_seat(
            hand, game.match.scores, seat, self._pile.below_top(hand.discards),
            game.legal_bits() if hand.to_move == seat else 0, NUM_ACTIONS)
        return {"observation": tensor, "action_mask": mask}

    def step(self, action: int | None) -> None:
        """Play the selected agent's action id (``None`` only once it is done)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if not self._was_reset:
            raise RuntimeError("call reset() before step()")
        if action is None:
            raise ValueError(f"{agent} is to move: give an action id, not None")
        game = self.game
        action = int(action)
        if not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"{agent}: action id {action} is outside 0..{NUM_ACTIONS - 1}")
        if game.legal_bits() >> action & 1:
            rewards = game.play_legal_id(action)  # checked here: the engine need not again
        elif self.illegal_reward is not None:
            self._end_illegally(agent, action)
            return
        else:
            try:
                rewards = game.step(action)  # raises the error that names the id
            except ValueError as error:
                raise ValueError(f"{agent}: {error}") from None
        self._cumulative_rewards[agent] = 0.0
        if rewards is None:
            self.rewards = self._zeros.copy()  # nothing to accumulate: adding 0.0 is a no-op
        else:
            self.rewards = dict(zip(self.possible_agents, rewards, strict=True))
            self._accumulate_rewards()
        if game.over:
            done = dict.fromkeys(self.agents, True)
            if game.truncated:
                self.truncations = done
            else:
                self.terminations = done
        else:
            self.agent_selection = self.possible_agents[game.hand.to_move]
        if self.render_mode == "human":
            self.render()

    def _end_illegally(self, agent: str, action: int) -> None:
        self._cumulative_rewards[agent] = 0.0
        self.rewards = self._zeros.copy()
        assert self.illegal_reward is not None
        self.rewards[agent] = float(self.illegal_reward)
        self.terminations = dict.fromkeys(self.agents, True)
        self.truncations = dict.fromkeys(self.agents, True)
        self.infos[agent] = {"illegal_action": action}
        self._accumulate_rewards()

    def render(self) -> str | None:
        """The hand as text (every card shown: a developer's view, not an agent's)."""
        text = repr(self.game.hand)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""


def raw_env(**kwargs: Any) -> GinRummyAEC:
    """The environment that raises ``ValueError`` for an illegal id (:func:`env` ends the
    episode instead); arguments: :class:`GinRummyAEC`."""
    return GinRummyAEC(**kwargs)


def env(**kwargs: Any) -> GinRummyAEC:
    """The environment as PettingZoo's classic games behave: an illegal action ends the
    episode with -1 for its player (``illegal_reward``), an id outside the space and a step
    before ``reset`` raise. ``env()`` with no arguments is a two-player ``eaai`` hand.

    The checks of PettingZoo's ``TerminateIllegalWrapper``, ``AssertOutOfBoundsWrapper`` and
    ``OrderEnforcingWrapper`` are built in rather than wrapped: each wrapper layer forwards
    every attribute read, which cost more than a step of the game itself.
    """
    kwargs.setdefault("illegal_reward", -1.0)
    return GinRummyAEC(**kwargs)



