"""Protocol 3's deltas (docs/protocol.md, *Deltas*): a client that applies every delta to its
last state has, at every step, the state the server would have sent whole, byte for byte,
for every seat and a spectator; and no delta names a card its recipient may not know.

The games are driven on a :class:`GameTable` in memory through its stored events (no server,
no database), with seeded deals and a seeded policy, over the four presets (three and four
players in ``arena``): stock ends (reshuffles and void hands), knocks, gins, layoffs, match
ends and rematches, resignations, and the changes that take no version (a seat connecting,
the turn clock, the pause between hands).
"""

from __future__ import annotations

import itertools
import json
import os
import random
import re
from typing import Any

import orjson
import pytest
from server_helpers import hidden_cards

from ginrummy.actions import Action, DrawStock, Knock
from ginrummy.bots import Bot, make_bot
from ginrummy.cards import CARD_NAMES, format_cards
from ginrummy.engine import CHANCE, Hand, deal_order
from ginrummy.match import Match
from ginrummy.rules import Ruleset
from ginrummy.server.core.delta import (
    DeltaError,
    apply_delta,
    delta_base,
    shared_changes,
    state_delta,
)
from ginrummy.server.core.jsontext import dumps
from ginrummy.server.play.table import GameTable, Seat, table_rules
from ginrummy.server.play.viewcache import ViewCache
from ginrummy.storage import StoredEvent
from ginrummy.views import VIEWER_KEYS, view

NOW = 1_800_000_000.0


def _table(preset: str, players: int, target: int | None) -> GameTable:
    rules = Ruleset.preset(preset, **({"players": players} if players != 2 else {}))
    if target is not None and rules.format.value == "match":
        rules = rules.replace(target=target)
    seats = [Seat(s, "human", f"p{s}", None, f"h{s}") for s in range(players)]
    for seat in seats:
        seat.connections = 1
    return GameTable("t", "", preset, table_rules(rules), True, None, 30_000, None, seats)


def _choose(state: dict[str, Any], rng: random.Random, greedy: bool) -> str:
    """Gin or knock at once and discard deadwood when ``greedy`` (short hands); else mostly
    at random (long hands that run the stock out)."""
    legal: list[str] = state["legal"]
    if greedy or rng.random() < 0.3:
        for action in legal:
            if action.startswith(("gin", "knock", "layoff")):
                return action
    if "stock" in legal and rng.random() < 0.8:  # taking back and forth never ends a hand
        return "stock"
    unmatched = {f"discard {card}" for card in state["hints"]["unmatched"]}
    discards = [a for a in legal if a in unmatched]
    if greedy and discards:
        return max(discards, key=lambda a: "A23456789TJQK".index(a[-2]))
    return rng.choice(legal)


def _step(table: GameTable, rng: random.Random, greedy: bool) -> bool:
    """Apply the table's next event (or a change that takes no version); ``False`` once the
    table's second match is over."""
    version = table.version + 1
    match = table.match
    roll = rng.random()
    if roll < 0.05:  # a seat's connections come and go: only the table entry changes
        seat = rng.choice(table.seats)
        seat.connections = 1 - seat.connections
        return True
    if match is None or match.over:
        if match is not None and table.messages.last is not None and rng.random() < 0.4:
            return False
        first = json.dumps({"first_dealer": rng.randrange(table.rules.players)})
        table.apply_event(StoredEvent(version, "match", first))
        return True
    if match.needs_deal:
        if table.next_deal_at is None:  # the pause between hands, shown before the deal
            table.next_deal_at = NOW + 20
            return True
        table.next_deal_at = None
        table.apply_event(StoredEvent(version, "deal", format_cards(deal_order(rng=rng))))
        return True
    hand = match.hand
    if hand.to_move == CHANCE:
        action = str(hand.reshuffle_order(rng))
        table.apply_event(StoredEvent(version, "action", action, CHANCE, "chance"))
        return True
    quitter = rng.randrange(table.rules.players)
    if roll < 0.003 and quitter not in table.resigned:  # somebody gives up
        table.apply_event(table.resign_event(quitter))
        return True
    table.clock_seat, table.clock_deadline = hand.to_move, NOW + rng.randrange(1, 30)
    state = dict(table.state_message(hand.to_move, NOW))
    if not state["legal"]:  # a resigned seat, which the computer plays
        state["legal"] = [str(a) for a in hand.legal_actions()]
    table.apply_event(StoredEvent(version, "action", _choose(state, rng, greedy),
                                  hand.to_move, "human", f"c{version}"))
    return True


