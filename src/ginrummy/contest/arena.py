"""Arena series: the seeds' own format. Each round seats the field at tables of 3 or 4
for one arena hand (R6: one hand decides, the others take penalty points); after each
round the players are seated again by standing, the leaders together. A player's points
are the penalty points of their hands summed; the fewest points lead.

Tables: one for 3 or 4 players; for 6 and more, ``ceil(n / 4)`` tables as even as can be,
the larger ones first (7: 4 + 3; 10: 4 + 3 + 3). A field of 5 cannot be seated at tables
of 3-4 and is refused. Standings: points (fewest first), then hands won (most first), then
seed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ginrummy.contest.common import (
    ContestError,
    Entrant,
    PlayedInRounds,
    check_players,
    field_of,
    is_player,
    seed_order,
)

FORMAT = "arena"


def table_sizes(players: int) -> tuple[int, ...]:
    """The tables of a round for a field of ``players``, larger first."""
    if players in (3, 4):
        return (players,)
    if players < 6:
        raise ContestError(f"an arena series seats 3, 4 or at least 6 players at tables of "
                           f"3-4, not {players}")
    tables = -(-players // 4)
    base, larger = divmod(players, tables)
    return (base + 1,) * larger + (base,) * (tables - larger)


@dataclass(frozen=True)
class ArenaTable:
    """One table of a round: its players in seat order, and once played the hand's winner
    and each seat's penalty points (the winner's 0)."""

    round: int
    index: int
    players: tuple[int, ...]
    winner: int | None
    penalties: tuple[int, ...] | None

    @property
    def pending(self) -> bool:
        """True while the hand waits for its result."""
        return self.winner is None


@dataclass(frozen=True)
class ArenaRound:
    """A round's tables (players in seat order) and each table's result, if in."""

    tables: tuple[tuple[int, ...], ...]
    winners: tuple[int | None, ...]
    penalties: tuple[tuple[int, ...] | None, ...]

    @property
    def complete(self) -> bool:
        """True once every table has its result."""
        return None not in self.winners


@dataclass(frozen=True)
class ArenaSeries(PlayedInRounds):
    """An arena series: the players in seed order, the number of rounds and the rounds
    seated so far (the last one being played until the series is finished)."""

    seeds: tuple[int, ...]
    rounds: int
    played: tuple[ArenaRound, ...]

    # ------------------------------------------------------------------ making one
    @classmethod
    def start(cls, entrants: Iterable[Entrant], rounds: int) -> ArenaSeries:
        """A series of ``rounds`` rounds for a field seeded by rating, round 1 seated."""
        return cls.seeded(seed_order(entrants), rounds)

    @classmethod
    def seeded(cls, seeds: Sequence[int], rounds: int) -> ArenaSeries:
        """A series for players already in seed order, round 1 seated by seed."""
        players = check_players(seeds)
        table_sizes(len(players))
        if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
            raise ContestError(f"an arena series has at least one round, not {rounds!r}")
        return cls(players, rounds, ())._seat_next()

    # ------------------------------------------------------------------ reading it
    def points(self, player: int) -> int:
        """The player's penalty points summed over the hands played."""
        return sum(pens[r.tables[i].index(player)] for r in self.played
                   for i, pens in enumerate(r.penalties)
                   if pens is not None and player in r.tables[i])

    def wins(self, player: int) -> int:
        """The hands the player has won."""
        return sum(w == player for r in self.played for w in r.winners)

    def standings(self) -> tuple[int, ...]:
        """Every player, best first: fewest points, then most hands won, then seed."""
        return tuple(sorted(self.seeds, key=lambda p: (
            self.points(p), -self.wins(p), self.seeds.index(p))))

    def tables(self, round: int) -> tuple[ArenaTable, ...]:
        """A seated round's tables."""
        if not 0 <= round < len(self.played):
            raise ContestError(f"round {round} is not seated (rounds seated: "
                               f"{len(self.played)})")
        seated = self.played[round]
        return tuple(ArenaTable(round, i, players, seated.winners[i], seated.penalties[i])
                     for i, players in enumerate(seated.tables))

    def pending(self) -> tuple[ArenaTable, ...]:
        """The tables to play now."""
        round = self.current_round
        return () if round is None else tuple(t for t in self.tables(round) if t.pending)

    # ------------------------------------------------------------------ results
    def _seat_next(self) -> ArenaSeries:
        """The series with its next round seated by standing, if one is due."""
        if not self._next_round_due():
            return self
        order = self.standings()
        tables, start = [], 0
        for size in table_sizes(len(order)):
            tables.append(order[start:start + size])
            start += size
        empty = (None,) * len(tables)
        return replace(self, played=(*self.played, ArenaRound(tuple(tables), empty, empty)))

    def record(self, round: int, index: int, winner: int, penalties: Sequence[int]
               ) -> ArenaSeries:
        """The series with a table's hand result: its winner and each seat's penalty points
        (in seat order, the winner's 0). The last table of a round seats the next."""
        if round != self.current_round:
            raise ContestError(f"round {round} is not the round being played "
                               f"({self.current_round})")
        seated = self.played[round]
        if not 0 <= index < len(seated.tables):
            raise ContestError(f"round {round} has no table {index}")
        players = seated.tables[index]
        if seated.winners[index] is not None:
            raise ContestError(f"table {index} of round {round} has its result already")
        if isinstance(winner, bool) or not isinstance(winner, int) or winner not in players:
            raise ContestError(f"{winner!r} does not sit at table {index} of round {round} "
                               f"({players})")
        points = tuple(penalties) if isinstance(penalties, list | tuple) else ()
        if len(points) != len(players) or not all(
                isinstance(p, int) and not isinstance(p, bool) and p >= 0 for p in points):
            raise ContestError(f"table {index} needs {len(players)} penalties of 0 or more, "
                               f"one a seat: {penalties!r}")
        if points[players.index(winner)] != 0:
            raise ContestError(f"the winner {winner} takes no penalty points, not "
                               f"{points[players.index(winner)]}")
        winners = list(seated.winners)
        winners[index] = winner
        given = list(seated.penalties)
        given[index] = points
        done = replace(seated, winners=tuple(winners), penalties=tuple(given))
        return replace(self, played=(*self.played[:round], done))._seat_next()

    # ------------------------------------------------------------------ JSON
    def to_json(self) -> dict[str, Any]:
        """Plain JSON: the format, the seeds, the rounds and each seated round."""
        return {"format": FORMAT, "seeds": list(self.seeds), "rounds": self.rounds,
                "played": [{"tables": [list(t) for t in r.tables], "winners": list(r.winners),
                            "penalties": [None if p is None else list(p) for p in r.penalties]}
                           for r in self.played]}

    @classmethod
    def from_json(cls, data: Any) -> ArenaSeries:
        """The series of :meth:`to_json`, its seatings taken as stored and checked (every
        player seated once a round, at tables of the sizes above) and its results replayed."""
        if field_of(data, "format", str) != FORMAT:
            raise ContestError(f"not an arena series: {data.get('format')!r}")
        series = cls.seeded(field_of(data, "seeds", list), field_of(data, "rounds", int))
        rounds = field_of(data, "played", list)
        if not 1 <= len(rounds) <= series.rounds:
            raise ContestError(f"{len(rounds)} rounds seated of {series.rounds}")
        full = series.rounds
        series = replace(series, played=())
        for number, stored in enumerate(rounds):
            tables = field_of(stored, "tables", list)
            if not all(isinstance(t, list) and all(map(is_player, t)) for t in tables):
                raise ContestError(f"round {number}: a table is not a list of players: "
                                   f"{tables}")
            if sorted(len(t) if isinstance(t, list) else 0 for t in tables) != sorted(
                    table_sizes(len(series.seeds))):
                raise ContestError(f"round {number}: tables of the wrong sizes: {tables}")
            if sorted(p for t in tables for p in t) != sorted(series.seeds):
                raise ContestError(f"round {number} does not seat every player once: {tables}")
            if series.played and not series.played[-1].complete:
                raise ContestError(f"round {number} is seated before round {number - 1} "
                                   f"is over")
            empty = (None,) * len(tables)
            seated = ArenaRound(tuple(tuple(t) for t in tables), empty, empty)
            series = replace(series, rounds=number + 1, played=(*series.played, seated))
            winners = field_of(stored, "winners", list)
            penalties = field_of(stored, "penalties", list)
            if len(winners) != len(tables) or len(penalties) != len(tables):
                raise ContestError(f"round {number}: results for {len(winners)} tables "
                                   f"of {len(tables)}")
            for index, (winner, points) in enumerate(zip(winners, penalties, strict=True)):
                if winner is not None or points is not None:
                    series = series.record(number, index, winner, points)
        return replace(series, rounds=full)._seat_next()
