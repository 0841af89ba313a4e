"""The vectorised games on a compiled core (numba): :class:`FastVectorGinRummy` has the
interface of :class:`~ginrummy.env.vector.VectorGinRummy` and gives the same rows, rewards,
endings and final observations for the same seed and actions, several times faster.

It covers the two-player hand the vector env plays by default (``eaai``) and the options
that only change its numbers (:func:`fast_path_problem` says what else it refuses); the
pure-Python :class:`~ginrummy.env.vector.VectorGinRummy` stays the reference
(``tests/env/test_env_fast_vector.py`` plays both in lock-step). :func:`make_vector` picks
the fast one where it can. ``numba`` is optional (``pip install 'ginrummy[env]'`` brings it);
without it the fast core is not available and ``make_vector`` falls back to Python.
"""

from __future__ import annotations

import importlib.util
import random
from typing import Any

import numpy as np
import numpy.typing as npt

from ginrummy.env.actions import NUM_ACTIONS, action_name
from ginrummy.env.core import MAX_DECISIONS, GameConfig, make_rules
from ginrummy.env.observation import OBS_SIZE
from ginrummy.env.vector import VectorGinRummy, VectorStep
from ginrummy.rules import Format, LayoffChain, Ruleset, StockEnd, UndercutTies, UpcardOffer

__all__ = ["BACKENDS", "FastVectorGinRummy", "fast_path_problem", "make_vector",
           "numba_available"]

BACKENDS = ("auto", "python", "numba")
_PHASE_NAMES = ("offer", "draw", "discard", "layoff", "over")
_REACH = {LayoffChain.OWN: 13, LayoffChain.NONE: 1, LayoffChain.TWO: 2}


def numba_available() -> bool:
    """Whether ``numba`` can be imported (the fast core needs it)."""
    return importlib.util.find_spec("numba") is not None


def fast_path_problem(config: GameConfig) -> str | None:
    """Why the compiled core cannot play ``config``, or ``None`` when it can: it plays one
    two-player hand per episode scored in match points, upcard offered to the non-dealer
    first, void at two stock cards, no big gin, Oklahoma, OpenSpiel limits or melds after gin
    (knock limit, bonuses, undercut ties, layoff chain, hand size, the rediscard rule, reward
    scale and ``max_decisions`` may be anything)."""
    rules = config.rules
    checks = (
        (rules.players == 2, "it plays two players"),
        (config.episode == "hand", "it plays episode='hand'"),
        (config.reward == "points", "it plays reward='points'"),
        (rules.format is Format.MATCH, "it plays the match format's scoring"),
        (rules.upcard_offer is UpcardOffer.NON_DEALER_FIRST,
         "it plays upcard_offer='non_dealer_first'"),
        (rules.stock_end is StockEnd.VOID_AT_TWO, "it plays stock_end='void_at_two'"),
        (not rules.big_gin, "it plays without big gin"),
        (not rules.oklahoma_knock_limit and not rules.oklahoma_spades_double,
         "it plays without Oklahoma"),
        (not rules.melds_after_gin, "it plays without melds_after_gin"),
        (not rules.openspiel_limits, "it plays without openspiel_limits"),
    )
    for ok, why in checks:
        if not ok:
            return why
    return None


