"""The prize split: whole chips, and always the whole pool.

Knock-out and Swiss pay the table :data:`PRIZE_TABLE` (50/30/20 of the pool to places
1-3). Each place's share is rounded down to a whole chip and what rounding leaves goes to
first place. A place with nobody to take it (a field of 2) adds its share to first place.
Players tied over several places (a knock-out's losing semi-finalists share places 3-4)
share those places' chips equally, the chips that do not divide going one each to the tied
players in the order given (best seed first).

An arena series pays the arena's own split (R6.4, :func:`ginrummy.scoring.split_pool`) on
the series: the leader is the hand's winner, and each other player's summed penalty points
are compared with the rules' ``payout_threshold`` times the rounds (an average per hand
below the threshold earns a share, ``(threshold - average) / threshold`` of an equal part
of 25% of the pool).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ginrummy.contest.arena import ArenaSeries
from ginrummy.contest.common import ContestError
from ginrummy.rules import Payout, Ruleset
from ginrummy.scoring import split_pool

PRIZE_TABLE: tuple[int, ...] = (50, 30, 20)
"""Percent of the pool paid to places 1, 2, 3 in a knock-out or a Swiss."""


def prizes(pool: int, places: int, table: Sequence[int] = PRIZE_TABLE) -> tuple[int, ...]:
    """The chips paid to places 1..``places`` from ``pool`` by ``table`` (percentages
    adding up to 100): each rounded down, what is left to first place, the shares of
    places past the field to first place too. Sums to ``pool``."""
    if isinstance(pool, bool) or not isinstance(pool, int) or pool < 0:
        raise ContestError(f"a prize pool is a whole number of chips, 0 or more: {pool!r}")
    if places < 1:
        raise ContestError(f"prizes need at least one place, not {places}")
    if sum(table) != 100 or any(p < 0 for p in table) or not table:
        raise ContestError(f"a prize table's percentages add up to 100: {tuple(table)}")
    shares = [pool * percent // 100 for percent in table[:places]]
    shares += [0] * (places - len(shares))
    shares[0] += pool - sum(shares)
    return tuple(shares)


def place_prizes(pool: int, placing: Sequence[Sequence[int]],
                 table: Sequence[int] = PRIZE_TABLE) -> dict[int, int]:
    """Each player's prize (players paid nothing included, with 0) for a final placing:
    groups of tied players, best group first, each group best seed first
    (:meth:`~ginrummy.contest.Knockout.placing`; a Swiss's standings one a group)."""
    players = [p for group in placing for p in group]
    if len(set(players)) != len(players) or any(not group for group in placing):
        raise ContestError(f"a placing names each player once, in non-empty groups: "
                           f"{placing}")
    by_place = prizes(pool, len(players), table)
    paid: dict[int, int] = {}
    start = 0
    for group in placing:
        together = sum(by_place[start:start + len(group)])
        each, extra = divmod(together, len(group))
        for rank, player in enumerate(group):
            paid[player] = each + (rank < extra)
        start += len(group)
    return paid


def arena_prizes(pool: int, series: ArenaSeries, rules: Ruleset) -> dict[int, int]:
    """Each player's prize in a finished arena series by the arena split of ``rules``
    (R6.4, ``payout`` = ``linear_cap``): the leader is the winner, the others' summed
    points are compared with ``payout_threshold`` x rounds. Sums to ``pool``."""
    if not series.finished:
        raise ContestError("the series is not finished: no prizes yet")
    if rules.payout is not Payout.LINEAR_CAP:
        raise ContestError(f"no arena split for payout {rules.payout}")
    if isinstance(pool, bool) or not isinstance(pool, int) or pool < 0:
        raise ContestError(f"a prize pool is a whole number of chips, 0 or more: {pool!r}")
    order = series.standings()
    shares = split_pool(pool, [series.points(p) for p in order], 0,
                        rules.payout_threshold * series.rounds)
    return dict(zip(order, shares, strict=True))


def check_payout(pool: int, paid: Mapping[int, int]) -> None:
    """Raise unless ``paid`` hands out exactly ``pool``, no share below zero."""
    if sum(paid.values()) != pool or any(v < 0 for v in paid.values()):
        raise ContestError(f"the prizes {dict(paid)} do not hand out the pool of {pool}")
