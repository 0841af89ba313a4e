"""Arena series rules: the tables of 3-4, re-seating by standing, points summed, the
standings' tie-breaks, refused results, JSON."""

from __future__ import annotations

import pytest

from ginrummy.contest import ArenaSeries, ContestError, Entrant, from_json, to_json
from ginrummy.contest.arena import table_sizes


def field(n: int) -> list[Entrant]:
    return [Entrant(i, 2000 - 10 * i) for i in range(1, n + 1)]


@pytest.mark.parametrize("players, sizes", [
    (3, (3,)), (4, (4,)), (6, (3, 3)), (7, (4, 3)), (8, (4, 4)), (9, (3, 3, 3)),
    (10, (4, 3, 3)), (13, (4, 3, 3, 3)), (64, (4,) * 16)])
def test_tables_seat_three_or_four_as_evenly_as_can_be(players: int,
                                                       sizes: tuple[int, ...]) -> None:
    assert table_sizes(players) == sizes


@pytest.mark.parametrize("players", [2, 5])
def test_a_field_that_cannot_sit_at_tables_of_three_or_four_is_refused(players: int) -> None:
    with pytest.raises(ContestError, match="3, 4 or at least 6"):
        ArenaSeries.start(field(players), 2)


def test_round_one_seats_by_seed_and_later_rounds_by_standing() -> None:
    series = ArenaSeries.start(field(7), 2)
    assert series.played[0].tables == ((1, 2, 3, 4), (5, 6, 7))
    series = series.record(0, 0, 4, [10, 20, 30, 0]).record(0, 1, 7, [5, 25, 0])
    # points: 4 and 7 on 0 (4 the better seed), 5 on 5, 1 on 10, 2 on 20, 6 on 25, 3 on 30
    assert series.standings() == (4, 7, 5, 1, 2, 6, 3)
    assert series.played[1].tables == ((4, 7, 5, 1), (2, 6, 3))


def test_points_are_summed_and_hands_won_break_a_tie() -> None:
    series = ArenaSeries.seeded([1, 2, 3], 2)
    series = series.record(0, 0, 1, [0, 10, 20])
    series = series.record(1, 0, 2, [10, 0, 5])
    assert [series.points(p) for p in (1, 2, 3)] == [10, 10, 25]
    assert series.standings() == (1, 2, 3)  # tied on points and hands won: seed
    series = ArenaSeries.seeded([1, 2, 3], 2).record(0, 0, 3, [5, 5, 0])
    assert series.played[1].tables == ((3, 1, 2),)
    series = series.record(1, 0, 2, [5, 0, 0])  # seat order: 3, 1, 2
    assert [series.points(p) for p in (1, 2, 3)] == [5, 5, 5]
    assert series.standings() == (2, 3, 1)  # 2 and 3 won a hand each, 1 none


@pytest.mark.parametrize("winner, penalties, message", [
    (9, [0, 1, 2, 3], "does not sit"),
    (1, [0, 1, 2], "4 penalties"),
    (1, [0, -1, 2, 3], "4 penalties"),
    (1, [3, 0, 2, 3], "takes no penalty"),
])
def test_a_result_that_is_not_one_is_refused(winner: int, penalties: list[int],
                                             message: str) -> None:
    with pytest.raises(ContestError, match=message):
        ArenaSeries.start(field(4), 1).record(0, 0, winner, penalties)


def test_the_series_ends_after_its_rounds() -> None:
    series = ArenaSeries.start(field(3), 1).record(0, 0, 2, [4, 0, 9])
    assert series.finished and series.pending() == ()
    assert series.standings() == (2, 1, 3)


def test_json_round_trips_and_a_forged_seating_is_refused() -> None:
    series = ArenaSeries.start(field(7), 3).record(0, 1, 6, [3, 0, 8])
    assert from_json(to_json(series)) == series
    forged = to_json(series)
    forged["played"][0]["tables"][1][0] = 1  # player 1 at two tables
    with pytest.raises(ContestError, match="every player once"):
        from_json(forged)
