"""Knock-out: single elimination seeded by rating.

The bracket has ``size`` slots, the field rounded up to a power of two, filled in the
standard order (1 v size, then 1's half meets the 4/5 winner and so on: seed 1 and seed 2
can only meet in the final). A slot with no player is a bye: with N players the top
``size - N`` seeds have one in round 1 and go through without playing. Every later round
pairs the winners of two neighbouring matches; the last round's winner is the champion.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ginrummy.contest.common import (
    ContestError,
    Entrant,
    Match,
    check_players,
    field_of,
    seed_order,
)

FORMAT = "knockout"


def bracket_order(size: int) -> tuple[int, ...]:
    """The seed numbers (1 = best) in bracket slot order for a power-of-two ``size``:
    slots ``2i`` and ``2i + 1`` meet in round 1, and each seed s meets ``size + 1 - s``
    there (8: 1 8 4 5 2 7 3 6)."""
    if size < 1 or size & (size - 1):
        raise ContestError(f"a bracket has a power-of-two size, not {size}")
    order = [1]
    while len(order) < size:
        mirror = 2 * len(order) + 1
        order = [slot for seed in order for slot in (seed, mirror - seed)]
    return tuple(order)


@dataclass(frozen=True)
class Knockout:
    """A single-elimination bracket: the players in seed order and, for each round, the
    winner of each of its matches (``None`` while unplayed; a bye's is its player)."""

    seeds: tuple[int, ...]
    winners: tuple[tuple[int | None, ...], ...]

    # ------------------------------------------------------------------ making one
    @classmethod
    def start(cls, entrants: Iterable[Entrant]) -> Knockout:
        """The bracket of a field, seeded by rating (:func:`seed_order`)."""
        return cls.seeded(seed_order(entrants))

    @classmethod
    def seeded(cls, seeds: Sequence[int]) -> Knockout:
        """The bracket of players already in seed order (best first), its byes decided."""
        players = check_players(seeds)
        size = 1 << (len(players) - 1).bit_length()
        rounds = size.bit_length() - 1
        empty = tuple((None,) * (size >> (r + 1)) for r in range(rounds))
        bracket = cls(players, empty)
        first = tuple(m.players[0] if m.bye else None for m in bracket.matches(0))
        return replace(bracket, winners=(first, *empty[1:]))

    # ------------------------------------------------------------------ reading it
    @property
    def size(self) -> int:
        """Slots of the bracket: the field rounded up to a power of two."""
        return 2 * len(self.winners[0])

    @property
    def rounds(self) -> int:
        """The number of rounds (log2 of :attr:`size`)."""
        return len(self.winners)

    def _seed_of(self, player: int) -> int:
        return self.seeds.index(player)

    def _slot_players(self, round: int, index: int) -> tuple[int, ...] | None:
        """The players of a match, best seed first, or ``None`` while one is unknown."""
        if round == 0:
            order = bracket_order(self.size)
            slots = (order[2 * index], order[2 * index + 1])
            return tuple(self.seeds[s - 1] for s in slots if s <= len(self.seeds))
        feeders = self.winners[round - 1][2 * index:2 * index + 2]
        if any(f is None for f in feeders):
            return None
        return tuple(sorted((f for f in feeders if f is not None), key=self._seed_of))

    def matches(self, round: int) -> tuple[Match, ...]:
        """Every match of a round whose players are known (all of them once the previous
        round is over), byes included."""
        if not 0 <= round < self.rounds:
            raise ContestError(f"round {round} is not one of the {self.rounds} rounds")
        found = []
        for index, winner in enumerate(self.winners[round]):
            players = self._slot_players(round, index)
            if players is not None:
                found.append(Match(round, index, players, winner))
        return tuple(found)

    @property
    def current_round(self) -> int | None:
        """The first round with a match to play, ``None`` once the champion is known."""
        for round, winners in enumerate(self.winners):
            if None in winners:
                return round
        return None

    @property
    def finished(self) -> bool:
        """True once the final is played."""
        return self.current_round is None

    def pending(self) -> tuple[Match, ...]:
        """The matches to play now: the current round's unplayed ones."""
        round = self.current_round
        return () if round is None else tuple(m for m in self.matches(round) if m.pending)

    @property
    def champion(self) -> int | None:
        """The final's winner, once played."""
        return self.winners[-1][0]

    def placing(self) -> tuple[tuple[int, ...], ...]:
        """The final placing, best first, of a finished bracket: the champion, the
        finalist, then the players knocked out in each earlier round together (tied, best
        seed first): with 8 players 1, 2, 3-4, 5-8."""
        if not self.finished:
            raise ContestError("the bracket is not finished: no final placing yet")
        champion = self.champion
        assert champion is not None  # finished
        groups: list[tuple[int, ...]] = [(champion,)]
        for round in reversed(range(self.rounds)):
            losers = [p for m in self.matches(round) for p in m.players if p != m.winner]
            if losers:
                groups.append(tuple(sorted(losers, key=self._seed_of)))
        return tuple(groups)

    # ------------------------------------------------------------------ results
    def record(self, round: int, index: int, winner: int) -> Knockout:
        """The bracket with a match's result: ``winner`` (one of its players) goes on.
        Only a pending match of the current round takes a result."""
        if round != self.current_round:
            raise ContestError(f"round {round} is not the round being played "
                               f"({self.current_round})")
        if not 0 <= index < len(self.winners[round]):
            raise ContestError(f"round {round} has no match {index}")
        match = next(m for m in self.matches(round) if m.index == index)
        if not match.pending:
            raise ContestError(f"match {index} of round {round} has its result already "
                               f"({match.winner})")
        if isinstance(winner, bool) or not isinstance(winner, int) \
                or winner not in match.players:
            raise ContestError(f"{winner} does not play match {index} of round {round} "
                               f"({match.players})")
        row = list(self.winners[round])
        row[index] = winner
        return replace(self, winners=(*self.winners[:round], tuple(row),
                                      *self.winners[round + 1:]))

    # ------------------------------------------------------------------ JSON
    def to_json(self) -> dict[str, Any]:
        """Plain JSON: the format, the seeds and every round's winners (``null``: unplayed)."""
        return {"format": FORMAT, "seeds": list(self.seeds),
                "winners": [list(row) for row in self.winners]}

    @classmethod
    def from_json(cls, data: Any) -> Knockout:
        """The bracket of :meth:`to_json`, its results replayed and checked one by one."""
        if field_of(data, "format", str) != FORMAT:
            raise ContestError(f"not a knock-out: {data.get('format')!r}")
        bracket = cls.seeded(field_of(data, "seeds", list))
        winners = field_of(data, "winners", list)
        if len(winners) != bracket.rounds or any(
                not isinstance(row, list) or len(row) != len(want)
                for row, want in zip(winners, bracket.winners, strict=False)):
            raise ContestError(f"the winners do not fit a bracket of {bracket.size}: {winners}")
        for round, row in enumerate(winners):
            for index, winner in enumerate(row):
                given = bracket.winners[round][index]
                if given is not None:  # a bye
                    if winner != given:
                        raise ContestError(f"round {round} match {index} is {given}'s bye, "
                                           f"not won by {winner!r}")
                elif winner is not None:
                    bracket = bracket.record(round, index, winner)
        return bracket
