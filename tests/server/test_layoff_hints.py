"""The knock and layoff hints of a seat's ``state`` (docs/protocol.md, docs/client.md): every
least-deadwood arrangement of a knock, and at the layoff step the deadwood of the best defence
and the defender's own cards that fit each knocker meld. Played on a server restored at a
chosen layoff step (tests/layoff_deal.py)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from server_helpers import Client, LiveServer, live_server

from ginrummy.actions import LayOff
from ginrummy.bots import make_bot
from ginrummy.cards import parse_card, parse_cards
from ginrummy.engine import Hand, Phase
from ginrummy.rules import Ruleset
from ginrummy.server.play.layoffhints import MAX_ARRANGEMENTS, knock_arrangements, layoff_hints
from ginrummy.solver import knock_options
from ginrummy.views import view
from layoff_deal import (
    DEADWOOD_AFTER,
    DEADWOOD_BEFORE,
    KNOCKER_MELDS,
    layoff_hand,
    seed_database,
)

TABLE = "layoffs1"
TOKEN = "ann-secret-token"


@pytest.fixture
def layoff_server(tmp_path: Path) -> Iterator[LiveServer]:
    """A server restored with the chosen deal at seat 0's layoff step."""
    seed_database(tmp_path / "test.db", {TABLE: (TOKEN, False)})
    with live_server(tmp_path) as server:
        yield server


def test_the_defender_is_told_what_fits_each_meld_and_the_best_deadwood(
        layoff_server: LiveServer) -> None:
    ann = Client.open(layoff_server, TABLE, TOKEN)
    state = ann.state
    assert state["view"]["phase"] == "layoff" and state["view"]["to_move"] == 0
    hints = state["hints"]
    assert hints["deadwood"] == DEADWOOD_BEFORE
    assert hints["defence"] == "layoff [Qs Qh Qd] Th@1 Jh@1 Kh@3"
    assert state["legal"] == [hints["defence"]]
    assert hints["defence_deadwood"] == DEADWOOD_AFTER
    assert hints["layoff_targets"] == [
        # the hearts run's upper end: Th, then Jh, Qh, Kh as long as the seat holds them
        {"meld": 1, "fourth": None, "low": [], "high": ["Th", "Jh", "Qh", "Kh"]},
        {"meld": 2, "fourth": None, "low": [], "high": []},  # 4h is not the seat's
        {"meld": 3, "fourth": "Kh", "low": [], "high": []},
    ]
    named = {c for t in hints["layoff_targets"] for c in [t["fourth"], *t["low"], *t["high"]]}
    assert named - {None} <= set(state["view"]["hand"])  # only the seat's own cards
    # a spectator gets no hints at all
    watcher = Client.open(layoff_server, TABLE)
    assert watcher.state["hints"] is None


def test_a_layoff_other_than_the_proposal_is_accepted(layoff_server: LiveServer) -> None:
    ann = Client.open(layoff_server, TABLE, TOKEN)
    version = ann.state["version"]
    ann.send({"type": "action", "id": "l1", "version": version,
              "action": "layoff [Qs Qd Qh] Th@1 Jh@1"})
    answer = ann.answer()
    assert answer["type"] == "state", answer
    view = answer["view"]
    assert view["phase"] == "over"
    [defence] = view["defences"]
    assert defence["layoffs"] == [["Th", 0], ["Jh", 0]]
    assert defence["deadwood"] == DEADWOOD_AFTER + 10  # Kh kept
    assert view["knock"]["melds"] == KNOCKER_MELDS
    assert "layoff_targets" not in answer["hints"]  # the hand is over: nothing to lay off


def test_a_layoff_that_does_not_fit_is_refused(layoff_server: LiveServer) -> None:
    ann = Client.open(layoff_server, TABLE, TOKEN)
    version = ann.state["version"]
    ann.send({"type": "action", "id": "l1", "version": version,
              "action": "layoff [Qs Qd Qh] Jh@1"})  # Jh only after Th
    answer = ann.answer()
    assert answer["type"] == "error"
    assert "Jh" in answer["message"] or "meld 1" in answer["message"]


def test_layoff_hints_follow_the_layoff_chain_rule() -> None:
    hand = layoff_hand()
    own = layoff_hints(hand, 0, hand.best_defence(0))
    assert own["layoff_targets"][0]["high"] == ["Th", "Jh", "Qh", "Kh"]
    # the same position where a defender may add only the card next to each end (R4.5)
    rules = Ruleset.preset("classic", layoff_chain="none")
    strict = Hand(rules, hand.dealer, hand.deck)
    for seat, action in hand.log:
        strict.apply(action, seat)
    hints = layoff_hints(strict, 0, strict.best_defence(0))
    assert hints["layoff_targets"][0]["high"] == ["Th"]
    assert hints["defence_deadwood"] == DEADWOOD_AFTER + 10  # Jh is kept now


