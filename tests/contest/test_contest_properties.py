"""Hypothesis properties of every format, under any field and any results: each player
plays at most once a round, Swiss avoids a rematch whenever one can be avoided (checked
against a brute force), knock-out byes only to the top seeds, one champion, standings a
permutation of the field, payouts the whole pool, and JSON round trips at every step."""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from ginrummy.contest import (
    ArenaSeries,
    ContestError,
    Entrant,
    Knockout,
    Swiss,
    arena_prizes,
    from_json,
    place_prizes,
    prizes,
    to_json,
)
from ginrummy.contest.arena import table_sizes
from ginrummy.contest.swiss import most_rounds
from ginrummy.rules import Ruleset

ratings = st.lists(st.integers(1000, 2000), min_size=2, max_size=20)


def entrants(values: Sequence[int]) -> list[Entrant]:
    return [Entrant(10 + i, r) for i, r in enumerate(values)]


def round_trips(contest: Knockout | Swiss | ArenaSeries) -> None:
    assert from_json(json.loads(json.dumps(to_json(contest)))) == contest


def once_a_round(groups: Sequence[Sequence[int]], field: Sequence[int]) -> None:
    seated = [p for g in groups for p in g]
    assert len(seated) == len(set(seated)) and set(seated) <= set(field)


@given(ratings, st.data())
def test_a_knockout_of_any_field_ends_with_one_champion(values: list[int],
                                                        data: st.DataObject) -> None:
    bracket = Knockout.start(entrants(values))
    n = len(values)
    byes = [m.players[0] for m in bracket.matches(0) if m.bye]
    assert sorted(bracket.seeds.index(p) for p in byes) == list(range(bracket.size - n))
    while not bracket.finished:
        round = bracket.current_round
        assert round is not None
        once_a_round([m.players for m in bracket.matches(round)], bracket.seeds)
        match = data.draw(st.sampled_from(bracket.pending()))
        bracket = bracket.record(match.round, match.index,
                                 data.draw(st.sampled_from(match.players)))
        round_trips(bracket)
    placing = bracket.placing()
    assert placing[0] == (bracket.champion,)
    assert sorted(p for g in placing for p in g) == sorted(bracket.seeds)
    pool = data.draw(st.integers(0, 10**7))
    assert sum(place_prizes(pool, placing).values()) == pool


def rematch_free_exists(order: Sequence[int], met: set[frozenset[int]],
                        had_bye: set[int]) -> bool:
    """Brute force: some bye (to one without a bye) and pairing meets nobody twice."""
    byes: list[int | None] = [p for p in order if p not in had_bye] if len(order) % 2 else [None]
    for bye in byes:
        rest = [p for p in order if p != bye]
        if any(all(frozenset((rest[i], rest[j])) not in met
                   for i, j in zip(perm[::2], perm[1::2], strict=True))
               for perm in itertools.permutations(range(len(rest)))
               if all(a < b for a, b in zip(perm[::2], perm[1::2], strict=True))):
            return True
    return False


