"""``ginrummy simulate``: counts that add up, determinism from the seed, any table size."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from cli_helpers import Run

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
