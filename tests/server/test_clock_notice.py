"""A turn clock that runs out is announced: every connection (both players and a spectator)
gets a ``notice`` of kind ``clock`` naming the seat and the move the computer played for it,
and where that move sits in the hand's log (docs/protocol.md)."""

from __future__ import annotations

from typing import Any

from server_helpers import Client


def _is_clock_notice(message: dict[str, Any]) -> bool:
    return message["type"] == "notice" and message.get("kind") == "clock"


def test_a_clock_timeout_is_announced_to_every_connection(make_server: Any) -> None:
    server = make_server(min_clock_seconds=0.1, hold_seconds=60)
    created = server.create(nickname="Ann", clock_seconds=0.3)
    table_id = created["table_id"]
    joined = server.join(table_id, nickname="Bob")
    ann = Client.open(server, table_id, created["token"])
    bob = Client.open(server, table_id, joined["token"])  # present, but never moves
    watcher = Client.open(server, table_id)  # a spectator
    first = ann.state
    mover = first["view"]["to_move"]
    notices = [c.wait(_is_clock_notice, 30) for c in (ann, bob, watcher)]
    # the first time-out is the same news for everyone
    assert len({(n["seat"], n["action"], n["log_index"]) for n in notices}) == 1
    notice = notices[0]
    assert notice["seat"] == mover
    assert notice["hand_number"] == first["view"]["hand_number"]
    assert notice["text"] == (f"time ran out: the computer played {notice['action']} for "
                              f"{('Ann', 'Bob')[mover]}")
    # the notice follows the state that shows the move: the log entry it points to is that move
    for client, own in zip((ann, bob, watcher), notices, strict=True):
        before = client.frames[:client.frames.index(own)]
        state = next(m for m in reversed(before) if m["type"] == "state")
        entry = state["view"]["log"][notice["log_index"]]
        assert entry["seat"] == mover
        assert entry["action"].split(" ")[0] == notice["action"].split(" ")[0]
    # and the move was stored as the clock's
    sources = [e.source for e in server.stored_table(table_id).events if e.kind == "action"]
    assert "clock" in sources


def test_a_players_own_move_sends_no_clock_notice(make_server: Any) -> None:
    server = make_server(min_clock_seconds=0.1, hold_seconds=60)
    created = server.create(nickname="Ann", clock_seconds=30)
    table_id = created["table_id"]
    joined = server.join(table_id, nickname="Bob")
    ann = Client.open(server, table_id, created["token"])
    bob = Client.open(server, table_id, joined["token"])
    for _ in range(4):  # a few moves made in time by whoever is to move
        mover = ann if ann.state["view"]["to_move"] == ann.state["seat"] else bob
        state = mover.playable()
        mover.send({"type": "action", "id": f"m{state['version']}", "version": state["version"],
                    "action": state["legal"][0]})
        mover.answer()
        ann.reach(state["version"] + 1)
        bob.reach(state["version"] + 1)
    assert not [m for m in ann.frames + bob.frames if _is_clock_notice(m)]
