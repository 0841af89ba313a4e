"""Turn clocks, seats held for absent players, and the table chat."""

from __future__ import annotations

from typing import Any

from server_helpers import Client


def test_clock_timeout_plays_a_computer_move(make_server: Any) -> None:
    server = make_server(min_clock_seconds=0.1, hold_seconds=60)
    created = server.create(nickname="Ann", clock_seconds=0.3)
    table_id = created["table_id"]
    joined = server.join(table_id, nickname="Bob")
    ann = Client.open(server, table_id, created["token"])
    Client.open(server, table_id, joined["token"])  # Bob is present but never moves
    state = ann.state
    clock = state["clock"]
    assert clock["seat"] == state["view"]["to_move"] and clock["per_turn_ms"] == 300
    assert 0 <= clock["remaining_ms"] <= 300
    start_version = state["version"]
    # the running clock is stored (checked now: once the clock has played a hand to its end,
    # no clock runs until the next deal)
    stored = server.stored_table(table_id)
    assert stored.clock_deadline is not None and stored.clock_seat is not None
    # nobody acts: the clock runs out and the computer plays for whoever is to move
    later = ann.wait(lambda m: m["type"] == "state" and m["version"] >= start_version + 3, 30)
    assert later["view"]["log"]
    stored = server.stored_table(table_id)
    sources = [e.source for e in stored.events if e.kind == "action"]
    assert sources and set(sources) <= {"clock", "chance"}, sources


def test_a_disconnected_seat_is_held_then_played_by_the_computer(make_server: Any) -> None:
    server = make_server(hold_seconds=0.3)
    created = server.create(nickname="Ann")
    table_id = created["table_id"]
    joined = server.join(table_id, nickname="Bob")
    ann = Client.open(server, table_id, created["token"])
    bob = Client.open(server, table_id, joined["token"])
    bob.close()
    # Ann plays her turns; Bob's turns are played by the computer once his hold is over
    played = 0
    while True:
        state = ann.state
        if any(e.source == "away" for e in server.stored_table(table_id).events):
            break
        if state["legal"]:
            ann.send({"type": "action", "id": f"a{played}", "version": state["version"],
                      "action": state["legal"][0]})
            played += 1
        ann.wait(lambda m, v=state["version"]: m["type"] == "state" and m["version"] > v, 30)
    seats = ann.wait(lambda m: m["type"] == "state" and m["table"]["seats"][1]["away"], 30)
    assert seats["table"]["seats"][1]["connected"] is False
    # Bob comes back: the seat is his again
    bob = Client.open(server, table_id, joined["token"])
    assert bob.state["table"]["seats"][1]["away"] is False
    assert bob.state["table"]["seats"][1]["connected"] is True


def test_chat_is_plain_text_capped_rate_limited_and_mutable(make_server: Any) -> None:
    server = make_server(chat_window_seconds=600)  # 5 chat messages per window, however slow
    created = server.create(nickname="Ann")
    table_id = created["table_id"]
    joined = server.join(table_id, nickname="Bob")
    ann = Client.open(server, table_id, created["token"])
    bob = Client.open(server, table_id, joined["token"])
    watcher = Client.open(server, table_id)

    # an invisible format character is cleaned (a control character is refused at the edge)
    ann.send({"type": "chat", "text": "  <b>hi</b>\u200b there  "})
    line = bob.wait(lambda m: m["type"] == "chat")
    assert (line["seat"], line["name"], line["text"]) == (0, "Ann", "<b>hi</b> there")
    assert watcher.wait(lambda m: m["type"] == "chat")["text"] == "<b>hi</b> there"
    assert ann.wait(lambda m: m["type"] == "chat")["seat"] == 0  # the author sees it too

    watcher.send({"type": "chat", "text": "go Ann"})  # a guest spectator: refused (issue 25)
    assert watcher.wait(lambda m: m["type"] == "error")["code"] == "spectator_chat"

    ann.send({"type": "chat", "text": "x" * 201})
    assert ann.wait(lambda m: m["type"] == "error")["code"] == "chat_rejected"
    ann.send({"type": "chat", "text": " \n "})
    assert ann.wait(lambda m: m["type"] == "error")["code"] == "chat_rejected"

    bob.send({"type": "mute", "seat": 0, "muted": True})
    for number in range(2):  # Ann's 4th and 5th chat messages (refused ones count)
        ann.send({"type": "chat", "text": f"line {number}"})
    ann.send({"type": "chat", "text": "one too many"})
    assert ann.wait(lambda m: m["type"] == "error")["code"] == "rate_limited"
    bob.send({"type": "ping"})
    bob.wait(lambda m: m["type"] == "pong")
    heard = [m for m in bob.frames if m["type"] == "chat" and m["seat"] == 0]
    assert len(heard) == 1  # only the line before the mute
    said = [m["text"] for m in watcher.frames if m["type"] == "chat" and m["seat"] == 0]
    watcher.send({"type": "ping"})
    watcher.wait(lambda m: m["type"] == "pong")
    said = [m["text"] for m in watcher.frames if m["type"] == "chat" and m["seat"] == 0]
    assert said == ["<b>hi</b> there", "line 0", "line 1"]
    assert all(m["text"] != "one too many" for m in watcher.frames if m["type"] == "chat")

    bob.send({"type": "mute", "seat": 0, "muted": False})
    bob.send({"type": "ping"})
    bob.wait(lambda m: m["type"] == "pong")
    bob.send({"type": "chat", "text": "still here"})
    assert watcher.wait(lambda m: m["type"] == "chat")["text"] == "still here"
