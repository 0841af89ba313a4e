"""The engine registered with OpenSpiel as the Python game ``python_ginrummy``, so that
OpenSpiel's own algorithms (MCTS, ISMCTS, evaluation, ``random_sim_test``) run on ginrummy's
rules (docs/env.md). It needs ``pyspiel`` (the ``bench`` extra: ``open_spiel``).

Importing this module registers the game once; ``pyspiel.load_game("python_ginrummy")`` then
plays :class:`~ginrummy.env.openspiel_game.OpenSpielState`: the same ids, chance nodes and
returns as OpenSpiel's C++ ``gin_rummy`` (``tests/env/test_env_openspiel.py`` shows that they
agree node for node), with a perfect-recall information state string and a determinisation
(``resample_from_infostate``) for ISMCTS.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np
import pyspiel

from ginrummy.env.openspiel_codec import OS_NUM_ACTIONS, openspiel_action_text
from ginrummy.env.openspiel_game import OpenSpielState

SHORT_NAME = "python_ginrummy"
_MAX_SCORE = 100 + 25  # ten 10-point cards left unmelded after a gin (R4.2), plus the bonus
# (OpenSpiel's own bound, kMaxPossibleDeadwood 98 + 25, forgets that a defender may keep his
# melds after a gin)

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="ginrummy's Gin Rummy (OpenSpiel's gin_rummy rules)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=False,
    provides_observation_tensor=False,
    parameter_specification={},
)
GAME_INFO = pyspiel.GameInfo(
    num_distinct_actions=OS_NUM_ACTIONS,
    max_chance_outcomes=52,
    num_players=2,
    min_utility=-float(_MAX_SCORE),
    max_utility=float(_MAX_SCORE),
    utility_sum=0.0,
    max_game_length=1_000,
)


class GinRummyGame(pyspiel.Game):  # type: ignore[misc]
    """``python_ginrummy``: the engine under ``OPENSPIEL_RULES`` in OpenSpiel's ids."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        super().__init__(GAME_TYPE, GAME_INFO, params or {})

    def new_initial_state(self) -> GinRummyState:
        """A hand before the deal (chance deals the cards)."""
        return GinRummyState(self)

    def make_py_observer(self, iig_obs_type: Any = None,
                         params: dict[str, Any] | None = None) -> InfoStateObserver:
        """OpenSpiel's observer hook: the information state string (no tensor)."""
        return InfoStateObserver()


class InfoStateObserver:
    """An OpenSpiel Python observer whose string is the information state string."""

    def __init__(self) -> None:
        self.tensor = np.zeros(0, np.float32)
        self.dict: dict[str, Any] = {}

    def set_from(self, state: GinRummyState, player: int) -> None:
        """Nothing to write: this observer has no tensor."""

    def string_from(self, state: GinRummyState, player: int) -> str:
        """``player``'s information state string."""
        return state.inner.information_state_string(player)


class GinRummyState(pyspiel.State):  # type: ignore[misc]
    """One hand; every call is answered by its :class:`OpenSpielState`."""

    def __init__(self, game: GinRummyGame, inner: OpenSpielState | None = None) -> None:
        super().__init__(game)
        self.inner = OpenSpielState() if inner is None else inner

    def current_player(self) -> int:
        """0, 1, chance (-1) or terminal (-4)."""
        return self.inner.current_player()

    def _legal_actions(self, player: int) -> list[int]:
        return self.inner.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The cards left in the deck, each as likely."""
        return self.inner.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        self.inner.apply_action(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"Chance outcome: {openspiel_action_text(int(action))}"
        return f"Player: {player} Action: {openspiel_action_text(int(action))}"

    def is_terminal(self) -> bool:
        """The hand is over."""
        return self.inner.is_terminal()

    def returns(self) -> list[float]:
        """The hand's score for each player (zero-sum)."""
        return self.inner.returns()

    def information_state_string(self, player: int | None = None) -> str:
        """The player's (default: the one to move) perfect-recall history."""
        return self.inner.information_state_string(
            self.current_player() if player is None else player)

    def clone(self) -> GinRummyState:
        """An independent copy."""
        return GinRummyState(self.get_game(), self.inner.clone())

    def resample_from_infostate(self, player: int,
                                sampler: Callable[[], float]) -> GinRummyState:
        """A determinisation for ``player`` (:meth:`OpenSpielState.resample_from_infostate`),
        seeded from ``sampler`` (OpenSpiel's ``UniformProbabilitySampler``)."""
        rng = random.Random(int(sampler() * 2**32))
        return GinRummyState(self.get_game(), self.inner.resample_from_infostate(player, rng))

    def __str__(self) -> str:
        return str(self.inner)


if SHORT_NAME not in pyspiel.registered_names():
    pyspiel.register_game(GAME_TYPE, GinRummyGame)

__all__ = ["GAME_INFO", "GAME_TYPE", "SHORT_NAME", "GinRummyGame", "GinRummyState"]
