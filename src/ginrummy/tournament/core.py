"""Duplicate deals: which deck, dealer, reshuffles and bot seeds every game uses, and playing
one deal in every seat rotation.

Everything random in game ``(deal, rotation)`` is derived from ``(seed, deal, ...)`` alone, never
from what the players did: the deck of hand ``k`` from ``(seed, deal, k)``, the ``r``-th
reshuffle of that hand from ``(seed, deal, k, r)``, the first dealer (a seat) from
``(seed, deal)`` and player ``p``'s bot seed from ``(seed, deal, p)``. Rotation ``r`` seats
player ``p`` at seat ``(p + r) % n``; the seats receive the same cards in every rotation, so
each player holds, in turn, every seat's cards of the deal.

With ``record_dir`` every game is also saved as a game record (docs/records.md) in that
directory, ``deal-00001-rotation-0.ginrec.json`` and so on (:func:`record_name`), by the
process that played it: a one-hand game (``hand`` mode) is recorded as a match of one hand.
"""

from __future__ import annotations

import hashlib
import random
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from ginrummy.actions import Action
from ginrummy.bots import make_bot, parse_spec
from ginrummy.cards import Card
from ginrummy.engine import Hand, deal_order
from ginrummy.gameloop import MAX_DECISIONS as MAX_DECISIONS  # re-exported: the hand cap
from ginrummy.gameloop import EndlessHand as EndlessHand
from ginrummy.gameloop import OnDecision, play_hand
from ginrummy.match import Match
from ginrummy.records import GameRecord
from ginrummy.rules import Format, Ruleset
from ginrummy.scoring import HandResult, Outcome


class Unit(StrEnum):
    """What one game of a tournament is: a whole match, or one hand of the match format."""

    MATCH = "match"
    HAND = "hand"


class Backend(StrEnum):
    """Where the games run."""

    LOCAL = "local"
    RAY = "ray"


COUNTS = ("hands_won", "gin", "big_gin", "knock", "undercut", "undercut_suffered", "knocks",
          "void")
"""Per-player hand counts of a game: hands won, won by gin (big gin included), by big gin, by
a knock, by an undercut; undercuts suffered as the knocker; knocks made (gin included); void
hands played."""


@dataclass(frozen=True)
class TournamentConfig:
    """What to play: ``deals`` duplicate deals between ``players`` (bot specs, one per seat of
    ``rules``), each played once per seat rotation.

    ``unit`` is ``match`` (a game is a whole match; for single-hand formats a decided hand,
    void hands dealt again) or ``hand`` (one hand of the match format, void hands count as a
    tie). ``budget_ms`` is the per-move budget of the players whose spec names none.
    """

    players: tuple[str, ...]
    rules: Ruleset
    deals: int
    seed: int
    unit: Unit = Unit.MATCH
    budget_ms: float | None = None
    jobs: int = 1
    backend: Backend = Backend.LOCAL
    ray_address: str | None = None
    max_hands: int = 10_000
    record_dir: str | None = None
    """Save every game as a game record in this directory (``None``: no records)."""
    budgets: tuple[float | None, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "players", tuple(self.players))
        set_(self, "unit", Unit(self.unit))
        set_(self, "backend", Backend(self.backend))
        if len(self.players) != self.rules.players:
            raise ValueError(f"{len(self.players)} players given but the rules seat "
                             f"{self.rules.players}")
        if isinstance(self.deals, bool) or not isinstance(self.deals, int) or self.deals < 1:
            raise ValueError(f"deals must be a whole number >= 1, got {self.deals!r}")
        if isinstance(self.jobs, bool) or not isinstance(self.jobs, int) or self.jobs < 1:
            raise ValueError(f"jobs must be a whole number >= 1, got {self.jobs!r}")
        if self.budget_ms is not None and not self.budget_ms > 0:
            raise ValueError(f"budget_ms must be positive, got {self.budget_ms!r}")
        if self.rules.format is Format.SINGLE_HAND:
            set_(self, "unit", Unit.MATCH)  # a single-hand game is already one hand
        budgets = []
        for spec in self.players:
            _, spec_budget = parse_spec(spec)  # ValueError names an unknown player
            budgets.append(spec_budget if spec_budget is not None else self.budget_ms)
        set_(self, "budgets", tuple(budgets))

    @property
    def seats(self) -> int:
        """Players at the table (= seat rotations per deal)."""
        return self.rules.players

    @property
    def games(self) -> int:
        """Games in the whole tournament."""
        return self.deals * self.seats

    def player_name(self, player: int) -> str:
        """The level name of a player (its spec without the budget)."""
        return parse_spec(self.players[player])[0]


