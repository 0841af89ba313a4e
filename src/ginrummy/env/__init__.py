"""Gin Rummy for reinforcement learning (the optional ``env`` extra: numpy, gymnasium,
pettingzoo): a PettingZoo AEC environment (:func:`env`, :func:`raw_env`), a Gymnasium
single-agent wrapper (:class:`GinRummyGym`), a vectorised form (:class:`VectorGinRummy`, and
:class:`FastVectorGinRummy` on a compiled core when numba is installed), the
fixed action space (:mod:`ginrummy.env.actions`) and the observation tensor
(:mod:`ginrummy.env.observation`), and the engine in OpenSpiel's shape
(:class:`OpenSpielState`, :data:`OPENSPIEL_RULES`). docs/env.md has the whole tour."""

import gymnasium

from ginrummy.env.actions import NUM_ACTIONS, action_name, decode, encode, legal_ids
from ginrummy.env.aec import GinRummyAEC, env, raw_env
from ginrummy.env.core import MAX_DECISIONS
from ginrummy.env.determinise import determinise
from ginrummy.env.fast_vector import FastVectorGinRummy, make_vector
from ginrummy.env.gym import GinRummyGym
from ginrummy.env.gym_vector import GinRummyVectorEnv
from ginrummy.env.observation import OBS_SIZE, encode_view
from ginrummy.env.openspiel_game import OPENSPIEL_RULES, OpenSpielState
from ginrummy.env.vector import VectorGinRummy

GYM_ID = "ginrummy/GinRummy-v0"
"""``gymnasium.make(GYM_ID, opponents="simple", ...)``: :class:`GinRummyGym` (docs/env.md)."""
if GYM_ID not in gymnasium.registry:
    gymnasium.register(GYM_ID, entry_point="ginrummy.env.gym:GinRummyGym",
                       max_episode_steps=MAX_DECISIONS, disable_env_checker=False)

__all__ = [
    "GYM_ID",
    "NUM_ACTIONS",
    "OBS_SIZE",
    "OPENSPIEL_RULES",
    "FastVectorGinRummy",
    "GinRummyAEC",
    "GinRummyGym",
    "GinRummyVectorEnv",
    "OpenSpielState",
    "VectorGinRummy",
    "action_name",
    "decode",
    "determinise",
    "encode",
    "encode_view",
    "env",
    "legal_ids",
    "make_vector",
    "raw_env",
]
