"""``ginrummy play`` driven by piped input: whole matches to the final score, the record
written after every hand, and ``replay`` giving back the same result."""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from cli_helpers import Autopilot, Run

from ginrummy.actions import DRAW_DISCARD, Action, Discard
from ginrummy.bots import make_bot
from ginrummy.cards import parse_card, parse_card_list
from ginrummy.cli.play import PlaySession
from ginrummy.cli.render import Painter
from ginrummy.cli.turns import Screen
from ginrummy.match import Match
from ginrummy.records import GameRecord
from ginrummy.rules import Ruleset
from ginrummy.views import PlayerView


def _stdin(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(text))


def _replayed_result(path: Path) -> dict[str, object]:
    match = GameRecord.load(path).replay()
    assert match.result is not None
    return match.result.to_dict()


def test_enter_only_match_reaches_final_score(cli: Callable[..., Run], tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    # every answer is Enter: the default choice each time (draw, discard the suggested card,
    # accept the proposed layoffs, next hand)
    record = tmp_path / "game.ginrec.json"
    _stdin(monkeypatch, "\n" * 3000)
    run = cli("play", "--seed", "3", "--record", str(record))
    assert run.code == 0, run.err
    assert "Match over" in run.out
    assert "the match by" in run.out  # "You win" or "Bot 1 wins"
    assert "game bonus" in run.out and "line bonus" in run.out  # classic bonuses (R5.7)
    assert "Traceback" not in run.err
    data = json.loads(record.read_text())
    assert data["players"] == ["you", "simple"]
    assert data["result"] is not None
    assert _replayed_result(record) == data["result"]
    replay = cli("replay", str(record))
    assert replay.code == 0, replay.err
    margin = data["result"]["margin"]
    assert f"the match by {margin} points" in replay.out


def test_autopilot_match_knocks_and_replays(cli: Callable[..., Run], tmp_path: Path,
                                            autopilot: Autopilot) -> None:
    record = tmp_path / "game.ginrec.json"
    run = cli("play", "--seed", "11", "--record", str(record), "--preset", "eaai",
              "--ascii")
    assert run.code == 0, run.err
    session = autopilot.session
    assert session is not None and session.match.result is not None
    assert "Match over" in run.out
    assert "k" in autopilot.answers or "g" in autopilot.answers  # the human knocked
    assert any(p.startswith("Melds [1]") for p in autopilot.prompts)
    assert "♠" not in run.out and "\x1b[" not in run.out  # --ascii
    final = session.match.result.to_dict()
    assert _replayed_result(record) == final
    replay = cli("replay", str(record), "--verbose")
    assert replay.code == 0, replay.err
    assert f"by {final['margin']} points" in replay.out
    assert "You draw from the stock" in replay.out


def test_playok_target_oklahoma(cli: Callable[..., Run], tmp_path: Path,
                                autopilot: Autopilot) -> None:
    record = tmp_path / "ok.json"
    run = cli("play", "--preset", "playok", "--target", "40", "--oklahoma", "--seed", "5",
              "--record", str(record))
    assert run.code == 0, run.err
    data = json.loads(record.read_text())
    assert data["ruleset"]["options"]["target"] == 40
    assert data["ruleset"]["options"]["oklahoma_spades_double"] is True
    assert "take" in run.out  # dealer_first: the upcard is offered (R3.5)
    assert _replayed_result(record) == data["result"]


def test_three_players_single_hand_with_pool(cli: Callable[..., Run], tmp_path: Path,
                                             autopilot: Autopilot) -> None:
    record = tmp_path / "arena.json"
    run = cli("play", "--preset", "arena", "--players", "3", "--pool", "1000", "--seed", "2",
              "--record", str(record), "--opponent", "simple,random")
    assert run.code == 0, run.err
    assert "Game over" in run.out
    assert "payout" in run.out and "penalty" in run.out
    data = json.loads(record.read_text())
    assert data["players"] == ["you", "simple", "random"]
    assert sum(data["result"]["payouts"]) == 1000  # R6.4: the shares add up to the pool
    assert _replayed_result(record) == data["result"]


def test_quit_saves_partial_record(cli: Callable[..., Run], tmp_path: Path,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    record = tmp_path / "quit.json"
    _stdin(monkeypatch, "1\nq\nn\n1\nq\ny\n")
    run = cli("play", "--seed", "1", "--record", str(record))
    assert run.code == 0
    assert "Really quit" in run.out
    assert "You left the game (quit)" in run.out
    data = json.loads(record.read_text())
    assert data["result"] is None
    assert len(data["hands"][0]["actions"]) >= 2  # draw and discard were played
    replay = cli("replay", str(record))
    assert replay.code == 0
    assert "unfinished" in replay.out


def test_end_of_input_quits_cleanly(cli: Callable[..., Run], tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    _stdin(monkeypatch, "")
    run = cli("play", "--seed", "1", "--no-record")
    assert run.code == 0
    assert "end of input" in run.out
    assert not list(tmp_path.iterdir())


def test_default_record_name(cli: Callable[..., Run], tmp_path: Path,
                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _stdin(monkeypatch, "1\n")
    assert cli("play", "--seed", "1").code == 0
    (saved,) = tmp_path.glob("ginrummy-*.ginrec.json")
    assert GameRecord.load(saved).hands


def test_bad_input_is_reported_and_asked_again(cli: Callable[..., Run],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    # seed 3: the human draws first? whatever the phase, these answers are all refused
    _stdin(monkeypatch, "\n".join(["xyz", "9", "k", "discard", "h", "s", "1", "Zz", "k",
                                   "knock Kc [As 2s 3s]", "layoff 2s@1", "q", "y"]) + "\n")
    run = cli("play", "--seed", "3", "--no-record", "--sort", "rank")
    assert run.code == 0
    assert "Not understood: 'xyz'" in run.out
    assert "No choice 9 here." in run.out
    assert "How to play" in run.out
    assert "by suit" in run.out and "by rank" in run.out
    assert "You cannot knock now" in run.out
    assert "Traceback" not in run.out + run.err


def _deck(first: str, second: str, upcard: str, stock: str) -> list[int]:
    """A deck order (R2.3): ``first`` is the hand of the seat left of the dealer, then the
    upcard, then the stock from its top; the other cards follow in any order."""
    a, b = parse_card_list(first), parse_card_list(second)
    head = [c for pair in zip(a, b, strict=True) for c in pair]
    head += parse_card_list(upcard) + parse_card_list(stock)
    return head + [c for c in range(52) if c not in head]


def _session(answers: list[str], monkeypatch: pytest.MonkeyPatch, dealer: int,
             deck: list[int]) -> PlaySession:
    match = Match(Ruleset.preset("classic"), seed=0, first_dealer=dealer)
    match.start_hand(deck)
    session = PlaySession(match, [None, make_bot("simple", 1)], ["You", "Bot 1"],
                          ["you", "simple"], Screen(Painter(symbols=False)))
    feed = iter(answers)
    monkeypatch.setattr("builtins.input", lambda prompt="": next(feed))
    return session


def test_knock_with_typed_melds(monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    """R4.3: the knocker lays down the arrangement he chooses; above the limit it is refused."""
    deck = _deck("As 2s 3s 4s 7h 7d 7c 3c 2d Kh", "Qh Jh 9h 8c 8s Ts Td 6c 5c Kc", "Qd", "Ad")
    answers = ["1", "k", "[As 2s 3s]", "k", "[As 2s 3s] [7h 7d 7c]", "q", "y"]
    session = _session(answers, monkeypatch, 1, deck)
    assert session.run() == 0
    out = capsys.readouterr().out
    assert "deadwood 31 is above the knock limit 10" in out
    assert "(proposed)" in out and "[As 2s 3s 4s] [7h 7d 7c] | 3c 2d Ad = 6" in out
    knock = session.match.hands[0].knock
    assert knock is not None and knock.knocker == 0 and knock.discard == parse_card("Kh")
    assert knock.deadwood == 10
    assert len(knock.melds) == 2 and len(knock.melds[0]) == 3


def test_typed_layoffs(monkeypatch: pytest.MonkeyPatch,
                       capsys: pytest.CaptureFixture[str]) -> None:
    """R4.4: the defender may refuse the proposed layoffs and type his own."""
    deck = _deck("5h 6h 7h Ks Kd Kc 2c 3c As 9d", "8h 9h Kh 2s 3s 4s Jc Jd Js 5c", "Qs", "4d")
    answers = ["5c@1", "[2s 3s 4s] [Js Jd Jc] Kh@2", "q", "y"]
    session = _session(answers, monkeypatch, 0, deck)
    assert session.run() == 0
    out = capsys.readouterr().out
    assert "Bot 1 knocks, discarding 9d" in out
    assert "8h@1, 9h@1, Kh@2" in out  # the proposal: the run extended twice, the 4th king
    hand = session.match.hands[0]
    (defence,) = hand.defences
    assert defence.layoffs == ((parse_card("Kh"), 1),)
    assert defence.deadwood == 22  # 8h 9h 5c kept
    assert hand.result is not None and hand.result.winner == 1


def test_gin_through_the_menu(monkeypatch: pytest.MonkeyPatch,
                              capsys: pytest.CaptureFixture[str]) -> None:
    """R4.2: g is offered when a discard leaves no deadwood; nobody lays off on gin."""
    deck = _deck("As 2s 3s 7h 7d 7c Tc Jc Qc 5d", "Qh Jh 9h 8c 8s Ts Td 6c 5c Kd", "Qd", "Kc")
    session = _session(["1", "g", "", "q", "y"], monkeypatch, 1, deck)
    assert session.run() == 0
    out = capsys.readouterr().out
    assert "g) gin (discard 5d, gin)" in out
    assert "You go gin, discarding 5d" in out
    hand = session.match.hands[0]
    assert hand.result is not None and hand.result.outcome.value == "gin"
    assert hand.action_log_text()[-1].startswith("gin 5d")
    assert "gin bonus 20" in out
    defender = hand.result.deadwood[1]
    assert f"You score {defender + 20} = {defender} + 20." in out  # R5.1


def test_play_without_rich(cli: Callable[..., Run], monkeypatch: pytest.MonkeyPatch) -> None:
    """rich is an optional extra: without it play falls back to plain text."""
    for name in ("rich", "rich.console"):
        monkeypatch.setitem(__import__("sys").modules, name, None)
    _stdin(monkeypatch, "1\n1\nq\ny\n")
    run = cli("play", "--seed", "2", "--no-record")
    assert run.code == 0, run.err
    assert "You draw from the stock" in run.out
    assert "[bold" not in run.out  # no markup left in the text
    for command in (["analyze", "As 2s 3s"], ["simulate", "--hands", "3", "--seed", "1"],
                    ["rules", "classic"]):
        assert cli(*command).code == 0


def test_reshuffles_and_void_hands_are_recorded(cli: Callable[..., Run], tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """R4.7/R6.1: reshuffles are chance actions of the record; void hands are redealt."""
    record = tmp_path / "four.json"
    _stdin(monkeypatch, "\n" * 5000)
    run = cli("play", "--preset", "arena", "--players", "4", "--opponent", "random", "--seed",
              "1", "--record", str(record), "--ascii")
    assert run.code == 0, run.err
    assert "The discards are shuffled into a new stock." in run.out
    assert "Void hand" in run.out
    data = json.loads(record.read_text())
    assert any(a.startswith("reshuffle ") for h in data["hands"] for a in h["actions"])
    assert _replayed_result(record) == data["result"]


class _Taker:
    """Always takes the face-up card, never knocks: with a person who does the same, the
    hand never ends."""

    name = "taker"

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        if DRAW_DISCARD in legal:
            return DRAW_DISCARD
        return next(a for a in legal if isinstance(a, Discard))


def test_an_endless_hand_stops_the_game_and_saves(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str],
                                                  tmp_path: Path) -> None:
    """The terminal game plays through the capped loop: a person and a bot passing the same
    cards back and forth are stopped with a clear error, the record saved."""
    match = Match(Ruleset.preset("classic"), seed=4)
    record = tmp_path / "endless.json"
    session = PlaySession(match, [None, _Taker()], ["You", "Bot 1"], ["you", "taker"],
                          Screen(Painter(symbols=False)), record_path=record)
    session.cap = 30
    feed = iter(["t", ""] * 200)  # take the top discard, then discard the proposed card
    monkeypatch.setattr("builtins.input", lambda prompt="": next(feed))
    assert session.run() == 1
    out = capsys.readouterr().out
    assert "the hand did not end after 30 decisions" in out
    assert "Bot 1 takes" in out and "You take" in out
    (hand,) = GameRecord.load(record).hands
    assert len(hand["actions"]) == 30  # the 31st decision was never asked for