@dataclass(frozen=True)
class GameResult:
    """One game of a deal, with per-player figures indexed by *player* (not seat).

    ``scores`` are the match totals (end bonuses included), or minus the penalties for a
    single-hand game, or the hand's points in ``hand`` mode. ``points`` add up over the hands
    the match points (or minus the penalties) each player scored. ``latencies`` are the
    seconds each player's ``choose`` took, per decision (not part of :meth:`to_dict`).
    """

    deal: int
    rotation: int
    seats: tuple[int, ...]
    first_dealer: int
    winner: int | None
    hands: int
    scores: tuple[int, ...]
    points: tuple[int, ...]
    counts: dict[str, tuple[int, ...]]
    outcomes: dict[str, int]
    decisions: tuple[int, ...]
    latencies: tuple[tuple[float, ...], ...] = field(repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values (without the latencies)."""
        return {
            "rotation": self.rotation,
            "seats": list(self.seats),
            "winner": self.winner,
            "hands": self.hands,
            "scores": list(self.scores),
            "points": list(self.points),
        }


# ----------------------------------------------------------------- derived randomness
def derive_seed(seed: int, *key: object) -> int:
    """A 64-bit seed from ``seed`` and a key, the same on every machine and process."""
    text = "/".join(str(part) for part in (seed, *key))
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")


def deck_order(seed: int, deal: int, hand: int) -> list[Card]:
    """The deck of hand ``hand`` (from 0, void hands included) of deal ``deal``."""
    return deal_order(rng=random.Random(derive_seed(seed, "deck", deal, hand)))


def reshuffle_rng(seed: int, deal: int, hand: int, reshuffle: int) -> random.Random:
    """The generator of the ``reshuffle``-th reshuffle (from 0) of a hand."""
    return random.Random(derive_seed(seed, "reshuffle", deal, hand, reshuffle))


def first_dealer(seed: int, deal: int, seats: int) -> int:
    """The seat that deals the first hand of a deal, the same in every rotation."""
    return derive_seed(seed, "dealer", deal) % seats


def bot_seed(seed: int, deal: int, player: int) -> int:
    """Player ``player``'s bot seed in deal ``deal``, the same in every rotation."""
    return derive_seed(seed, "bot", deal, player)


def seat_players(rotation: int, seats: int) -> tuple[int, ...]:
    """The player at each seat in a rotation: player ``p`` sits at ``(p + rotation) % n``."""
    return tuple((seat - rotation) % seats for seat in range(seats))


# ----------------------------------------------------------------- playing
HandObserver = Callable[[int, int, int, Hand], None]
"""``observer(deal, rotation, hand_number, hand)``, called after each hand ends."""


class _Tally:
    """Per-player counts of one game, by player."""

    def __init__(self, seats: tuple[int, ...]) -> None:
        n = len(seats)
        self.seats = seats
        self.hands = 0
        self.points = [0] * n
        self.counts = {name: [0] * n for name in COUNTS}
        self.outcomes = {outcome.value: 0 for outcome in Outcome}

    def add(self, result: HandResult) -> None:
        seats, counts = self.seats, self.counts
        self.hands += 1
        outcome = result.outcome
        self.outcomes[outcome.value] += 1
        if result.winner is None or result.knocker is None:  # void: nobody scores
            for player in seats:
                counts["void"][player] += 1
            return
        winner = seats[result.winner]
        knocker = seats[result.knocker]
        counts["hands_won"][winner] += 1
        counts["knocks"][knocker] += 1
        if outcome is Outcome.GIN or outcome is Outcome.BIG_GIN:
            counts["gin"][winner] += 1
            if outcome is Outcome.BIG_GIN:
                counts["big_gin"][winner] += 1
        elif outcome is Outcome.KNOCK:
            counts["knock"][winner] += 1
        else:
            counts["undercut"][winner] += 1
            counts["undercut_suffered"][knocker] += 1
        if result.penalties is None:
            for seat, value in enumerate(result.points):
                self.points[seats[seat]] += value
        else:
            for seat, value in enumerate(result.penalties):
                self.points[seats[seat]] -= value


def _latencies(clocks: Sequence[array[float]]) -> OnDecision:
    """An ``on_decision`` callback that adds each decision's seconds to its seat's clock."""
    appends = [clock.append for clock in clocks]

    def timed(state: Hand | Match, seat: int, action: Action, seconds: float) -> None:
        appends[seat](seconds)

    return timed


def play_game(config: TournamentConfig, deal: int, rotation: int,
              observer: HandObserver | None = None) -> GameResult:
    """Play deal ``deal`` in seat rotation ``rotation``."""
    rules, seed = config.rules, config.seed
    n = config.seats
    seats = seat_players(rotation, n)
    bots = [make_bot(config.players[p], bot_seed(seed, deal, p), config.budgets[p])
            for p in seats]
    clocks = [array("d") for _ in range(n)]
    timed = _latencies(clocks)
    dealer = first_dealer(seed, deal, n)
    tally = _Tally(seats)

    def play(hand: Hand, state: Hand | Match, number: int) -> HandResult:
        def chance(playing: Hand) -> random.Random:  # the r-th reshuffle of hand ``number``
            return reshuffle_rng(seed, deal, number, playing.reshuffles)

        try:
            play_hand(state, bots, chance, timed, MAX_DECISIONS)
        except Exception as exc:
            exc.add_note(f"tournament: deal {deal}, rotation {rotation}, hand {number}; "
                         f"players by seat: {', '.join(config.players[p] for p in seats)}")
            raise
        assert hand.result is not None
        tally.add(hand.result)
        if observer is not None:
            observer(deal, rotation, number, hand)
        return hand.result

    winner_seat: int | None
    names = [config.players[p] for p in seats]
    if config.unit is Unit.HAND and config.record_dir is not None:
        match = Match(rules, first_dealer=dealer, rng=random.Random(0))
        result = play(match.start_hand(deck_order(seed, deal, 0)), match, 0)
        winner_seat, by_seat = result.winner, result.points
        _save(config.record_dir, deal, rotation, GameRecord.from_match(match, names))
    elif config.unit is Unit.MATCH:
        match = Match(rules, rng=random.Random(derive_seed(seed, "match", deal)),
                      first_dealer=dealer)
        number = 0
        while match.result is None:
            if number >= config.max_hands:
                raise RuntimeError(f"deal {deal}, rotation {rotation}: match not decided "
                                   f"after {config.max_hands} hands")
            play(match.start_hand(deck_order(seed, deal, number)), match, number)
            number += 1
        winner_seat, by_seat = match.result.winner, match.result.totals
        if config.record_dir is not None:
            _save(config.record_dir, deal, rotation, GameRecord.from_match(match, names))
    else:
        hand = Hand(rules, dealer, deck_order(seed, deal, 0))
        result = play(hand, hand, 0)
        winner_seat, by_seat = result.winner, result.points
    scores = [0] * n
    for seat, value in enumerate(by_seat):
        scores[seats[seat]] = value
    by_player = [0] * n  # seat -> player inverse
    for seat, player in enumerate(seats):
        by_player[player] = seat
    return GameResult(
        deal=deal,
        rotation=rotation,
        seats=seats,
        first_dealer=dealer,
        winner=None if winner_seat is None else seats[winner_seat],
        hands=tally.hands,
        scores=tuple(scores),
        points=tuple(tally.points),
        counts={name: tuple(values) for name, values in tally.counts.items()},
        outcomes=tally.outcomes,
        decisions=tuple(len(clocks[by_player[p]]) for p in range(n)),
        latencies=tuple(tuple(clocks[by_player[p]]) for p in range(n)),
    )


def record_name(deal: int, rotation: int) -> str:
    """The file name of the record of game ``(deal, rotation)`` (deals from 0, named from
    1)."""
    return f"deal-{deal + 1:05d}-rotation-{rotation}.ginrec.json"


def _save(directory: str, deal: int, rotation: int, record: GameRecord) -> None:
    record.save(Path(directory) / record_name(deal, rotation))


def play_deal(config: TournamentConfig, deal: int,
              observer: HandObserver | None = None) -> list[GameResult]:
    """Every rotation of one deal."""
    return [play_game(config, deal, rotation, observer) for rotation in range(config.seats)]


def play_deals(config: TournamentConfig, deals: Sequence[int]) -> list[GameResult]:
    """Every rotation of several deals (the unit of work sent to a process or a Ray task)."""
    return [game for deal in deals for game in play_deal(config, deal)]