def test_a_knock_lists_each_arrangement_of_the_same_deadwood() -> None:
    # the 8h goes in the run or in the set of eights: both leave Ad 2c 3c (6)
    hand = parse_cards("5h 6h 7h 8h 8d 8c 8s Ad 2c 3c Kd")
    [option] = knock_options(hand, 10)
    texts = knock_arrangements(option)
    assert texts == ["knock Kd [5h 6h 7h] [8s 8h 8d 8c]", "knock Kd [5h 6h 7h 8h] [8s 8d 8c]"]
    assert len(texts) <= MAX_ARRANGEMENTS
    # one way only: a single arrangement
    [single] = knock_options(parse_cards("As 2s 3s 7h 7d 7c 9c 9d 9h 2c Kd"), 5)
    assert knock_arrangements(single) == ["knock Kd [As 2s 3s] [7h 7d 7c] [9h 9d 9c]"]


def test_the_knock_hints_of_a_state_carry_the_arrangements() -> None:
    from ginrummy.server.play.messages import _hints

    hand = Hand(Ruleset.preset("classic"), 1, layoff_hand().deck)
    for seat, action in [(0, "stock"), (0, "discard 6d"), (1, "stock")]:
        hand.apply(action, seat)
    hints = _hints(hand, 1, {"deadwood": 0, "melds": [], "unmatched": []})
    [knock] = [k for k in hints["knocks"] if k["action"].startswith("knock Jc")]
    # a single way to meld these cards: the proposal alone
    assert knock["arrangements"] == [knock["action"]]
    assert knock["action"] == "knock Jc [4s 4d 4c] [7h 8h 9h] [Ks Kd Kc]"


def _layoff_steps(preset: str, seeds: range, **options: object) -> Iterator[Hand]:
    """Every layoff step of hands two to four ``simple`` bots play (seeded)."""
    rules = Ruleset.preset(preset, **options)  # type: ignore[arg-type]
    for seed in seeds:
        hand = Hand.deal(rules, seed % rules.players, seed=seed)
        bots = [make_bot("simple", seed * 4 + i) for i in range(rules.players)]
        chance = random.Random(seed)
        while not hand.over:
            if hand.to_move < 0:  # a reshuffle of the discards (arena)
                hand.apply(hand.reshuffle_order(chance))
                continue
            legal = hand.legal_actions()
            if hand.phase is Phase.LAYOFF:
                yield hand
            hand.apply(bots[hand.to_move].choose(view(hand, hand.to_move), legal))


@pytest.mark.parametrize(("preset", "options"), [
    ("classic", {}), ("arena", {}), ("arena", {"players": 4, "layoff_chain": "own"}),
])
def test_the_offered_cards_are_exactly_those_the_engine_lets_lay_off(
        preset: str, options: dict[str, object]) -> None:
    """At every layoff step (later defenders too, after others laid off): each card the hints
    name for a meld may be laid off there together with the cards before it on that end, and
    no other card of the hand may be laid off alone onto any meld."""
    steps = with_fits = after_others = 0
    for hand in _layoff_steps(preset, range(60), **options):
        seat = hand.to_move
        targets = layoff_hints(hand, seat, hand.best_defence(seat))["layoff_targets"]
        held = set(hand.hand_of(seat))
        named: set[int] = set()
        for target in targets:
            index = target["meld"] - 1
            for end in (target["low"], target["high"]):
                chain = [parse_card(c) for c in end]
                for k in range(len(chain)):
                    lay = LayOff((), tuple((c, index) for c in chain[:k + 1]))
                    assert hand.is_legal(lay), (str(lay), hand.knock, hand.laid_off)
                named |= set(chain)
            if target["fourth"] is not None:
                fourth = parse_card(target["fourth"])
                assert hand.is_legal(LayOff((), ((fourth, index),)))
                named.add(fourth)
        assert named <= held
        with_fits += bool(named)
        after_others += any(hand.laid_off)
        for card in held - named:
            for index in range(len(targets)):
                assert not hand.is_legal(LayOff((), ((card, index),))), (card, index)
        steps += 1
    assert steps >= 10 and with_fits >= 10  # enough positions, with cards that fit
    if options.get("players") == 4:
        assert after_others >= 10  # later defenders, after others laid off