def _play(preset: str, players: int, seed: int, steps: int) -> dict[str, int]:
    """Two matches (or lone hands) on one table, at most ``steps`` steps; every state
    checked. Returns what was seen."""
    rng = random.Random(seed)
    table = _table(preset, players, rng.choice([None, 20, 40]))
    recipients = [None, *range(players)]
    states: dict[int | None, dict[str, Any]] = {}
    bases: dict[int | None, int] = {}  # each recipient's base: the broadcast or its own state
    counts = {"deltas": 0, "steps": 0, "knocks": 0, "stock_ends": 0, "matches": 0,
              "short_legal": 0, "splices": 0, "paths": 0}
    greedy = rng.random() < 0.7
    ended: set[int] = set()
    while counts["steps"] < steps and _step(table, rng, greedy):
        counts["steps"] += 1
        if rng.random() < 0.05:  # a state sent to one recipient alone (resync, a newcomer)
            seat = rng.choice(recipients)
            alone, bases[seat] = table.messages.state_alone(table, seat, NOW - 1)
            states[seat] = orjson.loads(dumps(alone))
            if rng.random() < 0.5:
                continue  # no broadcast before the next change
        full, deltas = table.broadcast_texts(recipients, bases.items(), NOW)
        for seat in recipients:
            text = deltas.get((seat, bases.get(seat, -1)), full[seat])
            message = orjson.loads(text)
            if message["type"] == "delta":
                rebuilt = apply_delta(states[seat], message)
                assert dumps(rebuilt) == full[seat], f"seat {seat}, version {table.version}"
                counts["deltas"] += 1
                changes = [*message, *(message.get("view") or {})]
                counts["short_legal"] += isinstance(message.get("legal"), dict)
                counts["splices"] += any(path.endswith("~") for path in changes)
                counts["paths"] += any("." in path for path in changes)
                check_no_leak(table.hand, seat, text)
                states[seat] = rebuilt
            else:
                assert text == full[seat] and seat not in states  # only the first
                states[seat] = message
            assert table.messages.last is not None
            bases[seat] = table.messages.last.serial
        hand = table.hand
        if hand is not None and hand.over and id(hand) not in ended:
            ended.add(id(hand))
            _count(hand, counts)
            counts["matches"] += table.match is not None and table.match.over
    return counts


def _count(hand: Hand, counts: dict[str, int]) -> None:
    counts["knocks"] += hand.knock is not None
    counts["stock_ends"] += hand.reshuffles > 0 or hand.knock is None


def _choose_action(match: Match, bots: list[Bot], rng: random.Random, greedy: bool) -> Action:
    """The computer's choice when ``greedy``, else as :func:`_choose`, on engine actions."""
    hand = match.hand
    legal = hand.legal_actions()
    if greedy:
        return bots[hand.to_move].choose(view(match, hand.to_move), legal)
    knocks = [a for a in legal if isinstance(a, Knock)]
    if knocks and rng.random() < 0.5:
        return knocks[0]
    if any(isinstance(a, DrawStock) for a in legal) and rng.random() < 0.8:
        return DrawStock()
    return rng.choice(legal)


_CARD = re.compile(r'"([2-9TJQKA][cdhs])"')
_CARD_NUMBERS = {name: number for number, name in enumerate(CARD_NAMES)}


