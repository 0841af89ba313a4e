"""One game as the environments play it: a match (or its first hand) on the engine, action
ids in, zero-sum rewards out; chance moves (reshuffles) played from the game's own seeded
generator, so a seed reproduces an episode exactly."""

from __future__ import annotations

import operator
import random
from dataclasses import dataclass
from typing import Any

from ginrummy.actions import Action
from ginrummy.engine import Hand, Phase
from ginrummy.env.actions import NUM_ACTIONS, decode, decode_legal, legal_bits
from ginrummy.match import Match
from ginrummy.rules import Format, Ruleset
from ginrummy.scoring import HandResult

EPISODES = ("hand", "match")
REWARDS = ("points", "margin")
MAX_DECISIONS = 5_000
_RESHUFFLE, _OVER = Phase.RESHUFFLE, Phase.OVER  # enum member lookups are slow (hot path)

__all__ = ["EPISODES", "MAX_DECISIONS", "REWARDS", "Game", "GameConfig", "make_rules",
           "zero_sum"]


def make_rules(preset: str | Ruleset = "eaai", players: int | None = None,
               options: dict[str, Any] | None = None) -> Ruleset:
    """A ruleset from a preset name (or a ruleset), a player count and options."""
    overrides = dict(options or {})
    if players is not None:
        overrides["players"] = players
    if isinstance(preset, Ruleset):
        return preset.replace(**overrides) if overrides else preset
    return Ruleset.preset(preset, **overrides)


def zero_sum(values: tuple[int, ...] | list[int]) -> list[float]:
    """Zero-sum rewards from per-seat scores: ``n / (n - 1) * (x_i - mean)``. With two seats
    that is ``x_0 - x_1`` and its negative; the winner of a hand gets exactly its points and
    the losers share the loss equally."""
    n = len(values)
    mean = sum(values) / n
    factor = n / (n - 1)
    return [factor * (x - mean) for x in values]


@dataclass(frozen=True, slots=True)
class GameConfig:
    """What every episode of an environment plays (checked once, with clear errors)."""

    rules: Ruleset
    episode: str = "hand"
    reward: str = "points"
    reward_scale: float = 1.0
    max_decisions: int = MAX_DECISIONS

    def __post_init__(self) -> None:
        if self.episode not in EPISODES:
            raise ValueError(f"episode must be one of {EPISODES}, got {self.episode!r}")
        if self.reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, got {self.reward!r}")
        if (self.reward == "margin" and self.episode == "hand"
                and self.rules.format is not Format.SINGLE_HAND):
            raise ValueError("reward 'margin' scores a whole match: use episode='match'")
        if not self.reward_scale > 0:
            raise ValueError(f"reward_scale must be positive, got {self.reward_scale!r}")
        if not isinstance(self.max_decisions, int) or self.max_decisions < 1:
            raise ValueError(f"max_decisions must be a whole number >= 1, "
                             f"got {self.max_decisions!r}")


class Game:
    """A match (or its first hand) stepped by action ids.

    After :meth:`reset`, ``to_move`` is the seat whose id :meth:`step` expects; ``over`` says
    the episode ended (``truncated`` when a hand passed ``max_decisions`` decisions).
    """

    def __init__(self, config: GameConfig) -> None:
        self.config = config
        self.players = config.rules.players
        self.rng = random.Random()
        self.match: Match = Match(config.rules, rng=self.rng)
        self.hand: Hand = self.match.start_hand()
        self.decisions = 0
        self.over = False
        self.truncated = False
        self._bits = -1

    def reset(self, seed: int | None = None) -> None:
        """A new episode; the same ``seed`` plays the same deals and reshuffles. Without a
        seed the generator goes on where it stands (after ``reset(seed=7)``, a plain
        ``reset()`` continues the seeded stream, as Gymnasium and PettingZoo do)."""
        if seed is not None:
            self.rng = random.Random(seed)
        self.redeal()

    def redeal(self) -> None:
        """A new episode dealt from the game's generator as it stands (no new seeding: the
        vector's games, seeded once by its own generator, go on from episode to episode)."""
        self.match = Match(self.config.rules, rng=self.rng)
        self.hand = self.match.start_hand()
        self.decisions = 0
        self.over = False
        self.truncated = False
        self._bits = -1

    @property
    def to_move(self) -> int:
        """The seat to move (meaningless once ``over``)."""
        return self.hand.to_move

    def legal_bits(self) -> int:
        """The legal ids of the seat to move as a bitmask (0 once over)."""
        if self.over:
            return 0
        if self._bits < 0:
            self._bits = legal_bits(self.hand)
        return self._bits

    def step(self, action_id: int) -> list[float] | None:
        """Play ``action_id`` for the seat to move; the rewards it brings every seat, or
        ``None`` when it brings none. Raises ``ValueError`` for an id that is not legal."""
        if self.over:
            raise ValueError("the episode is over: reset the game")
        action_id = operator.index(action_id)
        if not 0 <= action_id < NUM_ACTIONS or not self.legal_bits() >> action_id & 1:
            decode(action_id, self.hand)  # raises the error that names the id
        return self.play_legal_id(action_id)

    def play_legal_id(self, action_id: int) -> list[float] | None:
        """:meth:`step` for an id already known to be legal (in :meth:`legal_bits`): the
        engine plays its action without checking it again."""
        hand = self.hand
        hand.apply_legal(decode_legal(action_id, hand))
        return self._played(hand)

    def play(self, action: Action) -> list[float] | None:
        """Play an engine action (a computer player's) for the seat to move; the engine
        checks it."""
        hand = self.hand
        hand.apply(action)
        return self._played(hand)

    def _played(self, hand: Hand) -> list[float] | None:
        self._bits = -1
        self.decisions += 1
        if hand.phase is _RESHUFFLE:
            self.match.step_chance()
        if hand.phase is not _OVER:
            if self.decisions >= self.config.max_decisions:
                self.over = self.truncated = True
            return None
        return self._hand_over(hand.result)

    def _hand_over(self, result: HandResult | None) -> list[float] | None:
        assert result is not None
        match = self.match
        config = self.config
        if config.episode == "hand" or match.over:
            self.over = True
        else:
            self.hand = match.start_hand()
            self.decisions = 0
        if result.void:
            return None
        if config.reward == "margin":
            if match.result is None:
                return None
            scores: tuple[int, ...] | list[int] = match.result.totals
        elif result.penalties is not None:
            scores = [-p for p in result.penalties]
        else:
            scores = result.points
        scale = config.reward_scale
        return [r * scale for r in zero_sum(scores)]
