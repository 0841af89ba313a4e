"""The one game loop (``ginrummy.gameloop``): seats see their own views, chance reshuffles,
``on_decision`` sees every decision, and the decision cap stops an endless hand wherever hands
are played (``play_hand``, ``play_match``, ``simulate``, the tournament)."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from ginrummy.actions import Action
from ginrummy.bots import BOTS, make_bot
from ginrummy.cli.main import main
from ginrummy.cli.simulate import simulate
from ginrummy.engine import CHANCE, Hand
from ginrummy.gameloop import (
    MAX_DECISIONS,
    EndlessHand,
    Stats,
    check_cap,
    decide,
    decisions_made,
    play_hand,
    play_match,
    reshuffles_from,
)
from ginrummy.match import Match
from ginrummy.rules import Ruleset
from ginrummy.tournament import TournamentConfig, core, play_deal
from ginrummy.views import PlayerView
from helpers import Swapper

EAAI = Ruleset.preset("eaai")
CAP = 40


class Recorder:
    """Plays like the simple bot and remembers every view it was shown."""

    name = "recorder"

    def __init__(self, seed: int) -> None:
        self.bot = make_bot("simple", seed)
        self.seen: list[tuple[PlayerView, list[Action]]] = []

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        self.seen.append((view, list(legal)))
        return self.bot.choose(view, legal)


def _decisions(hand: Hand) -> list[tuple[int, Action]]:
    return [(seat, action) for seat, action in hand.log if seat != CHANCE]


def test_on_decision_sees_every_decision_after_it_is_played() -> None:
    rules = Ruleset.preset("arena", players=4)
    for seed in range(3):
        match = Match(rules, seed=seed)
        match.start_hand()
        seen: list[tuple[int, Action, float]] = []

        def told(state: Hand | Match, seat: int, action: Action, seconds: float,
                 match: Match = match, seen: list[tuple[int, Action, float]] = seen) -> None:
            assert state is match
            assert match.hand.log[-1] == (seat, action)  # already applied
            seen.append((seat, action, seconds))

        bots = [make_bot("random", seed * 10 + s) for s in range(4)]
        hand = play_hand(match, bots, reshuffles_from(match.rng), told)
        assert hand.over and match.hand is hand
        assert [(s, a) for s, a, _ in seen] == _decisions(hand) != []
        assert all(seconds >= 0 for _, _, seconds in seen)
        assert decisions_made(hand) == len(seen)


def test_the_callback_does_not_change_the_game() -> None:
    def log(told: bool) -> list[tuple[int, Action]]:
        hand = Hand.deal(EAAI, dealer=1, seed=5)
        bots = [make_bot("intermediate", 1), make_bot("simple", 2)]
        play_hand(hand, bots, reshuffles_from(random.Random(3)),
                  (lambda *_: None) if told else None)
        return hand.log

    assert log(True) == log(False)


def test_seats_see_only_their_own_view_and_the_legal_actions() -> None:
    hand = Hand.deal(EAAI, dealer=0, seed=11)
    seats = [Recorder(1), Recorder(2)]
    play_hand(hand, seats, reshuffles_from(random.Random(0)))
    for number, seat in enumerate(seats):
        assert seat.seen and all(v.seat == number for v, _ in seat.seen)
        assert all(legal for _, legal in seat.seen)
    fresh = Hand.deal(EAAI, dealer=0, seed=11)
    recorder = Recorder(1)
    assert decide(fresh, recorder, fresh.to_move) in fresh.legal_actions()
    ((shown, legal),) = recorder.seen
    assert shown.seat == fresh.to_move and legal == fresh.legal_actions()


def test_chance_is_asked_for_each_reshuffle_in_turn() -> None:
    rules = Ruleset.preset("arena", players=4)
    asked: list[int] = []
    rng = random.Random(2)

    def chance(hand: Hand) -> random.Random:
        asked.append(hand.reshuffles)
        return rng

    for seed in range(6):
        hand = Hand.deal(rules, dealer=0, seed=seed)
        start = len(asked)
        play_hand(hand, [make_bot("random", s) for s in range(4)], chance)
        assert asked[start:] == list(range(hand.reshuffles))
    assert asked, "no reshuffle in six hands of random players"


def test_the_cap_counts_decisions_only() -> None:
    rules = Ruleset.preset("arena", players=4)
    hand = Hand.deal(rules, dealer=0, seed=3)
    play_hand(hand, [make_bot("random", s) for s in range(4)], reshuffles_from(random.Random(1)))
    made = decisions_made(hand)
    assert hand.reshuffles and len(hand.log) > made  # chance entries are not decisions

    def again(cap: int) -> Hand:
        replay = Hand.deal(rules, dealer=0, seed=3)
        bots = [make_bot("random", s) for s in range(4)]
        return play_hand(replay, bots, reshuffles_from(random.Random(1)), None, cap)

    assert again(made).log == hand.log
    with pytest.raises(EndlessHand, match=f"did not end after {made - 1} decisions"):
        again(made - 1)
    check_cap(hand, MAX_DECISIONS)
    with pytest.raises(EndlessHand):
        check_cap(hand, 11, cap=10)


def test_two_swappers_hit_the_cap_in_play_hand_and_play_match() -> None:
    hand = Hand.deal(EAAI, dealer=0, seed=1)
    seen: list[int] = []
    with pytest.raises(EndlessHand, match=f"did not end after {CAP} decisions") as caught:
        play_hand(hand, [Swapper(), Swapper()], reshuffles_from(random.Random(1)),
                  lambda state, seat, action, seconds: seen.append(seat), CAP)
    assert "last discards" in str(caught.value)
    assert len(seen) == decisions_made(hand) == CAP  # the next decision was never asked for
    stats = Stats()
    with pytest.raises(EndlessHand, match=f"did not end after {CAP} decisions"):
        play_match(EAAI, [Swapper(), Swapper()], seed=2, stats=stats, cap=CAP)
    assert stats.hands == 0


def test_two_swappers_hit_the_cap_in_simulate(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(BOTS, "swapper", Swapper)
    with pytest.raises(EndlessHand, match=f"did not end after {CAP} decisions"):
        simulate(EAAI, ["swapper", "swapper"], 3, seed=1, cap=CAP)
    assert simulate(EAAI, ["simple", "simple"], 3, seed=1, cap=CAP * 10)["hands"] == 3


def test_two_swappers_hit_the_cap_in_the_tournament(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(BOTS, "swapper", Swapper)
    monkeypatch.setattr(core, "MAX_DECISIONS", CAP)
    assert core.EndlessHand is EndlessHand
    config = TournamentConfig(("swapper", "swapper"), EAAI, deals=1, seed=4)
    with pytest.raises(EndlessHand, match=f"did not end after {CAP} decisions"):
        play_deal(config, 0)


def test_play_hand_and_play_match_refuse_the_wrong_number_of_seats() -> None:
    with pytest.raises(ValueError, match="2 seats needed"):
        play_hand(Hand.deal(EAAI, seed=1), [Swapper()], reshuffles_from(random.Random(1)))
    with pytest.raises(ValueError, match="2 players needed"):
        play_match(EAAI, [Swapper()], seed=1)


@pytest.mark.parametrize("command", ["simulate", "tournament"])
def test_the_commands_report_an_endless_hand(command: str, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(BOTS, "swapper", Swapper)
    monkeypatch.setattr(core, "MAX_DECISIONS", CAP)
    count = "--hands" if command == "simulate" else "--matches"
    code = main([command, "--players", "swapper,swapper", count, "1", "--seed", "4",
                 "--preset", "eaai"])
    err = capsys.readouterr().err
    assert code == 1
    cap = MAX_DECISIONS if command == "simulate" else CAP
    assert f"ginrummy {command}: error: the hand did not end after {cap} decisions" in err
    if command == "tournament":
        assert "deal 0, rotation 0, hand 0" in err
