"""The two parts of a view (``ginrummy.views``): one shared part per state, one own part per
viewer, and the view bots receive made of exactly those."""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle
import random

import pytest

from ginrummy.bots import make_bot
from ginrummy.cards import card_name
from ginrummy.engine import CHANCE
from ginrummy.match import Match
from ginrummy.rules import Ruleset
from ginrummy.server.play.viewcache import ViewCache
from ginrummy.views import OwnView, PlayerView, SharedView, own_view, shared_view, view
from helpers import make_hand, play

CLASSIC = Ruleset.preset("classic")
HANDS = {0: "7h 8h 9h Th Qs Qd Qc As 2d 3c", 1: "5c 6c 7c 9s 9d 9c Jh 6h 4s 4d"}
VIEW_KEYS = ["seat", "ruleset", "phase", "to_move", "dealer", "hand", "seats", "upcard",
             "top_discard", "discard_pile", "stock_size", "knock_limit", "taken", "reshuffles",
             "knock", "defences", "laid_off", "result", "log", "scores", "hands_won",
             "hand_number"]


def _states(preset: str, players: int, seed: int) -> list[Match]:
    """Snapshots of a whole match between simple bots, one after every action."""
    rules = Ruleset.preset(preset, players=players)
    if rules.format.value == "match":
        rules = rules.replace(target=60)
    match = Match(rules, seed=seed, pool_cents=100 if players > 2 else None)
    rng = random.Random(seed)
    bots = [make_bot("simple", seed + s) for s in range(players)]
    states = []
    while not match.over:
        if match.needs_deal:
            match.start_hand()
        hand = match.hand
        if hand.to_move == CHANCE:
            match.apply(hand.reshuffle_order(rng))
        elif not hand.over:
            match.apply(bots[hand.to_move].choose(view(match, hand.to_move),
                                                  hand.legal_actions()))
        states.append(copy.deepcopy(match))
    return states


@pytest.mark.parametrize(("preset", "players", "seed"),
                         [("classic", 2, 1), ("arena", 3, 2), ("arena", 4, 3)])
def test_every_viewer_gets_the_one_shared_part_and_its_own(preset: str, players: int,
                                                           seed: int) -> None:
    for match in _states(preset, players, seed):
        shared = shared_view(match)
        shared_json = shared.to_dict()
        before = json.dumps(shared_json)
        for seat in [None, *range(players)]:
            v = view(match, seat)
            assert v.shared == shared and v.own == own_view(match.hand, seat)
            data = v.own.to_dict(shared, shared_json)
            assert json.dumps(data) == json.dumps(v.to_dict())
            assert list(data) == VIEW_KEYS
        assert json.dumps(shared_json) == before  # filling in a viewer leaves it unchanged


def test_the_shared_part_is_the_spectators_view_without_its_log() -> None:
    hand = make_hand(CLASSIC, HANDS, stock="Kc")
    play(hand, "stock")
    spectator = view(hand, None).to_dict()
    assert shared_view(hand).to_dict() == {**spectator, "log": []}
    text = json.dumps(shared_view(hand).to_dict())
    held = hand.hands[0] | hand.hands[1]
    for card in range(52):
        if held >> card & 1 or card in hand.stock:
            assert f'"{card_name(card)}"' not in text
    play(hand, "knock Kc [7h 8h 9h Th] [Qs Qd Qc]")  # R4.8: now every hand is public
    seats = shared_view(hand).to_dict()["seats"]
    assert [len(s["cards"]) for s in seats] == [10, 10]


def test_a_player_view_shows_the_fields_of_its_parts() -> None:
    hand = make_hand(CLASSIC, HANDS, stock="Kc")
    play(hand, "take")
    v = view(hand, 1)
    assert set(PlayerView._fields) == set(SharedView.__slots__) | set(OwnView.__slots__)
    declared = {**SharedView.__annotations__, **OwnView.__annotations__}
    assert {name: PlayerView.__annotations__[name] for name in declared} == declared
    for name in SharedView.__slots__:
        assert getattr(v, name) == getattr(v.shared, name), name
    for name in OwnView.__slots__:
        assert getattr(v, name) == getattr(v.own, name), name
    assert view(hand, 1) == v and hash(view(hand, 1)) == hash(v) and view(hand, 0) != v
    assert PlayerView.of(v.shared, v.own) == v
    assert pickle.loads(pickle.dumps(v)) == v and copy.deepcopy(v) == v  # to worker processes


def test_replace_changes_the_right_part() -> None:
    v = view(make_hand(CLASSIC, HANDS), 0)
    w = v._replace(scores=(95, 20), hand_mask=7)
    assert w.scores == (95, 20) and w.hand_mask == 7 and w.shared.scores == (95, 20)
    assert v.scores is None and v.hand_mask == make_hand(CLASSIC, HANDS).hands[0]
    with pytest.raises(TypeError):
        v._replace(no_such_field=1)


def test_the_parts_are_built_by_keyword_only() -> None:
    own = own_view(make_hand(CLASSIC, HANDS), 0)
    with pytest.raises(TypeError):
        OwnView(0, own.hand_mask, own.log)  # type: ignore[misc]
    assert OwnView(seat=0, hand_mask=own.hand_mask, log=own.log) == own
    shared = shared_view(make_hand(CLASSIC, HANDS))
    assert SharedView(**{f.name: getattr(shared, f.name)
                         for f in dataclasses.fields(SharedView)}) == shared


def test_a_bad_seat_is_refused_by_the_own_part() -> None:
    hand = make_hand(CLASSIC, HANDS)
    match = Match(CLASSIC, seed=1)
    match.start_hand()
    for seat in (-1, 2):
        with pytest.raises(ValueError, match="seat"):
            own_view(hand, seat)
        with pytest.raises(ValueError, match="seat"):
            ViewCache().view_dict(match, seat, 1)