def make_vector(num_envs: int, backend: str = "auto", **kwargs: Any
                ) -> VectorGinRummy | FastVectorGinRummy:
    """``num_envs`` vectorised games (arguments: :class:`VectorGinRummy`) on ``backend``:
    ``python`` (the reference), ``numba`` (the compiled core: ``ValueError`` or
    ``ImportError`` saying why when it cannot), or ``auto`` (the compiled core when numba is
    installed and it plays these rules, else Python)."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if backend == "python":
        return VectorGinRummy(num_envs, **kwargs)
    if backend == "auto":
        if not numba_available():
            return VectorGinRummy(num_envs, **kwargs)
        probe = _config(**kwargs)
        if fast_path_problem(probe) is not None:
            return VectorGinRummy(num_envs, **kwargs)
    return FastVectorGinRummy(num_envs, **kwargs)


def _config(preset: str | Ruleset = "eaai", players: int | None = None,
            options: dict[str, Any] | None = None, episode: str = "hand",
            reward: str = "points", reward_scale: float = 1.0,
            max_decisions: int = MAX_DECISIONS) -> GameConfig:
    rules = make_rules(preset, players, options)
    return GameConfig(rules, episode, reward, reward_scale, max_decisions)


class FastVectorGinRummy:
    """:class:`~ginrummy.env.vector.VectorGinRummy` on the compiled core: the same
    arguments, methods and results (``final_observations`` included) for the rules
    :func:`fast_path_problem` accepts; ``ValueError`` names the problem for others and
    ``ImportError`` says how to install numba when it is missing."""

    def __init__(self, num_envs: int, preset: str | Ruleset = "eaai",
                 players: int | None = None, options: dict[str, Any] | None = None,
                 episode: str = "hand", reward: str = "points", reward_scale: float = 1.0,
                 max_decisions: int = MAX_DECISIONS) -> None:
        if not numba_available():
            raise ImportError("the fast vector env needs numba: pip install 'ginrummy[env]' "
                              "(or numba), or use backend='python'")
        from ginrummy.env import fast_core

        if not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a whole number >= 1, got {num_envs!r}")
        self.config = _config(preset, players, options, episode, reward, reward_scale,
                              max_decisions)
        problem = fast_path_problem(self.config)
        if problem is not None:
            raise ValueError(f"the fast vector env cannot play these rules: {problem}; "
                             f"use backend='python' (VectorGinRummy)")
        rules = self.config.rules
        self._core = fast_core
        self.num_envs = num_envs
        self.players = 2
        self._hand_size = rules.cards_per_hand
        params = np.zeros(fast_core.PARAMS, dtype=np.int64)
        params[fast_core.P_KNOCK_LIMIT] = rules.knock_limit
        params[fast_core.P_GIN_BONUS] = rules.gin_bonus
        params[fast_core.P_UNDERCUT_BONUS] = rules.undercut_bonus
        params[fast_core.P_TIES_TO_DEFENDER] = rules.undercut_ties is UndercutTies.DEFENDER
        params[fast_core.P_LAYOFF_REACH] = _REACH[rules.layoff_chain]
        params[fast_core.P_NO_REDISCARD] = rules.no_rediscard_of_taken_card
        params[fast_core.P_MAX_DECISIONS] = max_decisions
        params[fast_core.P_TARGET] = rules.target or 0
        params[fast_core.P_HAND_SIZE] = self._hand_size
        self._params = params
        self._scale = float(reward_scale)
        self._state = np.zeros((num_envs, fast_core.FIELDS), dtype=np.int64)
        self._decks = np.zeros((num_envs, 52), dtype=np.int8)
        self._next_decks = np.zeros((num_envs, 52), dtype=np.int8)
        self._piles = np.zeros((num_envs, 52), dtype=np.int8)
        self._masks = np.zeros((num_envs, NUM_ACTIONS), dtype=np.int8)
        self._rng = random.Random()
        self._game_rngs = [random.Random() for _ in range(num_envs)]
        self.final_observations: dict[int, tuple[int, npt.NDArray[np.float32]]] = {}
        """After :meth:`step`: for each game that ended in it, the seat that moved last and
        its observation of the ended game (before the game was dealt again)."""

    def _draw_next(self, game: int) -> None:
        """The game's next deal from its own generator, as ``Match`` draws it: the dealer,
        then the deck order."""
        rng = self._game_rngs[game]
        self._state[game, self._core.F_NEXT_DEALER] = rng.randrange(2)
        deck = list(range(52))
        rng.shuffle(deck)
        self._next_decks[game] = deck

    def reset(self, seed: int | None = None) -> tuple[
            npt.NDArray[np.float32], npt.NDArray[np.int8], npt.NDArray[np.int64]]:
        """Deal every game (seeds as :meth:`VectorGinRummy.reset`)."""
        if seed is not None:
            self._rng = random.Random(seed)
        core = self._core
        for game in range(self.num_envs):
            self._game_rngs[game] = random.Random(self._rng.getrandbits(63))
            self._draw_next(game)
            self._decks[game] = self._next_decks[game]
            core.deal(self._state, self._decks, self._piles, game, self._hand_size)
            self._draw_next(game)
        self.final_observations = {}
        return self.observe()

    def observe(self) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8],
                               npt.NDArray[np.int64]]:
        """The rows of the games as they stand."""
        obs = np.empty((self.num_envs, OBS_SIZE), dtype=np.float32)
        masks = np.empty((self.num_envs, NUM_ACTIONS), dtype=np.int8)
        seats = np.empty(self.num_envs, dtype=np.int64)
        self._core.observe_all(self._state, self._piles, self._params, obs, masks, seats)
        self._masks = masks.copy()
        return obs, masks, seats

    def step(self, actions: npt.ArrayLike) -> VectorStep:
        """Play one action id per game (as :meth:`VectorGinRummy.step`; ``ValueError`` names
        the game and the id when one is not legal, before any game moves)."""
        ids = np.asarray(actions)
        n = self.num_envs
        if ids.shape != (n,) or ids.dtype.kind not in "iu":
            self._refuse_list(ids)
        ids = ids.astype(np.int64, copy=False)
        core = self._core
        bad = core.check_actions(ids, self._masks)
        if bad >= 0:
            self._refuse(bad, int(ids[bad]))
        rewards = np.zeros((n, 2), dtype=np.float32)
        terminated = np.zeros(n, dtype=np.bool_)
        truncated = np.zeros(n, dtype=np.bool_)
        final_obs = np.empty((n, OBS_SIZE), dtype=np.float32)
        final_seats = np.empty(n, dtype=np.int64)
        obs = np.empty((n, OBS_SIZE), dtype=np.float32)
        masks = np.empty((n, NUM_ACTIONS), dtype=np.int8)
        seats = np.empty(n, dtype=np.int64)
        ended = core.step_all(self._state, self._decks, self._next_decks, self._piles,
                              self._params, ids, self._scale, rewards, terminated, truncated,
                              final_obs, final_seats, obs, masks, seats)
        self.final_observations = {}
        if ended:
            for game in np.flatnonzero(final_seats >= 0).tolist():
                self.final_observations[game] = (int(final_seats[game]), final_obs[game])
                self._draw_next(game)
        self._masks = masks.copy()
        return obs, masks, seats, rewards, terminated, truncated

    def _refuse_list(self, ids: npt.NDArray[Any]) -> None:
        """Raise the error the reference raises for a malformed batch of ids."""
        values = ids.tolist()
        if not isinstance(values, list) or len(values) != self.num_envs:
            raise ValueError(f"step needs {self.num_envs} action ids, got {values!r}")
        for index, action in enumerate(values):
            if type(action) is not int:
                self._refuse(index, action)

    def _refuse(self, index: int, action: object) -> None:
        """Raise the error naming game ``index``'s bad id and its legal ones."""
        if type(action) is not int or not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"game {index}: action id {action!r} is outside "
                             f"0..{NUM_ACTIONS - 1}")
        phase = _PHASE_NAMES[int(self._state[index, self._core.F_PHASE])]
        ids = np.flatnonzero(self._masks[index]).tolist()
        raise ValueError(f"game {index}: action id {action} ({action_name(action)}) is not "
                         f"legal in the {phase} phase; legal ids: {ids}")
