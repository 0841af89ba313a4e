"""``ginrummy simulate``: counts that add up, determinism from the seed, any table size."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cli_helpers import Run

from ginrummy.records import GameRecord

OUTCOMES = {"gin", "big_gin", "knock", "undercut", "void"}


def _simulate(cli: Callable[..., Run], *argv: str) -> dict[str, Any]:
    run = cli("simulate", *argv, "--json")
    assert run.code == 0, run.err
    data: dict[str, Any] = json.loads(run.out)
    return data


def test_json_keys_and_counts_add_up(cli: Callable[..., Run]) -> None:
    data = _simulate(cli, "--players", "random,random", "--hands", "40", "--seed", "1")
    for key in ("hands", "decisions", "seconds", "hands_per_second", "outcomes", "wins"):
        assert key in data
    assert data["hands"] == 40
    assert set(data["outcomes"]) == OUTCOMES
    assert sum(data["outcomes"].values()) == 40
    assert sum(data["wins"]) == 40 - data["outcomes"]["void"]
    assert len(data["wins"]) == 2
    assert data["decisions"] > 40 * 2
    assert data["seconds"] > 0
    assert abs(data["hands_per_second"] - 40 / data["seconds"]) < 0.01 * data["hands_per_second"]


def test_same_seed_same_games(cli: Callable[..., Run]) -> None:
    argv = ("--players", "simple,random", "--hands", "30", "--seed", "7", "--preset", "eaai")
    first, second = _simulate(cli, *argv), _simulate(cli, *argv)
    for key in ("hands", "decisions", "outcomes", "wins", "points"):
        assert first[key] == second[key]
    other = _simulate(cli, "--players", "simple,random", "--hands", "30", "--seed", "8",
                      "--preset", "eaai")
    assert (other["decisions"], other["wins"]) != (first["decisions"], first["wins"])


def test_simple_beats_random(cli: Callable[..., Run]) -> None:
    data = _simulate(cli, "--players", "simple,random", "--hands", "30", "--seed", "3",
                     "--preset", "eaai")
    assert data["wins"][0] > data["wins"][1]
    assert data["outcomes"]["void"] < 30


def test_three_players_arena(cli: Callable[..., Run]) -> None:
    data = _simulate(cli, "--players", "simple,simple,simple", "--preset", "arena", "--set",
                     "players=3", "--hands", "20", "--seed", "2")
    assert data["hands"] == 20
    assert len(data["wins"]) == 3
    assert data["ruleset"]["hand_size"] == 7
    assert sum(data["outcomes"].values()) == 20


def test_reshuffles_are_seeded(cli: Callable[..., Run]) -> None:
    # random players rarely knock: with reshuffles hands run long and may still end void (R4.7)
    argv = ("--players", "random,random", "--preset", "arena", "--hands", "5", "--seed", "4")
    assert _simulate(cli, *argv)["decisions"] == _simulate(cli, *argv)["decisions"]


def test_human_summary(cli: Callable[..., Run]) -> None:
    run = cli("simulate", "--players", "simple,simple", "--hands", "10", "--seed", "1")
    assert run.code == 0
    assert "10 hands of classic (simple, simple), seed 1" in run.out
    assert "hands/s" in run.out
    assert "outcomes: gin" in run.out
    assert "wins: seat 0 simple" in run.out


def test_seed_is_reported_when_random(cli: Callable[..., Run]) -> None:
    data = _simulate(cli, "--players", "random,random", "--hands", "2")
    assert isinstance(data["seed"], int)


def test_record_writes_one_record_per_hand_that_replay_coach_and_verify_read(
        cli: Callable[..., Run], tmp_path: Path) -> None:
    """Issue 29: ``simulate --record DIR`` saves every hand (a match of its own) as a game
    record; the games are those played without it, and replay, coach and verify read them."""
    argv = ("--players", "simple,random", "--hands", "3", "--seed", "5", "--preset", "eaai")
    plain = _simulate(cli, *argv)
    recorded = _simulate(cli, *argv, "--record", str(tmp_path / "games"))
    for key in ("hands", "decisions", "outcomes", "wins", "points"):
        assert recorded[key] == plain[key]  # the same games
    files = sorted((tmp_path / "games").iterdir())
    assert [f.name for f in files] == [f"hand-0000{i}.ginrec.json" for i in (1, 2, 3)]
    decisions = 0
    for path in files:
        record = GameRecord.load(path)
        assert record.players == ["simple", "random"] and len(record.hands) == 1
        decisions += sum(1 for a in record.hands[0]["actions"] if not a.startswith("reshuffle"))
        assert cli("replay", str(path)).code == 0
        coached = cli("coach", str(path), "--seat", "1", "--budget", "2", "--json")
        assert coached.code == 0, coached.err
        assert json.loads(coached.out)["player"] == "random"
        verified = cli("verify", str(path))
        assert verified.code == 1 and "no fair data" in verified.out  # read, not dealt fair
    assert decisions == plain["decisions"]


def test_record_into_a_file_is_refused(cli: Callable[..., Run], tmp_path: Path) -> None:
    path = tmp_path / "file.txt"
    path.write_text("x")
    run = cli("simulate", "--hands", "1", "--record", str(path))
    assert run.code == 2 and f"--record {path}: not a directory" in run.err