def check_no_leak(hand: Hand | None, seat: int | None, text: str) -> None:
    """No card ``seat`` may not know in ``hand`` is named in ``text`` (a message to it)."""
    if hand is None:
        return
    named = {_CARD_NUMBERS[name] for name in _CARD.findall(text)}
    leaked = named & hidden_cards(hand, seat)
    assert not leaked, f"the message to seat {seat} names hidden cards {sorted(leaked)}"


TABLES = int(os.environ.get("GINRUMMY_DELTA_TABLES", "4"))
"""Tables per preset of the whole-state test (24 in all by default, about 1 s)."""
HANDS = int(os.environ.get("GINRUMMY_DELTA_HANDS", "40"))
"""Hands played per preset by the view test: 240 in all by default (about 2 s on a busy
2-core machine); ``GINRUMMY_DELTA_HANDS=1000`` plays 6,000."""

GAMES = [("classic", 2), ("playok", 2), ("eaai", 2), ("arena", 2), ("arena", 3), ("arena", 4)]


def test_deltas_rebuild_every_whole_state_byte_for_byte() -> None:
    """Whole states (table entry, view, legal actions, hints, clock, score sheet, ...)."""
    totals: dict[str, int] = {}
    for number, (preset, players) in enumerate(GAMES * TABLES):
        for key, value in _play(preset, players, number, 300).items():
            totals[key] = totals.get(key, 0) + value
    assert totals["deltas"] > 10_000
    # every form of change was rebuilt: splices, paths into objects and lists, short legal
    assert min(totals["splices"], totals["paths"], totals["short_legal"]) > 500, totals
    assert totals["knocks"] > 3 and totals["stock_ends"] > 0 and totals["matches"] > 1


@pytest.mark.parametrize(("preset", "players"), GAMES)
def test_view_deltas_over_many_hands(preset: str, players: int) -> None:
    """The views alone (what the engine's ``view()`` gives each seat and a spectator), over
    many hands: the rebuilt view's JSON is the server's at every step; the delta made with
    the shared part's changes found once (:func:`shared_changes`, as a broadcast does) is
    the generic delta's text."""
    rules = Ruleset.preset(preset, **({"players": players} if players != 2 else {}))
    rules = rules.replace(target=30) if rules.format.value == "match" else rules
    counts = dict.fromkeys(("deltas", "knocks", "stock_ends", "hands"), 0)
    rng = random.Random(players * 1000 + len(preset))
    recipients = [None, *range(players)]
    bots = [make_bot("simple", seat) for seat in range(players)]
    for number in itertools.count():
        if counts["hands"] >= HANDS:
            break
        match = Match(rules, seed=rng.randrange(1 << 30))
        cache = ViewCache()
        states: dict[int | None, dict[str, Any]] = {}
        shared_before: dict[str, Any] | None = None
        greedy = number % 3 != 0  # one match in three played at random: stock ends
        version = 0
        match.start_hand()
        while True:
            version += 1
            hand = match.hand
            news = {seat: {"type": "state", "table": {"version": version}, "version": version,
                           "seat": seat, "view": cache.view_dict(match, seat, version)}
                    for seat in recipients}
            shared = None if shared_before is None or cache.shared_json is None \
                else shared_changes(shared_before, cache.shared_json, VIEWER_KEYS)
            shared_before = cache.shared_json
            for seat in recipients:
                new = news[seat]
                old = states.get(seat)
                if old is not None:
                    text = dumps(state_delta(old, new, False))
                    assert shared is not None
                    assert dumps(state_delta(old, new, False, shared=shared)) == text
                    check_no_leak(hand, seat, text)
                    assert dumps(apply_delta(old, orjson.loads(text))) == dumps(new)
                    counts["deltas"] += 1
                states[seat] = new
            if match.over or counts["hands"] >= HANDS or len(match.hands) > 6:
                break
            if match.needs_deal:
                match.start_hand()
            elif hand.to_move == CHANCE:
                match.apply(hand.reshuffle_order(rng))
            else:
                match.apply(_choose_action(match, bots, rng, greedy))
                if hand.over:
                    _count(hand, counts)
                    counts["hands"] += 1
    assert counts["knocks"] > HANDS // 10 and counts["stock_ends"] > 0


