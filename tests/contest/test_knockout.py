"""Knock-out rules, one test each: the bracket order, byes to the top seeds, winners going
on, the placing, refused results, JSON."""

from __future__ import annotations

import pytest

from ginrummy.contest import ContestError, Entrant, Knockout, from_json, to_json
from ginrummy.contest.knockout import bracket_order


def field(n: int) -> list[Entrant]:
    """Players 1..n, player 1 rated highest."""
    return [Entrant(i, 2000 - 10 * i) for i in range(1, n + 1)]


def play_out(bracket: Knockout, better_wins: bool = True) -> Knockout:
    while not bracket.finished:
        match = bracket.pending()[0]
        winner = match.players[0] if better_wins else match.players[-1]
        bracket = bracket.record(match.round, match.index, winner)
    return bracket


def test_the_bracket_order_meets_1_v_n_and_keeps_the_top_seeds_apart() -> None:
    assert bracket_order(2) == (1, 2)
    assert bracket_order(4) == (1, 4, 2, 3)
    assert bracket_order(8) == (1, 8, 4, 5, 2, 7, 3, 6)
    order = bracket_order(16)
    assert all(order[i] + order[i + 1] == 17 for i in range(0, 16, 2))
    assert order.index(2) >= 8 > order.index(1)  # 1 and 2 only meet in the final


def test_seeding_is_by_rating_then_id_whatever_the_registration_order() -> None:
    bracket = Knockout.start([Entrant(7, 1500), Entrant(3, 1700), Entrant(5, 1500),
                              Entrant(9, 1800)])
    assert bracket.seeds == (9, 3, 5, 7)
    assert [m.players for m in bracket.pending()] == [(9, 7), (3, 5)]


def test_byes_go_to_the_top_seeds_when_the_field_is_not_a_power_of_two() -> None:
    bracket = Knockout.start(field(5))
    byes = [m for m in bracket.matches(0) if m.bye]
    assert sorted(m.players[0] for m in byes) == [1, 2, 3]
    assert all(m.winner == m.players[0] for m in byes)
    assert [m.players for m in bracket.pending()] == [(4, 5)]


def test_winners_go_on_and_the_next_round_waits_for_the_last_result() -> None:
    bracket = Knockout.start(field(8))
    bracket = bracket.record(0, 0, 8)  # the upset: 8 beats 1
    with pytest.raises(ContestError, match="not the round being played"):
        bracket.record(1, 0, 8)
    for match in bracket.pending():
        bracket = bracket.record(0, match.index, match.players[0])
    assert [m.players for m in bracket.pending()] == [(4, 8), (2, 3)]


def test_the_placing_is_champion_finalist_then_each_rounds_losers_tied() -> None:
    bracket = play_out(Knockout.start(field(8)))
    assert bracket.champion == 1
    assert bracket.placing() == ((1,), (2,), (3, 4), (5, 6, 7, 8))


def test_a_three_player_field_gives_one_bye_and_places_everyone_once() -> None:
    bracket = play_out(Knockout.start(field(3)), better_wins=False)
    assert bracket.placing() == ((3,), (1,), (2,))


@pytest.mark.parametrize("round, index, winner, message", [
    (0, 0, 3, "does not play"),
    (0, 9, 1, "has no match"),
    (1, 0, 1, "not the round being played"),
])
def test_a_result_that_is_not_one_is_refused(round: int, index: int, winner: int,
                                             message: str) -> None:
    with pytest.raises(ContestError, match=message):
        Knockout.start(field(4)).record(round, index, winner)


def test_a_match_takes_one_result_only() -> None:
    bracket = Knockout.start(field(4)).record(0, 0, 1)
    with pytest.raises(ContestError, match="has its result already"):
        bracket.record(0, 0, 4)


def test_the_placing_waits_for_the_final() -> None:
    with pytest.raises(ContestError, match="not finished"):
        Knockout.start(field(4)).placing()


def test_one_player_is_no_tournament() -> None:
    with pytest.raises(ContestError, match="at least 2"):
        Knockout.start(field(1))


def test_json_round_trips_and_a_forged_state_is_refused() -> None:
    bracket = Knockout.start(field(6)).record(0, 1, 5)
    assert from_json(to_json(bracket)) == bracket
    forged = to_json(bracket)
    forged["winners"][0][0] = 8  # seed 1's bye "won" by someone else
    with pytest.raises(ContestError, match="bye"):
        from_json(forged)
    forged = to_json(bracket)
    forged["winners"][1][0] = 1  # round 2 before round 1 is over
    with pytest.raises(ContestError, match="not the round being played"):
        from_json(forged)
