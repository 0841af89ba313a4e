"""Swiss rules, one test each: pairing by score, the bye (one point, once a player, the
lowest placed), no rematch with backtracking, Buchholz, standings, JSON."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ginrummy.contest import ContestError, Entrant, Swiss, from_json, to_json
from ginrummy.contest.swiss import _pair_without_rematch, pair_round


def field(n: int) -> list[Entrant]:
    return [Entrant(i, 2000 - 10 * i) for i in range(1, n + 1)]


def play_round(swiss: Swiss, better_wins: bool = True) -> Swiss:
    for match in swiss.pending():
        swiss = swiss.record(match.round, match.index,
                             match.players[0 if better_wins else 1])
    return swiss


def test_round_one_pairs_neighbouring_seeds() -> None:
    swiss = Swiss.start(field(6), 3)
    assert swiss.played[0].pairs == ((1, 2), (3, 4), (5, 6))


def test_later_rounds_pair_by_score() -> None:
    swiss = play_round(Swiss.start(field(8), 3))
    assert swiss.played[1].pairs == ((1, 3), (5, 7), (2, 4), (6, 8))


def test_the_bye_goes_to_the_lowest_without_one_and_is_worth_a_point() -> None:
    swiss = Swiss.start(field(5), 5)
    assert swiss.played[0].bye == 5
    assert swiss.score(5) == 1
    byes = []
    while not swiss.finished:
        byes.append(swiss.played[-1].bye)
        swiss = play_round(swiss)
    assert sorted(byes) == [1, 2, 3, 4, 5]


def test_the_pairing_backtracks_instead_of_a_rematch() -> None:
    # Greedy top-down would pair 1-2 (new) and leave 3-4, who met already; 1-3, 2-4 has none.
    met = frozenset({frozenset((3, 4)), frozenset((1, 4))})
    pairs, bye = pair_round([1, 2, 3, 4], met, frozenset())
    assert bye is None
    assert not {frozenset(p) for p in pairs} & met


def test_the_bye_moves_up_when_the_lowest_would_force_a_rematch() -> None:
    met = frozenset({frozenset((1, 2))})
    pairs, bye = pair_round([1, 2, 3], met, frozenset())
    assert bye in (1, 2)
    assert frozenset(pairs[0]) != frozenset((1, 2))


def test_a_rematch_only_when_no_pairing_avoids_one() -> None:
    met = frozenset({frozenset((1, 2)), frozenset((3, 4)), frozenset((1, 3)),
                     frozenset((2, 4)), frozenset((1, 4))})
    pairs, _ = pair_round([1, 2, 3, 4], met, frozenset())
    assert sorted(p for pair in pairs for p in pair) == [1, 2, 3, 4]


def test_buchholz_breaks_a_tie_of_scores_before_the_seed() -> None:
    swiss = Swiss.start(field(4), 2)
    swiss = swiss.record(0, 0, 1).record(0, 1, 4)  # 1 beats 2, 4 beats 3
    assert swiss.played[1].pairs == ((1, 4), (2, 3))
    swiss = swiss.record(1, 0, 1).record(1, 1, 3)
    assert [swiss.score(p) for p in (1, 2, 3, 4)] == [2, 0, 1, 1]
    assert swiss.buchholz(4) == swiss.score(3) + swiss.score(1) == 3
    assert swiss.buchholz(3) == swiss.score(4) + swiss.score(2) == 1
    assert swiss.standings() == (1, 4, 3, 2)  # 4 above 3, the better seed, on Buchholz


def test_the_seed_decides_when_score_and_buchholz_tie() -> None:
    swiss = Swiss.start(field(4), 2)
    swiss = swiss.record(0, 0, 1).record(0, 1, 4)
    swiss = swiss.record(1, 0, 1).record(1, 1, 2)  # 2 beats 3
    assert swiss.score(2) == swiss.score(4) and swiss.buchholz(2) == swiss.buchholz(4)
    assert swiss.standings() == (1, 2, 4, 3)


def test_a_match_both_players_lost_scores_nothing_and_still_counts_as_met() -> None:
    swiss = Swiss.start(field(4), 2).record_both_lost(0, 0)  # 1 and 2 never came
    assert [m.void for m in swiss.matches(0)] == [True, False]
    assert [m.players for m in swiss.pending()] == [(3, 4)]
    with pytest.raises(ContestError, match="has its result already"):
        swiss.record(0, 0, 1)
    swiss = swiss.record(0, 1, 3)
    assert [swiss.score(p) for p in (1, 2, 3, 4)] == [0, 0, 1, 0]
    assert swiss.played[1].pairs == ((3, 1), (2, 4))  # 1 and 2 are not paired again
    assert from_json(to_json(swiss)) == swiss


def test_the_number_of_rounds_is_checked() -> None:
    with pytest.raises(ContestError, match="1 to 3 Swiss rounds"):
        Swiss.start(field(4), 4)
    with pytest.raises(ContestError, match="1 to 5 Swiss rounds"):
        Swiss.start(field(5), 0)


def test_results_only_for_the_round_being_played() -> None:
    swiss = Swiss.start(field(4), 2)
    with pytest.raises(ContestError, match="not the round being played"):
        swiss.record(1, 0, 1)
    with pytest.raises(ContestError, match="does not play"):
        swiss.record(0, 0, 3)


def test_json_round_trips_and_keeps_the_stored_pairings() -> None:
    swiss = play_round(Swiss.start(field(7), 3)).record(1, 0, 1)
    assert from_json(to_json(swiss)) == swiss
    forged = to_json(swiss)
    forged["played"][0]["bye"] = forged["played"][1]["bye"]
    with pytest.raises(ContestError):
        from_json(forged)


def depth_first(order: list[int], met: frozenset[frozenset[int]]
                ) -> list[tuple[int, int]] | None:
    """The reference: the plain depth-first search with backtracking (exponential)."""
    if not order:
        return []
    first = order[0]
    for other in order[1:]:
        if frozenset((first, other)) not in met:
            rest = depth_first([p for p in order if p not in (first, other)], met)
            if rest is not None:
                return [(first, other), *rest]
    return None


@settings(max_examples=300)
@given(st.integers(1, 6).flatmap(lambda half: st.tuples(
    st.permutations(list(range(2 * half))),
    st.sets(st.tuples(st.integers(0, 2 * half - 1), st.integers(0, 2 * half - 1))))))
def test_the_pairing_is_the_depth_first_search_s_in_polynomial_time(
        case: tuple[list[int], set[tuple[int, int]]]) -> None:
    order, edges = case
    met = frozenset(frozenset(e) for e in edges if e[0] != e[1])
    assert _pair_without_rematch(order, met) == depth_first(order, met)


def test_a_64_player_round_robin_is_paired_without_a_rematch() -> None:
    """63 rounds of 64 players (a plain backtracking search took minutes a round from
    about round 30 on): every round pairs everyone, and nobody meets anyone twice."""
    rng = random.Random(7)
    swiss = Swiss.seeded(list(range(1, 65)), 63)
    while not swiss.finished:
        for match in swiss.pending():
            swiss = swiss.record(match.round, match.index, rng.choice(match.players))
    pairs = [frozenset(p) for r in swiss.played for p in r.pairs]
    assert len(pairs) == 63 * 32 == len(set(pairs))
