"""Many games stepped in one call: every game's observation, mask and rewards as arrays.

The rows are built straight from each hand's state, reading only what the seat to move may
see (the fields its :func:`~ginrummy.views.view` holds: its own cards, the discard pile, the
cards others took from it or showed after a knock, counts and scores), without building the
view object; ``tests/env/test_env_vector.py`` checks every row against
:func:`~ginrummy.env.observation.encode_view` of the seat's view and replays the hidden-cards
property on the vector.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import numpy.typing as npt

from ginrummy.engine import Phase
from ginrummy.env.actions import (
    DRAW_STOCK_ID,
    NUM_ACTIONS,
    PASS_ID,
    TAKE_ID,
    action_name,
    legal_bits,
)
from ginrummy.env.core import MAX_DECISIONS, Game, GameConfig, make_rules
from ginrummy.env.observation import (
    PHASE_INDEX,
    DiscardMemory,
    decode_words,
    encode_seat,
    number_divisors,
    onehot_word,
)
from ginrummy.rules import Ruleset
from ginrummy.solver import deadwood_mask

__all__ = ["VectorGinRummy", "VectorStep"]

VectorStep = tuple[npt.NDArray[np.float32], npt.NDArray[np.int8], npt.NDArray[np.int64],
                   npt.NDArray[np.float32], npt.NDArray[np.bool_], npt.NDArray[np.bool_]]

_LOW64 = (1 << 64) - 1
_DRAW, _OFFER = Phase.DRAW, Phase.OFFER  # enum member lookups are slow (hot path)
_DRAW_BOTH = 1 << DRAW_STOCK_ID | 1 << TAKE_ID
_OFFER_BITS = 1 << TAKE_ID | 1 << PASS_ID
_NO_SCORES = (0, 0, 0, 0)


class VectorGinRummy:
    """``num_envs`` self-play games (the rules and options of
    :class:`~ginrummy.env.aec.GinRummyAEC`), each with one seat to move at a time.

    :meth:`reset` and :meth:`step` return, one row per game: the observation of the seat to
    move, its action mask and its seat; :meth:`step` also the rewards of every seat (columns by
    seat) and whether the game terminated or was truncated. A game that ends is dealt again at
    once (from its own generator, seeded by the vector's at :meth:`reset`): its row then shows
    the new game's first seat.
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
        self._rng = random.Random()
        self._legal = [0] * num_envs
        """Each game's legal ids (bitmask) as its last row showed them."""
        self._piles: list[tuple[object, int, int]] = [((), 0, 0)] * num_envs
        """Each game's discard pile as last read: (the list, its length, the mask below its
        top), so that a row reads only the card an action put on or took off."""
        self.final_observations: dict[int, tuple[int, npt.NDArray[np.float32]]] = {}
        """After :meth:`step`: for each game that ended in it, the seat that moved last and
        its observation of the ended game (before the game was dealt again)."""
        self._divisors = number_divisors(rules.target or 0)
        self._onehots = [[onehot_word(phase, dealer, self.players)
                          for dealer in range(self.players)] for phase in range(5)]
        """By phase and dealer (relative to the seat to move): the one-hot word of a row."""

    def reset(self, seed: int | None = None) -> tuple[
            npt.NDArray[np.float32], npt.NDArray[np.int8], npt.NDArray[np.int64]]:
        """Deal every game; the same ``seed`` replays the same games for the same actions,
        and no seed goes on with the vector's generator where it stands."""
        if seed is not None:
            self._rng = random.Random(seed)
        for game in self.games:
            game.reset(self._rng.getrandbits(63))
        return self.observe()

    def step(self, actions: npt.ArrayLike) -> VectorStep:
        """Play one action id per game (for its seat to move). Raises ``ValueError`` naming
        the game and the id when an id is not legal, before any game moves."""
        ids = np.asarray(actions).tolist()
        if not isinstance(ids, list) or len(ids) != self.num_envs:
            raise ValueError(f"step needs {self.num_envs} action ids, got {ids!r}")
        rewards = np.zeros((self.num_envs, self.players), dtype=np.float32)
        terminated = np.zeros(self.num_envs, dtype=np.bool_)
        truncated = np.zeros(self.num_envs, dtype=np.bool_)
        for index, (action, bits) in enumerate(zip(ids, self._legal, strict=True)):
            if type(action) is not int or not 0 <= action < NUM_ACTIONS or not bits >> action & 1:
                self._refuse(index, action)  # before any game moves: a refused call changes nothing
        self.final_observations = {}
        for index, (action, game) in enumerate(zip(ids, self.games, strict=True)):
            mover = game.hand.to_move
            got = game.play_legal_id(action)
            if got is not None:
                rewards[index] = got
            if game.over:
                truncated[index] = game.truncated
                terminated[index] = not game.truncated
                hand = game.hand  # the ended game's last hand: the seat's view, read directly
                below = DiscardMemory().below_top(hand.discards)
                self.final_observations[index] = (mover, encode_seat(
                    hand, game.match.scores, mover, below, 0, NUM_ACTIONS)[0])
                game.redeal()
        obs, masks, seats = self.observe()
        return obs, masks, seats, rewards, terminated, truncated

    def _refuse(self, index: int, action: object) -> None:
        """Raise the error naming game ``index``'s bad id and its legal ones."""
        hand = self.games[index].hand
        if type(action) is not int or not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"game {index}: action id {action!r} is outside "
                             f"0..{NUM_ACTIONS - 1}")
        bits = self._legal[index]
        ids = [i for i in range(NUM_ACTIONS) if bits >> i & 1]
        raise ValueError(f"game {index}: action id {action} ({action_name(action)}) is not "
                         f"legal in the {hand.phase} phase; legal ids: {ids}")

    def observe(self) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8],
                               npt.NDArray[np.int64]]:
        """The rows of the games as they stand (what :meth:`reset` and :meth:`step` return):
        each from the part of its hand's state that the seat to move may see."""
        items: list[int] = []  # per row: WORDS words, then NUMBERS numbers
        seats: list[int] = []
        legal = self._legal
        piles = self._piles
        n = self.players
        target = self.config.rules.target
        onehots = self._onehots
        phases = PHASE_INDEX
        for index, game in enumerate(self.games):
            hand = game.hand
            seat = hand.to_move
            hands = hand.hands
            mine = hands[seat]
            # the pile below its top: every discard seen and not taken back (public)
            discards = hand.discards
            length = len(discards)
            pile, read, below = piles[index]
            if pile is not discards or not -1 <= length - read <= 1:
                below = 0
                for card in discards[:-1]:
                    below |= 1 << card
            elif length > read:
                below |= 1 << discards[-2] if length > 1 else 0
            elif length < read and length:
                below &= ~(1 << discards[-1])
            piles[index] = (discards, length, below)
            # others' cards: those taken from the pile and still held, all once shown (R4.8)
            shown = hands if hand.knock is not None else hand.known
            taken = hand.taken
            phase = hand.phase
            if phase is _DRAW and not hand.wall:  # legal_bits(hand), inline when cheap
                bits = 1 if hand.stock_only or not length else _DRAW_BOTH
            elif phase is _OFFER:
                bits = _OFFER_BITS
            else:
                bits = legal_bits(hand)
            legal[index] = bits
            scores = game.match.scores
            if n == 2:
                other = 1 - seat
                items += (mine, 1 << discards[-1] if length else 0, below, shown[other], 0, 0,
                          0 if taken is None else 1 << taken, bits & _LOW64, bits >> 64,
                          onehots[phases[phase]][hand.dealer != seat],
                          len(hand.stock), hand.knock_limit, deadwood_mask(mine),
                          hands[other].bit_count(), 0, 0, hand.reshuffles,
                          *((scores[seat], scores[other], 0, 0) if target else _NO_SCORES))
            else:
                one, two, three = (seat + 1) % n, (seat + 2) % n, (seat + 3) % n
                four = n > 3
                items += (mine, 1 << discards[-1] if length else 0, below, shown[one],
                          shown[two], shown[three] if four else 0,
                          0 if taken is None else 1 << taken, bits & _LOW64, bits >> 64,
                          onehots[phases[phase]][(hand.dealer - seat) % n],
                          len(hand.stock), hand.knock_limit, deadwood_mask(mine),
                          hands[one].bit_count(), hands[two].bit_count(),
                          hands[three].bit_count() if four else 0, hand.reshuffles,
                          *((scores[seat], scores[one], scores[two],
                             scores[three] if four else 0) if target else _NO_SCORES))
            seats.append(seat)
        obs, masks = decode_words(items, self._divisors, NUM_ACTIONS)
        return obs, masks, np.array(seats, dtype=np.int64)