def test_a_delta_names_what_changed_and_the_drawn_card_only_to_the_drawer() -> None:
    rng = random.Random(3)
    table = _table("classic", 2, None)
    table.apply_event(StoredEvent(1, "match", json.dumps({"first_dealer": 0})))
    table.apply_event(StoredEvent(2, "deal", format_cards(deal_order(rng=rng))))
    recipients = [None, 0, 1]

    def broadcast() -> dict[int | None, str]:
        """The texts of a broadcast to recipients that got the previous one."""
        last = table.messages.last
        serial = -1 if last is None else last.serial
        full, deltas = table.broadcast_texts([], [(s, serial) for s in recipients], NOW)
        assert full == {}
        return {seat: text for (seat, _), text in deltas.items()}

    assert json.loads(broadcast()[0])["type"] == "state"  # no base yet: whole states
    hand = table.hand
    assert hand is not None
    while "stock" not in table.state_message(hand.to_move, NOW)["legal"]:
        table.apply_event(StoredEvent(table.version + 1, "action", "pass", hand.to_move))
        broadcast()
    drawer = hand.to_move
    drawn = hand.stock[-1]
    table.apply_event(StoredEvent(table.version + 1, "action", "stock", drawer))
    deltas = broadcast()
    mine, theirs, watcher = (json.loads(deltas[s]) for s in (drawer, 1 - drawer, None))
    for delta in (mine, theirs, watcher):
        # one action, one version: ``base`` is left out, it is ``version - 1``
        assert delta["type"] == "delta" and "base" not in delta
        assert delta_base(delta) == delta["version"] - 1 == table.version - 1
        entry = {"seat": drawer, "action": "stock",
                 "card": None if delta is not mine else format_cards([drawn])}
        changes = delta["view"]
        _at, removed, *added = changes["log~"]  # appended to the log
        assert removed == 0 and added == [entry]
        assert {"phase", "stock_size", f"seats.{drawer}.count"} <= set(changes)
        assert "table" not in delta and "ruleset" not in changes
        assert not any(path.startswith(f"seats.{1 - drawer}.") for path in changes)
    hand_after = table.state_message(drawer, NOW)["view"]["hand"]
    at = hand_after.index(format_cards([drawn]))
    assert mine["view"]["hand~"] == [at, 0, format_cards([drawn])]  # one card spliced in
    # the drawer's own seat's cards are its hand: not sent again, the reducer copies the hand
    assert not any(path.startswith(f"seats.{drawer}.cards") for path in mine["view"])
    assert mine["legal"] == {"discards": "hand"}  # every card of the new hand, no knock
    assert not any(path.startswith("hand") for path in theirs["view"])
    assert not any(path.startswith("hand") for path in watcher["view"])
    assert format_cards([drawn]) not in deltas[1 - drawer] + deltas[None]


def test_a_delta_from_another_version_is_refused() -> None:
    state = {"type": "state", "table": {"version": 4}, "version": 4, "seat": None,
             "view": None, "legal": []}
    later = {**state, "version": 5, "table": {"version": 5}, "legal": ["stock"]}
    delta = state_delta(state, later)
    assert delta == {"type": "delta", "version": 5, "legal~": [0, 0, "stock"]}  # base 4
    assert apply_delta(state, delta) == later
    assert apply_delta(state, {**delta, "base": 4}) == later  # named, the same
    with pytest.raises(DeltaError, match="from version 4 does not apply to version 5"):
        apply_delta(later, delta)
    # a change that takes no version (a seat connecting) names its base
    same = {**later, "legal": []}
    unversioned = state_delta(later, same)
    assert unversioned == {"type": "delta", "base": 5, "version": 5, "legal~": [0, 1]}
    assert apply_delta(later, unversioned) == same
    with pytest.raises(DeltaError, match="from version 5 does not apply to version 4"):
        apply_delta(state, unversioned)
    with pytest.raises(DeltaError, match="from version 3 does not apply to version 5"):
        apply_delta(later, {**delta, "base": 3})
    with pytest.raises(DeltaError, match="view must be an object"):
        apply_delta(state, {**delta, "view": [1]})


