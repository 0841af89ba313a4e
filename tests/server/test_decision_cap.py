"""The one game loop's decision cap at the server: a hand that has had ``max_decisions``
decisions gets no more from anyone, person or computer, and the table is stopped (status
``stuck``)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
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


def decisions_of_the_last_hand(stored: Any) -> list[Any]:
    """The stored decisions (actions not by chance) since the table's last deal: the cap is
    per hand, and a live deal may let the first hand end, by a knock, before the cap (CI4 of
    2026-12-07: the computer knocked at its second decision, and the next hand was stopped)."""
    last_deal = max(e.version for e in stored.events if e.kind == "deal")
    return [e for e in stored.events
            if e.kind == "action" and e.source != "chance" and e.version > last_deal]


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
    stored = server.stored_table(table_id)
    assert stored.status == "stuck" and stored.version == stuck["version"]
    played = decisions_of_the_last_hand(stored)
    assert len(played) == cap  # the cap's decisions, whoever made them, and no more
    # nobody plays on: an action is refused, and the table is out of the lobby's list
    ann.send({"type": "action", "id": "late", "version": stuck["version"], "action": "stock"})
    refused = ann.answer()
    assert refused["type"] == "error" and refused["code"] in ("no_hand", "not_your_turn")
    with server.http() as client:
        listed = client.get("/api/tables").json()["tables"]
    assert table_id not in [t["id"] for t in listed]


def _endless(client: Client) -> bool:
    return any(m["type"] == "error" and m["code"] == "endless_hand" for m in client.frames)


def _next_mover(clients: list[Client]) -> Client | None:
    """The client whose seat is to move once both have the same latest state (``None`` once
    the table said it stopped)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for client in clients:
            with contextlib.suppress(TimeoutError):
                while True:  # read what has arrived
                    client.recv(0.05)
        if all(_endless(c) for c in clients):
            return None
        states = [c.state for c in clients]
        if len({s["version"] for s in states}) == 1:
            movers = [c for c, s in zip(clients, states, strict=True) if s["legal"]]
            if movers:
                return movers[0]
    raise TimeoutError("nobody got a turn")


def test_people_get_the_same_cap_and_their_table_stops_too(make_server: Any) -> None:
    """Two people who pass cards for ever (issue 25, 2): the hand has the cap's decisions,
    then the table stops on a person's turn, stored as ``stuck``."""
    cap = 5
    server = make_server(max_decisions=cap)
    created = server.create(nickname="Ann")
    table_id = created["table_id"]
    joined = server.join(table_id, nickname="Bob")
    ann = Client.open(server, table_id, created["token"])
    bob = Client.open(server, table_id, joined["token"])
    sent = 0
    while (mover := _next_mover([ann, bob])) is not None:
        state = mover.state
        legal = [a for a in state["legal"] if not a.startswith(("knock", "gin"))]
        mover.send({"type": "action", "id": f"a{sent}", "version": state["version"],
                    "action": legal[0]})
        sent += 1
        answer = mover.answer()
        assert answer["type"] != "error" or answer["code"] == "endless_hand", answer
    assert sent == cap
    notice = next(m for m in ann.frames if m["type"] == "error")
    assert notice["id"] is None and f"after {cap} decisions" in notice["message"]
    stuck = ann.state
    assert stuck["table"]["status"] == "stuck" and stuck["legal"] == []
    # the decision that reached the cap is answered by the stopped state: nobody is first
    # told it is their turn at that version (a race that once let a sixth action be sent)
    offered = [m["version"] for c in (ann, bob) for m in c.frames
               if m["type"] == "state" and m["version"] == stuck["version"] and m["legal"]]
    assert offered == []
    stored = server.stored_table(table_id)
    assert stored.status == "stuck"
    played = decisions_of_the_last_hand(stored)
    assert len(played) == cap and all(e.source == "human" for e in played)
    # the person to move is refused, as everyone
    person = (ann, bob)[stuck["view"]["to_move"]]
    person.send({"type": "action", "id": "late", "version": stuck["version"],
                 "action": "stock"})
    refused = person.answer()
    assert refused["type"] == "error" and refused["code"] in ("no_hand", "not_your_turn")
