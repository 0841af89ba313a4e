"""``ginrummy replay``: a record replays to its stored results; a bad or inconsistent record
fails with one clear message and exit status 2."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import Run

from ginrummy.bots import make_bot
from ginrummy.gameloop import play_match
from ginrummy.records import GameRecord
from ginrummy.rules import Ruleset


@pytest.fixture
def record(tmp_path: Path) -> dict[str, Any]:
    """A whole classic match between two simple bots, as JSON."""
    match = play_match(Ruleset.preset("classic", target=60),
                       [make_bot("simple", 1), make_bot("simple", 2)], seed=4)
    data: dict[str, Any] = GameRecord.from_match(match, ["north", "south"]).to_json()
    assert data["result"] is not None
    return data


def _write(tmp_path: Path, data: Any) -> str:
    path = tmp_path / "game.ginrec.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


def test_replay_prints_each_hand_and_the_result(cli: Callable[..., Run], tmp_path: Path,
                                                record: dict[str, Any]) -> None:
    run = cli("replay", _write(tmp_path, record))
    assert run.code == 0, run.err
    assert run.out.count("== Hand ") == len(record["hands"])
    winner = ["North", "South"][record["result"]["winner"]]
    assert f"{winner} wins the match by {record['result']['margin']} points." in run.out
    assert "Players: North, South" in run.out
    for hand in record["hands"]:
        if hand["result"]["outcome"] != "void":
            assert f"scores {max(hand['result']['points'])} = " in run.out


def test_verbose_prints_every_action(cli: Callable[..., Run], tmp_path: Path,
                                     record: dict[str, Any]) -> None:
    run = cli("replay", _write(tmp_path, record), "--verbose")
    assert run.code == 0
    actions = sum(len(h["actions"]) for h in record["hands"])
    assert sum(1 for line in run.out.splitlines() if line[:7].strip().rstrip(".").isdigit()) \
        == actions
    assert "upcard" in run.out
    assert "draws from the stock (" in run.out  # a replay shows every card


def _corrupt(record: dict[str, Any], how: str) -> Any:
    data = json.loads(json.dumps(record))
    hand = data["hands"][0]
    if how == "action":
        hand["actions"][1] = "discard " + hand["deck"].split()[1]  # a card of the other seat
    elif how == "garbled":
        hand["actions"][0] = "fly away"
    elif how == "hand result":
        hand["result"]["points"] = [p + 1 for p in hand["result"]["points"]]
    elif how == "match result":
        data["result"]["margin"] += 1
    elif how == "deck":
        hand["deck"] = " ".join(hand["deck"].split()[:-1])
    elif how == "dealer":
        hand["dealer"] = 1 - hand["dealer"]
    elif how == "option":
        data["ruleset"]["options"]["knock_limit"] = 99
    elif how == "format":
        data["format"] = "pgn"
    elif how == "no hands":
        data["hands"] = []
        data["result"] = None
    elif how == "not json":
        return json.dumps(data)[:-40]
    return data


@pytest.mark.parametrize(
    ("how", "message"),
    [
        ("action", "hand 1, action 2"),
        ("garbled", "unknown action 'fly'"),
        ("hand result", "hand 1: stored result differs"),
        ("match result", "stored match result differs"),
        ("deck", "hand 1: bad deal"),
        ("dealer", "hand 1: dealer"),
        ("option", "knock_limit"),
        ("format", "not a ginrummy record"),
        ("no hands", "holds no hand"),
        ("not json", "is not JSON"),
    ],
)
def test_corrupted_record_fails_cleanly(cli: Callable[..., Run], tmp_path: Path,
                                        record: dict[str, Any], how: str, message: str) -> None:
    run = cli("replay", _write(tmp_path, _corrupt(record, how)))
    assert run.code == 2
    assert message in run.err
    assert run.err.startswith("ginrummy replay: error:")
    assert "Traceback" not in run.err


def test_unfinished_record(cli: Callable[..., Run], tmp_path: Path,
                           record: dict[str, Any]) -> None:
    record["result"] = None
    record["hands"] = record["hands"][:1]
    del record["hands"][0]["result"]
    record["hands"][0]["actions"] = record["hands"][0]["actions"][:4]
    run = cli("replay", _write(tmp_path, record))
    assert run.code == 0, run.err
    assert "unfinished" in run.out
    assert "ends before the match is decided" in run.out
