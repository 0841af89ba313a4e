"""Tournaments for people, as pure formats: who plays whom, what a result changes, who
finishes where and what each place is paid (docs/tournaments.md).

No I/O and no dependency outside the standard library and the engine: a format is a frozen
dataclass advanced by recording results (each ``record`` returns a new state), and it goes
to and from plain JSON (:func:`to_json`, :func:`from_json`) so the server can store it.

- :mod:`~ginrummy.contest.knockout`: single elimination seeded by rating, byes to the top
  seeds, the bracket's placing;
- :mod:`~ginrummy.contest.swiss`: n rounds paired by score with no rematch while one can be
  avoided, one bye a player at most, Buchholz tie-break;
- :mod:`~ginrummy.contest.arena`: an arena series, 3-4 player single hands, re-seated by
  standing after each round, penalty points summed;
- :mod:`~ginrummy.contest.prizes`: the prize split in whole chips, always the whole pool.

May import: the engine (``ginrummy.rules``, ``ginrummy.scoring``) and the standard library.
"""

from ginrummy.contest.arena import ArenaSeries, ArenaTable
from ginrummy.contest.common import ContestError, Entrant, Match, seed_order
from ginrummy.contest.knockout import Knockout
from ginrummy.contest.prizes import PRIZE_TABLE, arena_prizes, place_prizes, prizes
from ginrummy.contest.serial import Contest, from_json, to_json
from ginrummy.contest.swiss import Swiss, SwissRound

__all__ = [
    "PRIZE_TABLE",
    "ArenaSeries",
    "ArenaTable",
    "Contest",
    "ContestError",
    "Entrant",
    "Knockout",
    "Match",
    "Swiss",
    "SwissRound",
    "arena_prizes",
    "from_json",
    "place_prizes",
    "prizes",
    "seed_order",
    "to_json",
]