@pytest.mark.parametrize(("change", "message"), [
    ({"legal~": [2, 0, "x"]}, "legal~ does not apply"),  # past the list's end
    ({"legal~": [0, 1]}, "legal~ does not apply"),  # removes more than the list holds
    ({"legal~": ["0", 0]}, "legal~ does not apply"),
    ({"clock.seat": 1}, "clock.seat does not apply"),  # clock is null: no path inside it
    ({"view": {"seats.3.count": 2}}, "view.seats.3.count does not apply"),
    ({"view": {"nothing.here": 2}}, "view.nothing.here does not apply"),
    ({"legal": {"discards": "hand"}}, "short legal list needs the view's hand"),
])
def test_a_change_that_does_not_fit_the_state_is_refused(change: dict[str, Any],
                                                          message: str) -> None:
    state = {"type": "state", "table": {"version": 4}, "version": 4, "seat": 0,
             "view": {"seats": [{"count": 1}]}, "legal": [], "clock": None}
    with pytest.raises(DeltaError, match=message):
        apply_delta(state, {"type": "delta", "base": 4, "version": 5, **change})


def test_changes_go_by_path_splice_lists_and_name_discards_by_the_hand() -> None:
    """The documented examples of docs/protocol.md (section ``delta``), both ways."""
    view = {"seat": 0, "phase": "draw", "hand": ["4s", "6s", "Kh"],
            "seats": [{"seat": 0, "count": 3, "cards": ["4s", "6s", "Kh"]},
                      {"seat": 1, "count": 3, "cards": None}], "log": []}
    old = {"type": "state", "table": {"version": 8}, "version": 8, "seat": 0, "view": view,
           "legal": ["stock"], "clock": {"seat": 0, "remaining_ms": 30000}}
    hand = ["4s", "4h", "6s", "Kh"]
    new = {"type": "state", "table": {"version": 9}, "version": 9, "seat": 0,
           "view": {**view, "phase": "discard", "hand": hand,
                    "seats": [{"seat": 0, "count": 4, "cards": hand}, view["seats"][1]],
                    "log": [{"seat": 0, "action": "stock", "card": "4h"}]},
           "legal": ["discard 4s", "discard 6s", "discard Kh", "knock Kh 4s"],
           "clock": {"seat": 0, "remaining_ms": 21000}}
    delta = state_delta(old, new)
    assert delta == {
        "type": "delta", "version": 9,
        "view": {"phase": "discard", "hand~": [1, 0, "4h"], "seats.0.count": 4,
                 "log~": [0, 0, {"seat": 0, "action": "stock", "card": "4h"}]},
        "legal": {"discards": "hand", "except": ["4h"], "plus": ["knock Kh 4s"]},
        "clock.remaining_ms": 21000}
    assert dumps(apply_delta(old, orjson.loads(dumps(delta)))) == dumps(new)
    # a seat whose cards stop being its hand (revealed otherwise) gets them sent whole
    shown = ["4s", "6s", "Kh", "2c"]
    revealed = {**new, "view": {**new["view"], "seats": [
        {"seat": 0, "count": 4, "cards": shown}, view["seats"][1]]}}
    delta = state_delta(old, revealed)
    assert delta["view"]["seats.0.cards"] == shown
    assert dumps(apply_delta(old, orjson.loads(dumps(delta)))) == dumps(revealed)
