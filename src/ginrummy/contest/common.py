"""What every format shares: the entrants and their seeding, a two-player match, errors,
and the checks of JSON input."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any


class ContestError(ValueError):
    """A format asked something it cannot do (a bad field, an unknown match, a result
    that is not one, JSON that is not a state of the format); nothing was changed."""


@dataclass(frozen=True)
class Entrant:
    """A registered player: an id (the account's) and the rating that seeds them."""

    id: int
    rating: float


def seed_order(entrants: Iterable[Entrant]) -> tuple[int, ...]:
    """The entrants' ids, best seed first: highest rating first, then lowest id (so the
    order never depends on the order of registration). At least two distinct players."""
    field = list(entrants)
    ids = [e.id for e in field]
    if len(set(ids)) != len(ids):
        raise ContestError(f"an entrant is registered twice: {sorted(ids)}")
    if len(field) < 2:
        raise ContestError(f"a tournament needs at least 2 players, not {len(field)}")
    return tuple(e.id for e in sorted(field, key=lambda e: (-e.rating, e.id)))


@dataclass(frozen=True)
class Match:
    """One match of a two-player round: ``players`` in seed order (best first); one player
    alone is a bye, which that player wins. ``winner`` is ``None`` while it is to be played,
    and for a Swiss match that both lost (``void``)."""

    round: int
    index: int
    players: tuple[int, ...]
    winner: int | None
    void: bool = False

    @property
    def bye(self) -> bool:
        """True for a bye (one player, no game)."""
        return len(self.players) == 1

    @property
    def pending(self) -> bool:
        """True while the match waits for its result."""
        return self.winner is None and not self.void


class PlayedInRounds:
    """What the formats played round by round (Swiss, arena series) share: ``rounds`` to
    play and the rounds ``played`` so far, each ``complete`` once its results are in."""

    rounds: int
    played: Sequence[Any]

    @property
    def current_round(self) -> int | None:
        """The round being played, ``None`` once the last is over."""
        if self.played and not self.played[-1].complete:
            return len(self.played) - 1
        return None

    @property
    def finished(self) -> bool:
        """True once the last round's results are in."""
        return len(self.played) == self.rounds and self.played[-1].complete

    def _next_round_due(self) -> bool:
        """True when the next round is to be made: the last is complete and one is left."""
        return len(self.played) < self.rounds and (not self.played
                                                   or self.played[-1].complete)


def is_player(value: object) -> bool:
    """True for a player id as JSON may hold one: an int, not a boolean."""
    return isinstance(value, int) and not isinstance(value, bool)


def check_players(seeds: Sequence[int]) -> tuple[int, ...]:
    """``seeds`` as a tuple of distinct ints, at least two (from JSON or a caller)."""
    if not isinstance(seeds, list | tuple) or not all(is_player(s) for s in seeds):
        raise ContestError(f"seeds must be a list of player ids, not {seeds!r}")
    if len(set(seeds)) != len(seeds) or len(seeds) < 2:
        raise ContestError(f"seeds must name at least 2 distinct players: {list(seeds)}")
    return tuple(seeds)


def field_of(data: Any, name: str, kind: type | tuple[type, ...]) -> Any:
    """``data[name]`` checked to be of ``kind`` (for the JSON readers)."""
    if not isinstance(data, dict) or name not in data:
        raise ContestError(f"the JSON state has no {name!r}")
    value = data[name]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise ContestError(f"the JSON state's {name!r} is not a {kind}: {value!r}")
    return value
