"""Rating maths: Glicko-2 for 2-player matches, openskill (Plackett-Luce) for 3-4 player arena
deals, and the fixed ratings of the computer levels (docs/players.md).

The maths is the libraries' (``glicko2``, ``openskill``); this module only chooses the
category of a match, converts between their scales and the stored one, and keeps the table of
computer ratings. Each 2-player match is one Glicko-2 rating period, as on lichess.

The multi-player rating is stored on the Glicko scale so that both leaderboards read alike:
``rating = 1500 + SCALE * (mu - 25)`` and ``deviation = SCALE * sigma`` with
``SCALE = 350 / (25 / 3) = 42``: a new player shows 1500 with a deviation of 350 in both
systems. The leaderboard orders by that display rating (the mean, as Glicko's).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import glicko2
from openskill.models import PlackettLuce

from ginrummy.bots import BOTS
from ginrummy.rules import Format, Ruleset

PRESET_CATEGORIES = ("classic", "playok", "arena", "eaai")
"""2-player matches count in their table's preset (Glicko-2)."""
MULTI = "arena-multi"
"""3-4 player arena deals (openskill, Plackett-Luce)."""
CATEGORIES = (*PRESET_CATEGORIES, MULTI)

START_RATING = 1500.0
START_DEVIATION = 350.0
START_VOLATILITY = 0.06

COMPUTER_RATINGS: dict[str, float] = {
    "random": 1000.0,
    "simple": 1450.0,
    "beginner": 1500.0,
    "intermediate": 1650.0,
    "expert": 1700.0,
}
"""The fixed rating of each computer level (never updated). ``beginner`` (Neller's EAAI
player) is the anchor at 1500; the others are placed by the measured win rates of the strength
ladder (docs/bots.md, README) through the Elo curve ``d = 400 log10(p / (1 - p))``: expert beats
beginner 76.5% (+206, rounded to +200), expert beats intermediate 56.7% (+47, rounded to +50),
beginner and simple are level in six tables of seven (-50 for simple), and random loses
nearly every match (far below: 1000)."""
COMPUTER_DEVIATION = 60.0
"""A computer level's deviation: small, it is well measured and does not change."""
COMPUTER_VOLATILITY = 0.0

SCALE = START_DEVIATION / (25.0 / 3.0)
"""Glicko points per openskill point (42)."""
_OPENSKILL = PlackettLuce()


@dataclass(frozen=True)
class Rating:
    """A rating as stored: display rating, deviation, volatility (0 for openskill), games."""

    rating: float = START_RATING
    deviation: float = START_DEVIATION
    volatility: float = START_VOLATILITY
    games: int = 0


NEW_RATING = Rating()
NEW_MULTI_RATING = Rating(volatility=0.0)


def category_of(preset: str, rules: Ruleset) -> str | None:
    """The rating category of a match at a table of ``preset`` with ``rules``: the preset for
    2 players, ``arena-multi`` for a 3-4 player arena deal, ``None`` (unrated) otherwise (a
    3-4 player match of another preset, or an unknown preset)."""
    if rules.players == 2:
        return preset if preset in PRESET_CATEGORIES else None
    if preset == "arena" and rules.format is Format.SINGLE_HAND:
        return MULTI
    return None


def computer_level(spec: str | None) -> str | None:
    """The level name of a computer seat's spec (``expert:250`` -> ``expert``), if known."""
    if not spec:
        return None
    name = spec.strip().lower().partition(":")[0]
    return name if name in BOTS and name in COMPUTER_RATINGS else None


def computer_rating(level: str) -> Rating:
    """The fixed rating of a computer level (the same in every category)."""
    return Rating(COMPUTER_RATINGS[level], COMPUTER_DEVIATION, COMPUTER_VOLATILITY, 0)


def new_rating(category: str) -> Rating:
    """The rating of an account's first game in a category."""
    return NEW_MULTI_RATING if category == MULTI else NEW_RATING


def glicko_update(player: Rating, opponent: Rating, score: float) -> Rating:
    """``player``'s rating after one rating period of one game against ``opponent``:
    ``score`` 1 (won), 0.5 (drawn) or 0 (lost)."""
    if score not in (0.0, 0.5, 1.0):
        raise ValueError(f"score must be 0, 0.5 or 1, got {score!r}")
    updated = glicko2.Player(rating=player.rating, rd=player.deviation, vol=player.volatility)
    updated.update_player([opponent.rating], [opponent.deviation], [score])
    return Rating(float(updated.rating), float(updated.rd), float(updated.vol),
                  player.games + 1)


def _to_openskill(rating: Rating) -> object:
    return _OPENSKILL.rating(mu=25.0 + (rating.rating - START_RATING) / SCALE,
                             sigma=rating.deviation / SCALE)


def openskill_update(players: Sequence[Rating], places: Sequence[int]) -> list[Rating]:
    """Every player's rating after one multi-player game in which player i finished at
    ``places[i]`` (1 the winner; equal places tie), by Plackett-Luce."""
    if len(players) != len(places) or len(players) < 2:
        raise ValueError("one place per player, at least two players")
    teams = [[_to_openskill(r)] for r in players]
    rated = _OPENSKILL.rate(teams, ranks=[float(p) for p in places])  # type: ignore[arg-type]
    out: list[Rating] = []
    for before, (after,) in zip(players, rated, strict=True):
        out.append(Rating(START_RATING + SCALE * (after.mu - 25.0), SCALE * after.sigma,
                          0.0, before.games + 1))
    return out
