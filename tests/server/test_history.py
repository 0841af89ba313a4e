"""Match history: each seat's statistics, the stored match, its face-up replay and its game
record (which ``ginrummy replay`` reads)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from player_helpers import add_account, bot_table, database, example_table, store
from sqlalchemy import select

from ginrummy.records import GameRecord
from ginrummy.rules import Ruleset
from ginrummy.scoring import Outcome
from ginrummy.server.play.settlement import Ending, MatchEnd
from ginrummy.server.players.matchrecord import SeatStats, seat_statistics, summarise
from ginrummy.server.players.replay import ReplayError, match_record, replay_match
from ginrummy.storage import StoredEvent, players


def test_statistics_of_the_hand_checked_match() -> None:
    """docs/records.md's match: seat 1 knocks with 1 (Ad), seat 0 keeps 28 after laying off
    9h: 28 - 1 = 27 points, plus 100 game, 20 line and 100 shutout = 247."""
    table = example_table("t-example", [7, "simple"])
    summary = summarise(MatchEnd(table, Ending.OVER))
    assert summary is not None
    loser, winner = summary.seats
    assert loser.stats == SeatStats(hands=1, caught=1, caught_deadwood=28, points=0)
    assert winner.stats == SeatStats(hands=1, knocks=1, points=27)
    assert (loser.score, loser.place, winner.score, winner.place) == (0, 2, 247, 1)
    assert (summary.first_version, summary.last_version) == (1, 11)
    assert summary.category == "classic"  # an account against a computer level: rated


def test_statistics_over_many_hands_add_up() -> None:
    """Over a long match: every hand is a void, or one seat's gin or knock; undercuts are
    knocks lost; caught hands are exactly the others' won knocks and gins."""
    table = bot_table("t-long", "classic", [1, "simple"], seed=4)
    match = table.match
    assert match is not None and match.over
    stats = seat_statistics(match)
    results = [h.result for h in match.hands if h.result is not None]
    outcomes = [r.outcome for r in results]
    for seat, s in enumerate(stats):
        assert s.hands == len(results)
        assert s.voids == outcomes.count(Outcome.VOID)
        assert s.gins == sum(r.knocker == seat and r.outcome in (Outcome.GIN, Outcome.BIG_GIN)
                             for r in results)
        assert s.points == match.scores[seat]
    other = [stats[1], stats[0]]
    for s, o in zip(stats, other, strict=True):
        assert s.gins + s.knocks + o.gins + o.knocks + s.voids == s.hands
        assert s.undercuts == sum(r.outcome is Outcome.UNDERCUT for r in results
                                  if r.knocker is not None and stats.index(o) == r.knocker)
        assert s.caught == o.gins + o.knocks - s.undercuts
    assert all(s.undercuts == 1 for s in stats) and len(results) == 14


def test_arena_points_are_minus_the_penalties() -> None:
    """In the single-hand game a seat's points are minus its penalty points."""
    table = bot_table("t-arena", "arena", [1, "simple", "simple"], seed=3, players=3)
    match = table.match
    assert match is not None and match.result is not None
    penalties = match.result.penalties
    assert penalties is not None
    assert [s.points for s in seat_statistics(match)] == [-p for p in penalties]
    summary = summarise(MatchEnd(table, Ending.OVER))
    assert summary is not None
    assert [s.place == 1 for s in summary.seats] == [
        seat == match.result.winner for seat in range(3)]


def test_stored_match_replays_face_up(tmp_path: Path) -> None:
    """The stored match's events replay into one step per deal and action, every hand face
    up, and its record replays with the command line to the same result."""
    engine = database(tmp_path)
    ann = add_account(engine, "Ann")
    assert store(engine, example_table("t-rep", [ann, "simple"], ["Ann", "Simple"]))
    (match,) = players.account_matches(engine, ann)
    source = players.match_source(engine, match)
    assert source is not None
    rules_dict, pool, events = source
    assert [e.version for e in events] == list(range(1, 12))
    replayed, steps = replay_match(Ruleset.from_dict(rules_dict, name="classic"), pool, events)
    assert len(steps) == 10
    first = steps[0]
    assert first["action"] == "deal" and first["seat"] is None
    assert first["hands"] == [
        sorted(["2s", "8s", "Ts", "Ah", "9h", "Kh", "5d", "Qd", "7c", "Qc"], key=_order),
        sorted(["9s", "Qs", "Ks", "6h", "Th", "Ad", "9d", "Kd", "9c", "Tc"], key=_order)]
    assert first["discard"] == ["5s"] and first["stock"] == 31
    assert steps[1] == {**steps[1], "seat": 0, "action": "take", "discard": []}
    assert "5s" in steps[1]["hands"][0]
    last = steps[-1]
    assert last["result"]["outcome"] == "knock" and last["scores"] == [0, 27]
    assert replayed.result is not None and replayed.result.totals == (0, 247)
    path = tmp_path / "match.ginrec.json"
    match_record(replayed, [s.name for s in match.seats]).save(path)
    assert GameRecord.load(path).players == ["Ann", "Simple"]
    done = subprocess.run([sys.executable, "-m", "ginrummy.cli.main", "replay", str(path)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert "247" in done.stdout


def _order(name: str) -> int:
    from ginrummy.cards import parse_card
    return parse_card(name)


def test_damaged_events_do_not_replay() -> None:
    """Events that do not replay raise ReplayError (the route answers 500, not a crash)."""
    rules = Ruleset.preset("classic")
    with pytest.raises(ReplayError):
        replay_match(rules, None, [StoredEvent(1, "deal", "As")])
    with pytest.raises(ReplayError):
        replay_match(rules, None, [StoredEvent(1, "match", '{"first_dealer": 0}'),
                                   StoredEvent(2, "deal", "As 2s")])


def test_no_account_no_row_and_a_guest_is_unrated(tmp_path: Path) -> None:
    """A match of guests and computers is not stored; an account with a guest is stored with
    its statistics, unrated."""
    engine = database(tmp_path)
    assert not store(engine, example_table("t-guests", [None, "simple"]))
    bea = add_account(engine, "Bea")
    assert store(engine, example_table("t-mixed", [bea, None], ["Bea", "guest"]))
    with engine.connect() as conn:
        rows = conn.execute(select(players.MATCHES)).all()
        seat_rows = conn.execute(select(players.MATCH_PLAYERS)).all()
    assert [(r.table_id, r.category, r.ending) for r in rows] == [("t-mixed", None, "over")]
    assert [(r.account_id, r.caught_deadwood, r.rating_after) for r in seat_rows] == [
        (bea, 28, None), (None, 0, None)]
    assert players.account_ratings(engine, bea) == {}
