"""The one game loop's decision cap at the server: past ``max_decisions`` decisions in a hand
the computer seats stop playing it and the table is stopped (status ``stuck``)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from server_helpers import Client

from ginrummy.cards import format_cards
from ginrummy.engine import deal_order
from ginrummy.gameloop import EndlessHand, decisions_made
from ginrummy.rules import Ruleset
from ginrummy.server.core.kinds import Source
from ginrummy.server.core.settings import Settings
from ginrummy.server.play.computer import ComputerSeats
from ginrummy.server.play.table import GameTable, Seat, table_rules
from ginrummy.storage import StoredEvent


def bot_table() -> GameTable:
    """Two computer seats, a match started and its first hand dealt."""
    seats = [Seat(0, "bot", "computer (simple)", "simple"), Seat(1, "bot", "c", "simple")]
    table = GameTable("cap", "cap", "classic", table_rules(Ruleset.preset("classic")), True,
                      None, 0, None, seats)
    table.apply_event(StoredEvent(1, "match", json.dumps({"first_dealer": 0})))
    table.apply_event(StoredEvent(2, "deal", format_cards(deal_order(seed=3))))
    return table


def test_the_computer_refuses_a_decision_past_the_cap() -> None:
    async def run() -> int:
        table = bot_table()
        computer = ComputerSeats(Settings(max_decisions=4))
        hand = table.running_hand()
        assert hand is not None
        while True:
            seat = table.seats[hand.to_move]
            try:
                action = await computer.choose(table, seat)
            except EndlessHand as exc:
                assert "did not end after 4 decisions" in str(exc)
                return decisions_made(hand)
            table.apply_event(table.action_event(action, seat.seat, Source.BOT))

    assert asyncio.run(run()) == 4


def test_a_table_past_the_cap_is_stopped_and_says_why(make_server: Any) -> None:
    cap = 3
    server = make_server(max_decisions=cap)
    created = server.create(nickname="Ann", bots={"1": "simple"})
    table_id = created["table_id"]
    ann = Client.open(server, table_id, created["token"])
    sent = 0
    while not any(m["type"] == "error" for m in ann.frames):
        state = ann.state
        if state["legal"]:
            ann.send({"type": "action", "id": f"a{sent}", "version": state["version"],
                      "action": state["legal"][0]})
            sent += 1
        ann.wait(lambda m, v=state["version"]: m["type"] == "error"
                 or (m["type"] == "state" and m["version"] > v), 30)
    notice = next(m for m in ann.frames if m["type"] == "error")
    assert notice["code"] == "endless_hand" and notice["id"] is None
    assert f"after {cap} decisions" in notice["message"]
    stuck = ann.state
    assert stuck["table"]["status"] == "stuck" and stuck["legal"] == []
    assert stuck["view"]["to_move"] == 1  # the computer's turn, which it does not play
    stored = server.stored_table(table_id)
    assert stored.status == "stuck" and stored.version == stuck["version"]
    played = [e for e in stored.events if e.kind == "action" and e.source != "chance"]
    assert cap <= len(played) <= cap + 2  # the cap's decisions, then only the person's
    assert all(e.source == "human" for e in played[cap:])
    # nobody plays on: an action is refused, and the table is out of the lobby's list
    ann.send({"type": "action", "id": "late", "version": stuck["version"], "action": "stock"})
    refused = ann.answer()
    assert refused["type"] == "error" and refused["code"] in ("no_hand", "not_your_turn")
    with server.http() as client:
        listed = client.get("/api/tables").json()["tables"]
    assert table_id not in [t["id"] for t in listed]
