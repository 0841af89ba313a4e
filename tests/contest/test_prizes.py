"""The prize split: the 50/30/20 table in whole chips, the remainder to first place, tied
places sharing, and the arena series paid by the rules' own arena split (R6.4)."""

from __future__ import annotations

import pytest

from ginrummy.contest import (
    PRIZE_TABLE,
    ArenaSeries,
    ContestError,
    Entrant,
    Knockout,
    arena_prizes,
    place_prizes,
    prizes,
)
from ginrummy.rules import Ruleset
from ginrummy.scoring import split_pool


def test_the_table_is_50_30_20() -> None:
    assert PRIZE_TABLE == (50, 30, 20)
    assert prizes(1000, 8) == (500, 300, 200, 0, 0, 0, 0, 0)


def test_what_rounding_leaves_goes_to_first_place() -> None:
    assert prizes(101, 4) == (51, 30, 20, 0)
    assert prizes(7, 3) == (3 + 1, 2, 1)


def test_places_past_the_field_add_their_share_to_first_place() -> None:
    assert prizes(1000, 2) == (700, 300)


def test_tied_places_share_and_the_odd_chip_goes_to_the_better_seed() -> None:
    paid = place_prizes(1001, ((6,), (5,), (1, 2), (3, 4)))
    assert paid == {6: 501, 5: 300, 1: 100, 2: 100, 3: 0, 4: 0}
    paid = place_prizes(1005, ((1,), (2,), (3, 4)))  # 502 + 1, 301, 201 shared
    assert paid == {1: 503, 2: 301, 3: 101, 4: 100}


def test_a_knockout_of_eight_pays_its_semi_finalists_equally() -> None:
    bracket = Knockout.start([Entrant(i, -i) for i in range(1, 9)])
    while not bracket.finished:
        match = bracket.pending()[0]
        bracket = bracket.record(match.round, match.index, match.players[0])
    assert place_prizes(800, bracket.placing()) == {
        1: 400, 2: 240, 3: 80, 4: 80, 5: 0, 6: 0, 7: 0, 8: 0}


def test_a_bad_pool_or_table_is_refused() -> None:
    with pytest.raises(ContestError, match="whole number"):
        prizes(-1, 3)
    with pytest.raises(ContestError, match="add up to 100"):
        prizes(100, 3, (50, 30))
    with pytest.raises(ContestError, match="each player once"):
        place_prizes(100, ((1,), (1, 2)))


def test_an_arena_series_pays_the_rules_arena_split_on_the_summed_points() -> None:
    rules = Ruleset.preset("arena", players=3)
    series = ArenaSeries.seeded([1, 2, 3], 2).record(0, 0, 1, [0, 10, 30])
    series = series.record(1, 0, 2, [6, 0, 20])  # seats: 1, 2, 3
    assert [series.points(p) for p in series.standings()] == [6, 10, 50]
    paid = arena_prizes(1000, series, rules)
    threshold = rules.payout_threshold * 2
    assert paid == dict(zip((1, 2, 3), split_pool(1000, [6, 10, 50], 0, threshold),
                            strict=True))
    assert paid[3] == 0 and paid[2] == 1000 * 25 * (threshold - 10) // (100 * 2 * threshold)
    assert sum(paid.values()) == 1000


def test_arena_prizes_wait_for_the_last_round() -> None:
    with pytest.raises(ContestError, match="not finished"):
        arena_prizes(100, ArenaSeries.seeded([1, 2, 3], 1), Ruleset.preset("arena"))
