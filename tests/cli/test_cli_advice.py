"""The advisor in the command line: ``analyze --record`` on a position of a game record, and
the hint key (``?`` / ``hint``) of ``ginrummy play``."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_helpers import Run

from ginrummy.actions import DrawDiscard, Pass
from ginrummy.bots import make_bot
from ginrummy.bots.evaluate import evaluate
from ginrummy.cli import play as play_module
from ginrummy.cli.render import Painter
from ginrummy.cli.turns import Screen, TurnDialogs, hint_lines
from ginrummy.engine import Hand, Phase
from ginrummy.gameloop import play_match
from ginrummy.match import Match
from ginrummy.records import GameRecord
from ginrummy.rules import Ruleset
from ginrummy.views import view

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
    assert "Every choice, best first" in text.out and "1) " in text.out
    values = [a["value"] for a in out["advice"]]
    assert values[0] == max(values)  # the best is the highest valued
    assert {a["samples"] for a in out["advice"]} == {out["worlds"]}  # the same worlds
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
    assert run.out.count("Hint: the best is") == 2
    hint = run.out.split("Hint: the best is", 1)[1].splitlines()
    assert hint[1].lstrip().startswith("1) ")  # the menu's numbers, in its order
    assert hint[2].lstrip().startswith("2) ")
    assert hint[1].split()[1] == "stock" and hint[2].split()[1] == "take"  # as the menu
    assert "Traceback" not in run.out + run.err


@pytest.mark.parametrize("seed", range(6))
def test_the_hint_at_the_upcard_offer_uses_the_menus_numbers(seed: int) -> None:
    """Issue 29: at a first-turn upcard offer the menu's 1 is "take"; the hint's 1 must be
    "take" too, its values listed in the menu's order, and the number it names as the best
    must give the best move when typed."""
    hand = Hand.deal(Ruleset.preset("eaai"), dealer=1, seed=seed)
    assert hand.phase is Phase.OFFER and hand.to_move == 0
    v, legal = view(hand, 0), hand.legal_actions()
    screen = Screen(Painter(symbols=False), None)
    dialogs = TurnDialogs(screen, hand.rules, ["you", "bot"], lambda _prompt: "")
    menu = dialogs.menu(v)
    assert menu.keys == {"1": DrawDiscard(), "2": Pass()}
    evaluated = evaluate(v, legal, 20.0, 0)
    lines = hint_lines(Painter(symbols=False), menu, evaluated, 20.0)
    rows = [line.split() for line in lines[1:]]
    assert [r[0] for r in rows] == ["1)", "2)"] and [r[1] for r in rows] == ["take", "pass"]
    values = {r[1]: float(r[2]) for r in rows}
    best_key = lines[0].split("the best is ", 1)[1].split(")")[0]
    typed = dialogs.interpret(v, menu, best_key)
    assert typed == evaluated.best.action
    assert values[str(typed)] == max(values.values())  # the best is the highest valued
    best_row = next(r for r in rows if r[0] == f"{best_key})")
    assert "best" in best_row
