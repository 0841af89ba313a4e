"""``ginrummy coach``: the JSON schema, the table, the progress bar (on a terminal only, never
with ``--json``) and clear errors; its values are ``analyze --record``'s (the hint key's)."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import Run

from ginrummy.bots import make_bot
from ginrummy.cli import coach as coach_cli
from ginrummy.coach import KINDS
from ginrummy.gameloop import play_match
from ginrummy.records import GameRecord
from ginrummy.rules import Ruleset

BUDGET = "4"


@pytest.fixture
def record(tmp_path: Path) -> Path:
    """A one-hand match to 25 between two simple players."""
    rules = Ruleset.preset("classic", target=25)
    match = play_match(rules, [make_bot("simple", 3), make_bot("simple", 4)], seed=3)
    assert len(match.hands) == 1
    path = tmp_path / "game.ginrec.json"
    GameRecord.from_match(match, ["ann", "bob"]).save(path)
    return path


class Terminal(io.StringIO):
    """A stderr that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def _check_schema(data: dict[str, Any]) -> None:
    assert set(data) == {"seat", "player", "budget_ms", "seed", "finished", "capped",
                         "coached", "of", "decision_budget_ms", "max_decisions",
                         "not_analysed", "summary", "verdicts"}
    assert data["max_decisions"] is None and data["not_analysed"] == 0  # no cap here
    summary = data["summary"]
    assert set(summary) == {"decisions", "real", "counted", "accurate", "mistakes", "accuracy",
                            "turns", "accurate_turns", "turn_accuracy",
                            "mistake_errors", "accurate_within", "lost", "total_lost",
                            "lost_by_hand", "costliest"}
    # a turn (the draw and the discard together) is accurate when neither is a mistake
    assert summary["turns"] <= summary["counted"] <= summary["real"]
    assert summary["accurate_turns"] >= summary["turns"] - summary["mistakes"]
    assert list(summary["lost"]) == list(KINDS)
    assert 0 <= summary["accuracy"] <= 100
    assert summary["decisions"] == len(data["verdicts"]) > 0
    for c in summary["costliest"]:
        assert set(c) == {"hand", "move", "kind", "played", "best", "cost", "error", "reason"}
    for v in data["verdicts"]:
        assert set(v) == {"hand", "move", "seat", "phase", "kind", "cards", "top_discard",
                          "choices", "played", "played_value", "best", "best_value", "cost",
                          "error", "lost", "worlds", "settled", "forced", "mistake",
                          "accurate", "telling", "discard_pile", "reason"}
        assert (v["reason"] is not None) == v["mistake"]  # every mistake says why
        assert v["kind"] in KINDS and v["cost"] >= 0
        assert v["played"] in {c["action"] for c in v["choices"]}
        assert v["best"] == v["choices"][0]["action"]
        for c in v["choices"]:
            assert set(c) == {"action", "value", "error", "loss", "loss_error", "samples",
                              "note", "mistake"}
            assert isinstance(c["value"], float | int)
            assert c["value"] <= v["best_value"]
            assert c["samples"] == (v["worlds"] if not v["forced"] else 0) or \
                v["phase"] == "layoff"


def test_json_schema(cli: Callable[..., Run], record: Path) -> None:
    run = cli("coach", str(record), "--seat", "1", "--budget", BUDGET, "--seed", "2",
              "--json")
    assert run.code == 0, run.err
    data = json.loads(run.out)
    _check_schema(data)
    assert (data["seat"], data["player"], data["budget_ms"], data["seed"]) == (1, "bob", 4.0, 2)
    assert data["finished"] is True
    moves = json.loads(record.read_text())["hands"][0]["actions"]
    for v in data["verdicts"]:  # each verdict names the move played at that point
        assert v["played"].split()[0] == moves[v["move"] - 1].split()[0]


def test_values_match_analyze_record(cli: Callable[..., Run], record: Path) -> None:
    data = json.loads(cli("coach", str(record), "--budget", BUDGET, "--json").out)
    verdict = next(v for v in data["verdicts"] if v["phase"] == "discard")
    run = cli("analyze", "--record", str(record), "--hand", str(verdict["hand"]), "--move",
              str(verdict["move"]), "--budget", BUDGET, "--json")
    advice = json.loads(run.out)["advice"]
    assert [(a["action"], a["value"], a["error"]) for a in advice] == [
        (c["action"], c["value"], c["error"]) for c in verdict["choices"]]  # one evaluator
    assert verdict["best"] == advice[0]["action"]


def test_progress_bar_on_a_terminal_only_and_never_with_json(
        cli: Callable[..., Run], record: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    run = cli("coach", str(record), "--budget", BUDGET, "--json")
    assert run.code == 0
    assert terminal.getvalue() == ""  # --json: no bar even on a terminal
    json.loads(run.out)
    assert not coach_cli.progress_enabled(True, terminal)
    assert coach_cli.progress_enabled(False, terminal)
    assert not coach_cli.progress_enabled(False, io.StringIO())  # not a terminal
    run = cli("coach", str(record), "--budget", BUDGET)
    assert run.code == 0
    assert "coaching" in terminal.getvalue()  # the bar was drawn on the terminal
    assert "decisions" in terminal.getvalue()


def test_table_and_summary(cli: Callable[..., Run], record: Path) -> None:
    run = cli("coach", str(record), "--budget", BUDGET)
    assert run.code == 0, run.err
    assert "Coach for ann (seat 0)" in run.out
    assert "Accuracy:" in run.out and "Points lost: draw" in run.out
    assert "Turn accuracy:" in run.out
    assert "±" in run.out  # every value with its standard error
    data = json.loads(cli("coach", str(record), "--budget", BUDGET, "--json").out)
    mistakes = [v for v in data["verdicts"] if v["mistake"]]
    if mistakes:  # each mistake's reason in words after the table
        assert "Why each mistake cost points:" in run.out
        assert all(v["reason"]["text"] in " ".join(run.out.split()) for v in mistakes)
    assert run.err == ""  # captured stderr is not a terminal: no bar


def test_plain_text_report(record: Path) -> None:
    from ginrummy.coach import coach_record

    data = coach_record(GameRecord.load(record), 0, 4.0).to_dict()
    lines = coach_cli.report_lines(data)
    assert lines[0].startswith("Coach for ann (seat 0)")
    assert sum(1 for line in lines if " played " in line) == len(data["verdicts"])
    assert any(line.startswith("Accuracy: ") for line in lines)


def test_short_action_names() -> None:
    assert coach_cli.short_action("discard 7h") == "7h"
    assert coach_cli.short_action("knock 7s [3s 3d 3c] [5h 6h 7h]") == "knock 7s [...]"
    assert coach_cli.short_action("gin [As 2s 3s]") == "gin [...]"
    assert coach_cli.short_action("take") == "take"


@pytest.mark.parametrize(("extra", "message"), [
    (["--seat", "2"], "--seat 2: the record has seats 0 to 1"),
    (["--budget", "0"], "--budget 0: it must be a positive number of ms"),
])
def test_bad_arguments(cli: Callable[..., Run], record: Path, extra: list[str],
                       message: str) -> None:
    run = cli("coach", str(record), *extra)
    assert run.code == 2
    assert message in run.err


def test_bad_record(cli: Callable[..., Run], tmp_path: Path) -> None:
    missing = cli("coach", str(tmp_path / "none.ginrec.json"))
    assert missing.code == 2 and "cannot read" in missing.err
    bad = tmp_path / "bad.ginrec.json"
    bad.write_text('{"format": "other"}')
    run = cli("coach", str(bad))
    assert run.code == 2 and "not a ginrummy record" in run.err
