"""A move the turn clock played stays the clock's: every ``state`` carries ``clock_moves``
(the current hand's moves the clock played, by their place in ``view.log``), rebuilt from the
stored events' ``source``, so a reload, a spectator arriving late or a restarted server still
tell it from the player's own move (docs/protocol.md, ``state``)."""

from __future__ import annotations

import dataclasses
import json
import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from server_helpers import Client, LiveServer, live_server, table_at

from ginrummy.bots import make_bot
from ginrummy.cards import format_cards
from ginrummy.engine import CHANCE, deal_order
from ginrummy.rules import Ruleset
from ginrummy.server.core.kinds import SeatKind, Source
from ginrummy.server.play.table import GameTable, Seat, table_rules
from ginrummy.storage import StoredEvent
from ginrummy.views import view

CLOCK_SETTINGS: dict[str, Any] = {"min_clock_seconds": 0.1, "hold_seconds": 60}


def expected_clock_moves(events: Sequence[StoredEvent]) -> list[dict[str, int]]:
    """The current hand's clock moves counted straight from the events: a deal starts a hand
    whose log gets one line per action (a reshuffle included), a match starts over."""
    moves: list[dict[str, int]] = []
    hand_number = lines = 0
    for event in events:
        if event.kind == "match":
            moves, hand_number = [], 0
        elif event.kind == "deal":
            moves, hand_number, lines = [], hand_number + 1, 0
        elif event.kind == "action":
            if event.source == "clock":
                moves.append({"hand": hand_number, "index": lines})
            lines += 1
    return moves


def _two_people() -> GameTable:
    seats = [Seat(0, SeatKind.HUMAN, "Ann", None, "a"), Seat(1, SeatKind.HUMAN, "Bob", None, "b")]
    rules = table_rules(Ruleset.preset("classic").replace(target=40))
    return GameTable("c1", "Ann's table", "classic", rules, True, None, 30000, None, seats)


def test_clock_moves_follow_the_events_through_hands_and_a_rematch() -> None:
    """Actions from the players, the clock and the away computer, over two matches of
    several hands: at every version the table's ``clock_moves`` and every recipient's state
    list exactly the clock's moves of the current hand, each pointing at a line of that
    recipient's log written by the seat the clock played for; a replay of the stored events
    up to any version rebuilds the same list."""
    table = _two_people()
    rng = random.Random(11)
    bots = [make_bot("simple", 3), make_bot("simple", 4)]
    events: list[StoredEvent] = []
    clock_seen = reset_seen = matches = 0

    def commit(event: StoredEvent) -> None:
        table.apply_event(event)
        events.append(event)

    while matches < 2:
        match = table.match
        if match is None or match.over:
            matches += match is not None
            if matches < 2:
                commit(StoredEvent(table.version + 1, "match",
                                   json.dumps({"first_dealer": rng.randrange(2)})))
            continue
        if match.needs_deal:
            reset_seen += bool(table.clock_moves)
            commit(StoredEvent(table.version + 1, "deal", format_cards(deal_order(rng=rng))))
            assert table.clock_moves == []
            continue
        hand = match.hand
        if hand.to_move == CHANCE:
            commit(StoredEvent(table.version + 1, "action", str(hand.reshuffle_order(rng)),
                               CHANCE, Source.CHANCE))
            continue
        seat = hand.to_move
        action = bots[seat].choose(view(match, seat), hand.legal_actions())
        source = rng.choice([Source.HUMAN, Source.HUMAN, Source.CLOCK, Source.AWAY])
        commit(table.action_event(action, seat, source))
        expected = expected_clock_moves(events)
        assert [{"hand": h, "index": i} for h, i in table.clock_moves] == expected
        for recipient in (0, 1, None):
            state = table.state_message(recipient, 1_800_000_000.0)
            assert state["clock_moves"] == expected
            seen = state["view"]
            assert seen is not None
            log = seen["log"]
            for move in expected:
                assert move["hand"] == seen["hand_number"]
                clock_event = [e for e in events if e.kind == "action"][
                    -len(log) + move["index"]]
                assert log[move["index"]]["seat"] == clock_event.seat
                assert clock_event.source == "clock"
        clock_seen += source is Source.CLOCK
    assert clock_seen > 20 and reset_seen > 3  # the clock played often, and hands ended
    stored = dataclasses.replace(table.to_stored(), events=events)
    for version in range(1, table.version + 1, 7):
        replayed = table_at(stored, version)
        upto = [e for e in events if e.version <= version]
        assert [{"hand": h, "index": i} for h, i in replayed.clock_moves] == \
            expected_clock_moves(upto)


def _is_clock_notice(message: dict[str, Any]) -> bool:
    return message["type"] == "notice" and message.get("kind") == "clock"


def _check_state(server: LiveServer, table_id: str, state: dict[str, Any]) -> None:
    """``state`` lists the clock's moves the stored events give at its version, each
    pointing at a log line of the seat whose clock ran out."""
    stored = server.stored_table(table_id)
    events = [e for e in stored.events if e.version <= state["version"]]
    assert state["clock_moves"] == expected_clock_moves(events)
    actions = [e for e in events if e.kind == "action"]
    log = state["view"]["log"]
    for move in state["clock_moves"]:
        assert move["hand"] == state["view"]["hand_number"]
        assert log[move["index"]]["seat"] == actions[-len(log) + move["index"]].seat


def test_a_reload_a_late_spectator_and_a_restart_see_the_clocks_move(tmp_path: Path) -> None:
    """The clock plays for Ann or Bob; the state before its notice already lists the move.
    Both players leave (the clock then plays nothing); a spectator arriving later, then a
    spectator and Ann after a server restart, get states listing the same move."""
    with live_server(tmp_path, **CLOCK_SETTINGS) as server:
        created = server.create(nickname="Ann", clock_seconds=0.3)
        table_id, token = created["table_id"], created["token"]
        joined = server.join(table_id, nickname="Bob")
        ann = Client.open(server, table_id, token)
        bob = Client.open(server, table_id, joined["token"])
        notice = ann.wait(_is_clock_notice, 30)
        played = {"hand": notice["hand_number"], "index": notice["log_index"]}
        shown = next(m for m in reversed(ann.frames[:ann.frames.index(notice)])
                     if m["type"] == "state")
        assert played in shown["clock_moves"]  # the state that shows the move tells it too
        _check_state(server, table_id, shown)
        ann.close()
        bob.close()
        time.sleep(1)  # a time-out already running finishes; then nothing moves
        watcher = Client.open(server, table_id)
        late = watcher.state
        assert played in late["clock_moves"] and late["seat"] is None
        _check_state(server, table_id, late)
        assert all(set(m) == {"hand", "index"} for m in late["clock_moves"])
        watcher.close()
    with live_server(tmp_path, **CLOCK_SETTINGS) as restarted:
        watcher = Client.open(restarted, table_id)
        assert watcher.state["clock_moves"] == late["clock_moves"]
        assert watcher.state["version"] == late["version"]
        ann = Client.open(restarted, table_id, token)
        back = next(m for m in ann.frames if m["type"] == "state")
        _check_state(restarted, table_id, back)
        if back["view"]["hand_number"] == played["hand"]:
            assert played in back["clock_moves"]
        ann.close()
        watcher.close()
