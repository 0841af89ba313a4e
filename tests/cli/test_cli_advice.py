"""The advisor in the command line: ``analyze --record`` on a position of a game record, and
the hint key (``?`` / ``hint``) of ``ginrummy play``."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_helpers import Run

from ginrummy.bots import make_bot
from ginrummy.cli import play as play_module
from ginrummy.gameloop import play_match
from ginrummy.match import Match
from ginrummy.records import GameRecord
from ginrummy.rules import Ruleset

BUDGET = "5"


@pytest.fixture
def record(tmp_path: Path) -> Path:
    rules = Ruleset.preset("eaai", target=40)
    match = play_match(rules, [make_bot("simple", 1), make_bot("beginner", 2)],
                       match=Match(rules, seed=8))
    path = tmp_path / "game.ginrec.json"
    GameRecord.from_match(match, ["simple", "beginner"]).save(path)
    return path


def test_advice_at_a_record_position(cli: Callable[..., Run], record: Path) -> None:
    data = json.loads(record.read_text())
    actions = data["hands"][0]["actions"]
    # the position before move 4 of hand 1: a draw or a discard, advised from that seat's view
    run = cli("analyze", "--record", str(record), "--hand", "1", "--move", "4", "--budget",
              BUDGET, "--json")
    assert run.code == 0, run.err
    out = json.loads(run.out)
    assert out["hand"] == 1 and out["move"] == 4
    assert out["played"] == actions[3]
    assert out["advice"] and all({"action", "value", "samples"} <= set(a)
                                 for a in out["advice"])
    n = len(out["cards"])
    assert n in (10, 11)
    text = cli("analyze", "--record", str(record), "--hand", "1", "--move", "4", "--budget",
               BUDGET)
    assert text.code == 0
    assert "Expert advice" in text.out and "1) " in text.out
    assert f"Played in the game: {actions[3]}" in text.out


def test_advice_defaults_to_the_last_decision(cli: Callable[..., Run], record: Path) -> None:
    data = json.loads(record.read_text())
    last = data["hands"][-1]["actions"]
    out = json.loads(cli("analyze", "--record", str(record), "--budget", BUDGET,
                         "--json").out)
    assert out["hand"] == len(data["hands"])
    assert out["move"] == len(last) and out["played"] == last[-1]


def test_advice_is_the_same_for_the_same_seed(cli: Callable[..., Run], record: Path) -> None:
    args = ("analyze", "--record", str(record), "--move", "2", "--budget", BUDGET, "--json")
    assert json.loads(cli(*args).out)["advice"] == json.loads(cli(*args).out)["advice"]


@pytest.mark.parametrize(("args", "message"), [
    (("--hand", "99"), "--hand 99: the record has hands 1 to"),
    (("--hand", "1", "--move", "999"), "--move 999: hand 1 has moves 1 to"),
    (("--hand", "1", "--move", "0"), "--move 0"),
    (("--budget", "0"), "--budget 0"),
])
def test_bad_positions(cli: Callable[..., Run], record: Path, args: tuple[str, ...],
                       message: str) -> None:
    run = cli("analyze", "--record", str(record), *args)
    assert run.code == 2
    assert message in run.err
    assert "Traceback" not in run.err


def test_cards_and_record_conflict(cli: Callable[..., Run], record: Path,
                                   tmp_path: Path) -> None:
    run = cli("analyze", "As 2s 3s", "--record", str(record))
    assert run.code == 2 and "not both" in run.err
    run = cli("analyze", "As 2s 3s", "--move", "3")
    assert run.code == 2 and "--move needs --record" in run.err
    run = cli("analyze")
    assert run.code == 2 and "no cards given" in run.err
    missing = cli("analyze", "--record", str(tmp_path / "nope.json"))
    assert missing.code == 2 and "cannot read" in missing.err


def test_hint_key_in_play(cli: Callable[..., Run], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(play_module, "HINT_BUDGET_MS", 5.0)
    monkeypatch.setattr("sys.stdin", io.StringIO("h\n?\nhint\nq\ny\n"))
    run = cli("play", "--seed", "3", "--no-record", "--preset", "eaai", "--ascii")
    assert run.code == 0, run.err
    assert "?, hint" in run.out  # listed in the help
    assert run.out.count("Hint (the expert's estimate") == 2
    hint = run.out.split("Hint (the expert's estimate", 1)[1].splitlines()
    assert hint[1].lstrip().startswith("1) ")
    first = hint[1].split()[1]
    assert first in ("take", "pass", "stock")  # the human's first decision is a draw/offer
    assert "Traceback" not in run.out + run.err
