"""``ginrummy tournament``: the JSON report, determinism, the table, and bad arguments."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tournament_helpers import CliRun, deterministic

from ginrummy.records import GameRecord

OUTCOMES = {"gin", "big_gin", "knock", "undercut", "void"}
PLAYER_KEYS = {"player", "spec", "name", "budget_ms", "games", "wins", "win_rate", "win_rate_ci",
               "win_rate_wilson", "hands", "points_per_hand", "points_per_hand_ci", "counts",
               "rates", "decisions"}


def _run(cli: Callable[..., CliRun], *argv: str) -> dict[str, Any]:
    run = cli("tournament", *argv, "--json", "--no-progress")
    assert run.code == 0, run.err
    data: dict[str, Any] = json.loads(run.out)
    return data



def test_json_schema(cli: Callable[..., CliRun]) -> None:
    data = _run(cli, "--players", "simple,random:30", "--preset", "eaai", "--matches", "3",
                "--seed", "1", "--budget-ms", "20")
    assert set(data) == {"schema", "version", "settings", "players", "hands_per_game",
                         "outcomes", "deals", "timing"}
    assert data["schema"] == "ginrummy.tournament/1"
    settings = data["settings"]
    assert settings["players"] == [{"spec": "simple", "name": "simple", "budget_ms": 20.0},
                                   {"spec": "random:30", "name": "random", "budget_ms": 30.0}]
    assert (settings["unit"], settings["deals"], settings["rotations"], settings["games"]) == (
        "match", 3, 2, 6)
    assert settings["seed"] == 1 and settings["preset"] == "eaai"
    assert settings["ruleset"]["upcard_offer"] == "non_dealer_first"
    assert [p["player"] for p in data["players"]] == [0, 1]
    for player in data["players"]:
        assert set(player) == PLAYER_KEYS
        assert player["games"] == 6
        assert set(player["rates"]) == set(player["counts"])
        low, high = player["win_rate_ci"]
        assert 0 <= low <= player["win_rate"] <= high <= 1
    assert sum(p["wins"] for p in data["players"]) == 6
    assert data["players"][0]["points_per_hand"] == pytest.approx(
        -data["players"][1]["points_per_hand"])
    assert set(data["outcomes"]) == OUTCOMES
    assert sum(data["outcomes"].values()) == data["players"][0]["hands"]
    assert len(data["deals"]) == 3
    for deal in data["deals"]:
        assert [g["rotation"] for g in deal["games"]] == [0, 1]
        assert [g["seats"] for g in deal["games"]] == [[0, 1], [1, 0]]
        for game in deal["games"]:
            assert game["winner"] in (0, 1) and max(game["scores"]) >= 100
    timing = data["timing"]
    assert timing["seconds"] > 0
    assert [t["decisions"] for t in timing["latency_ms"]] == [p["decisions"]
                                                              for p in data["players"]]
    for entry in timing["latency_ms"]:
        assert 0 <= entry["p50"] <= entry["p95"] <= entry["p99"] <= entry["max"]


def test_same_seed_same_json_whatever_the_jobs(cli: Callable[..., CliRun]) -> None:
    argv = ("--players", "simple,random", "--preset", "eaai", "--matches", "8", "--seed", "4")
    one = _run(cli, *argv)
    assert deterministic(_run(cli, *argv)) == deterministic(one)
    two = _run(cli, *argv, "--jobs", "2")
    assert two["settings"]["jobs"] == 2
    assert deterministic(two) == deterministic(one)
    other = _run(cli, "--players", "simple,random", "--preset", "eaai", "--matches", "8",
                 "--seed", "5")
    assert other["deals"] != one["deals"]


def test_three_players_rotate_in_arena(cli: Callable[..., CliRun]) -> None:
    data = _run(cli, "--players", "simple,random,simple", "--preset", "arena", "--matches", "2",
                "--seed", "3")
    assert data["settings"]["ruleset"]["players"] == 3
    assert data["settings"]["games"] == 6
    for deal in data["deals"]:
        assert [g["seats"] for g in deal["games"]] == [[0, 1, 2], [2, 0, 1], [1, 2, 0]]
        for game in deal["games"]:  # single hand: scores are minus the penalties
            assert game["scores"][game["winner"]] == 0 and max(game["scores"]) == 0
    assert sum(p["wins"] for p in data["players"]) == pytest.approx(6)
    assert sum(p["points_per_hand"] for p in data["players"]) == pytest.approx(0, abs=1e-9)


def test_duplicate_hands(cli: Callable[..., CliRun]) -> None:
    data = _run(cli, "--players", "simple,random", "--preset", "classic", "--hands", "5",
                "--seed", "2")
    assert data["settings"]["unit"] == "hand"
    assert data["hands_per_game"]["mean"] == 1.0
    assert data["players"][0]["hands"] == 10


def test_table_for_people(cli: Callable[..., CliRun]) -> None:
    run = cli("tournament", "--players", "simple,random", "--preset", "eaai", "--matches", "3",
              "--seed", "1", "--no-progress")
    assert run.code == 0, run.err
    assert "eaai: 3 duplicate matches (seats swapped) = 6 games, seed 1" in run.out
    assert "win rate [95% CI]" in run.out and "p95 ms" in run.out
    assert "\nsimple " in run.out and "\nrandom " in run.out
    assert run.err == ""  # stderr is not a terminal: no bar


@pytest.mark.parametrize(("argv", "message"), [
    (("--players", "simple,nobody"), "--players: unknown player 'nobody'"),
    (("--players", "simple"), "--players: give 2 to 4 comma-separated players, got 1"),
    (("--players", "simple,simple,simple,simple,simple"), "give 2 to 4"),
    (("--players", "simple,random,simple", "--preset", "eaai"),
     "3 players always play the single_hand format"),
    (("--players", "simple,random", "--preset", "arena", "--set", "players=3"),
     "--players: 3 seats need 3 names"),
    (("--players", "simple,random", "--matches", "0"), "--matches 0: play at least one"),
    (("--players", "simple,random", "--hands", "-2"), "--hands -2: play at least one"),
    (("--players", "simple,random", "--jobs", "0"), "--jobs 0: use at least one"),
    (("--players", "simple,random", "--budget-ms", "0"), "--budget-ms 0: the budget must be"),
    (("--players", "simple:fast,random"), "the budget after ':' must be a number"),
    (("--players", "simple,random", "--ray-address", "auto"), "--ray-address needs --backend"),
])
def test_bad_arguments(cli: Callable[..., CliRun], argv: tuple[str, ...], message: str) -> None:
    run = cli("tournament", *argv, "--no-progress")
    assert run.code == 2
    assert run.out == ""
    assert run.err.startswith("ginrummy tournament: error: ") and message in run.err
    assert run.err.count("\n") == 1


def test_matches_and_hands_exclude_each_other(cli: Callable[..., CliRun]) -> None:
    run = cli("tournament", "--players", "simple,random", "--matches", "2", "--hands", "2")
    assert run.code == 2 and "not allowed with argument" in run.err


def test_missing_ray_says_how_to_install(cli: Callable[..., CliRun],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    run = cli("tournament", "--players", "simple,random", "--matches", "1", "--backend", "ray")
    assert run.code == 2
    assert run.err.count("\n") == 1
    assert run.err.startswith("ginrummy tournament --backend ray needs the ray extra: ")
    assert "pip install 'ginrummy[ray]'" in run.err


def test_help_lists_the_options(cli: Callable[..., CliRun]) -> None:
    run = cli("tournament", "--help")
    assert run.code == 0
    for option in ("--players", "--matches", "--hands", "--jobs", "--backend", "--ray-address",
                   "--budget-ms", "--no-progress", "--json", "--preset", "--set"):
        assert option in run.out


def test_progress_bar_counts_games(monkeypatch: pytest.MonkeyPatch) -> None:
    from ginrummy.tournament import progress

    calls: list[int] = []

    class FakeProgress:  # stands for rich.progress.Progress
        def __init__(self, *columns: object, **options: object) -> None:
            assert options["transient"] is True

        def __enter__(self) -> FakeProgress:
            return self

        def __exit__(self, *exc: object) -> None:
            calls.append(-1)

        def add_task(self, description: str, total: int) -> int:
            calls.append(total)
            return 7

        def advance(self, task: int, games: int) -> None:
            assert task == 7
            calls.append(games)

    import rich.progress

    monkeypatch.setattr(rich.progress, "Progress", FakeProgress)
    with progress.progress_bar(10, "test") as advance:
        advance(3)
        advance(7)
    assert calls == [10, 3, 7, -1]
    with progress.progress_bar(10, "test", enabled=False) as advance:
        advance(3)
    assert calls == [10, 3, 7, -1]


@pytest.mark.parametrize("unit", ["--matches", "--hands"])
def test_record_writes_one_record_per_game(cli: Callable[..., CliRun], tmp_path: Path,
                                           unit: str) -> None:
    """Issue 29: ``tournament --record DIR`` saves every game (each deal in each seat
    rotation) as a game record, written by the worker process that played it; the records
    replay to the scores the tournament reports, and coach and verify read them."""
    directory = tmp_path / "games"
    data = _run(cli, "--players", "simple,random", "--preset", "eaai", unit, "2", "--seed",
                "3", "--jobs", "2", "--record", str(directory))
    names = sorted(p.name for p in directory.iterdir())
    assert names == [f"deal-0000{d}-rotation-{r}.ginrec.json" for d in (1, 2) for r in (0, 1)]
    for deal in data["deals"]:
        for game in deal["games"]:
            record = GameRecord.load(directory / (f"deal-{deal['deal'] + 1:05d}-rotation-"
                                                  f"{game['rotation']}.ginrec.json"))
            players = [data["settings"]["players"][p]["spec"] for p in game["seats"]]
            assert record.players == players
            assert list(record.replay_states())  # it replays
            if unit == "--matches":
                assert record.result is not None and len(record.hands) == game["hands"]
                assert list(record.result["totals"]) == [game["scores"][p]
                                                         for p in game["seats"]]
            else:
                assert len(record.hands) == 1
    first = directory / names[0]
    assert cli("replay", str(first)).code == 0
    coached = cli("coach", str(first), "--budget", "2", "--json")
    assert coached.code == 0 and json.loads(coached.out)["player"] in ("simple", "random")
    verified = cli("verify", str(first))
    assert verified.code == 1 and "no fair data" in verified.out