@settings(max_examples=60)
@given(st.lists(st.integers(1000, 2000), min_size=2, max_size=8), st.data())
def test_swiss_pairs_everyone_once_a_round_and_rematches_only_when_forced(
        values: list[int], data: st.DataObject) -> None:
    n = len(values)
    rounds = data.draw(st.integers(1, most_rounds(n)))
    swiss = Swiss.start(entrants(values), rounds)
    met: set[frozenset[int]] = set()
    had_bye: set[int] = set()
    while True:
        paired = swiss.played[-1]
        once_a_round([*paired.pairs, () if paired.bye is None else (paired.bye,)], swiss.seeds)
        assert sum(len(p) for p in paired.pairs) + (paired.bye is not None) == n
        assert paired.bye is None or paired.bye not in had_bye
        if any(frozenset(p) in met for p in paired.pairs):
            order = sorted(swiss.seeds, key=lambda p: (-swiss.score(p), swiss.seeds.index(p)))
            assert not rematch_free_exists(order, met, had_bye)
        met |= {frozenset(p) for p in paired.pairs}
        had_bye |= {paired.bye} if paired.bye is not None else set()
        while swiss.pending():
            match = data.draw(st.sampled_from(swiss.pending()))
            outcome = data.draw(st.sampled_from([*match.players, None]))
            if outcome is None:  # neither came: both lost
                swiss = swiss.record_both_lost(match.round, match.index)
            else:
                swiss = swiss.record(match.round, match.index, outcome)
            round_trips(swiss)
        if swiss.finished:
            break
    standings = swiss.standings()
    assert sorted(standings) == sorted(swiss.seeds)
    void = sum(len(r.void) for r in swiss.played)
    assert sum(swiss.score(p) for p in standings) == rounds * (n // 2 + n % 2) - void
    pool = data.draw(st.integers(0, 10**7))
    assert sum(place_prizes(pool, [(p,) for p in standings]).values()) == pool


@settings(max_examples=60)
@given(st.lists(st.integers(1000, 2000), min_size=3, max_size=20).filter(
    lambda v: len(v) != 5), st.integers(1, 4), st.data())
def test_an_arena_series_seats_everyone_once_and_pays_the_pool(
        values: list[int], rounds: int, data: st.DataObject) -> None:
    series = ArenaSeries.start(entrants(values), rounds)
    while not series.finished:
        seated = series.played[-1]
        once_a_round(seated.tables, series.seeds)
        assert sorted(map(len, seated.tables), reverse=True) == list(table_sizes(len(values)))
        if all(w is None for w in seated.winners):  # the round's start: seated by standing
            assert [p for t in seated.tables for p in t] == list(series.standings())
        table = data.draw(st.sampled_from(series.pending()))
        winner = data.draw(st.sampled_from(table.players))
        penalties = [0 if p == winner else data.draw(st.integers(0, 60)) for p in table.players]
        series = series.record(table.round, table.index, winner, penalties)
        round_trips(series)
    assert sorted(series.standings()) == sorted(series.seeds)
    pool = data.draw(st.integers(0, 10**7))
    players = data.draw(st.integers(2, 4))
    paid = arena_prizes(pool, series, Ruleset.preset("arena", players=players))
    assert sum(paid.values()) == pool and min(paid.values()) >= 0
    assert paid[series.standings()[0]] * 4 >= pool * 3  # the leader takes 75% at least


@given(st.integers(0, 10**9), st.integers(1, 100))
def test_the_places_share_the_whole_pool(pool: int, places: int) -> None:
    assert sum(prizes(pool, places)) == pool


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 70) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner,
                                                                max_size=2),
    max_leaves=5)


def leaves(data: object, path: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    """Every path into a JSON value (containers included)."""
    found = [path]
    if isinstance(data, dict):
        for key, value in data.items():
            found += leaves(value, (*path, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found += leaves(value, (*path, index))
    return found


def sample_states() -> list[Knockout | Swiss | ArenaSeries]:
    bracket = Knockout.seeded([1, 2, 3, 4, 5]).record(0, 1, 5)
    swiss = Swiss.seeded([1, 2, 3, 4, 5], 3).record(0, 0, 2)
    series = ArenaSeries.seeded([1, 2, 3, 4, 5, 6, 7], 2).record(0, 0, 3, [4, 5, 0, 6])
    return [bracket, swiss, series]


@settings(max_examples=300)
@given(st.sampled_from(range(3)), st.data())
def test_a_damaged_json_state_is_refused_with_a_contest_error_or_read(
        which: int, data: st.DataObject) -> None:
    """Any one value of a stored state replaced by any JSON value: reading it either gives
    a state of the format (which round trips) or raises ContestError, never anything else."""
    state = json.loads(json.dumps(to_json(sample_states()[which])))
    path = data.draw(st.sampled_from(leaves(state)[1:]))
    target = state
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = data.draw(json_values)
    try:
        read = from_json(state)
    except ContestError:
        return
    round_trips(read)
