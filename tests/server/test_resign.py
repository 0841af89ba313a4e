"""Resign and leave during a match (issue 13, 8; docs/protocol.md, *Resign and leave*): a
two-player resignation ends the match for the other seat, is stored as an event (a restart
keeps it) and rated as a loss; three or four players play on with the computer in the
resigning seat, placed last; a spectator cannot resign; a resignation twice or after the end
is refused and changes nothing; leaving hands the seat to the computer; the previous match's
sheet is in the state after a rematch."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest
from moderation_helpers import User, add_user, open_as, post
from server_helpers import Client, LiveServer, check_frames, is_state, live_server
from websockets.exceptions import ConnectionClosed

from ginrummy.server.core.kinds import EventKind
from ginrummy.storage import players


def _drain(client: Client) -> None:
    """Read what has arrived already."""
    with contextlib.suppress(TimeoutError):
        while True:
            client.recv(0.2)


def _account_table(server: LiveServer, ann: User, bob: User, **body: Any) -> tuple[str, Client,
                                                                                   Client]:
    """A two-account classic table, both seated and connected (the first hand dealt)."""
    created = post(server, "/api/tables", {"nickname": "x", **body}, ann)
    assert created.status_code == 201, created.text
    table_id = created.json()["table_id"]
    joined = post(server, f"/api/tables/{table_id}/join", {"nickname": "x"}, bob)
    assert joined.status_code == 200, joined.text
    first, second = open_as(server, table_id, ann), open_as(server, table_id, bob)
    for client in (first, second):
        _dealt(client)
    return table_id, first, second


def _guest_table(server: LiveServer, **body: Any) -> tuple[str, dict[int, Client], list[str]]:
    """A two-guest table, both connected, the first hand dealt; its seat tokens."""
    created = server.create(**body)
    table_id = created["table_id"]
    tokens = [created["token"], server.join(table_id)["token"]]
    clients = {seat: Client.open(server, table_id, token) for seat, token in enumerate(tokens)}
    for client in clients.values():
        _dealt(client)
    return table_id, clients, tokens


def _dealt(client: Client) -> None:
    """Wait for the first hand's state (it may have arrived already)."""
    if client.state["view"] is None:
        client.wait(lambda m: m["type"] == "state" and m["view"] is not None)


def _error(client: Client) -> dict[str, Any]:
    return client.wait(lambda m: m["type"] == "error")


def test_a_two_player_resignation_ends_the_match_stored_and_rated_as_a_loss(
        server: LiveServer) -> None:
    ann, bob = add_user(server, "Ann"), add_user(server, "Bob")
    table_id, first, second = _account_table(server, ann, bob)
    version = first.state["version"]
    first.send({"type": "resign"})
    ended = second.wait(lambda m: m["type"] == "state" and m["result"] is not None)
    assert ended["version"] == version + 1
    assert ended["result"]["winner"] == 1 and ended["resigned"] == [0]
    assert ended["table"]["status"] == "over"
    assert ended["legal"] == [] and ended["clock"] is None
    mine = first.wait(lambda m: m["type"] == "state" and m["result"] is not None)
    assert mine["legal"] == [] and mine["hints"]["knocks"] == []
    # the unfinished hand stays hidden: nobody sees another seat's cards or the stock
    assert mine["view"]["phase"] != "over"
    assert check_frames(server, table_id, first.frames, 0) > 0
    assert check_frames(server, table_id, second.frames, 1) > 0
    stored = server.stored_table(table_id)
    last = stored.events[-1]
    assert (last.kind, last.seat, last.version) == (EventKind.RESIGN, 0, version + 1)
    engine = server.app.state.server.accounts.engine
    (match,) = players.account_matches(engine, ann.id)
    places = {s.account_id: (s.place, s.abandoned) for s in match.seats}
    assert places == {ann.id: (2, False), bob.id: (1, False)}
    assert match.ending == "over" and match.category == "classic"
    ratings = {who.id: players.account_ratings(engine, who.id)["classic"].rating
               for who in (ann, bob)}
    assert ratings[ann.id] < 1500 < ratings[bob.id]
    with server.http() as http:  # its replay ends with the resignation
        replay = http.get(f"/api/matches/{match.id}/replay")
        record = http.get(f"/api/matches/{match.id}/record")
    assert replay.status_code == 200, replay.text
    assert replay.json()["steps"][-1]["action"] == "resign"
    assert replay.json()["steps"][-1]["seat"] == 0
    assert record.status_code == 200, record.text
    # again, or a move after the end: a clear error, nothing changes
    first.send({"type": "resign"})
    again = _error(first)
    assert again["code"] == "no_hand" and "over" in again["message"]
    first.send({"type": "action", "id": "late", "version": version + 1, "action": "stock"})
    assert _error(first)["code"] == "no_hand"
    first.send({"type": "resync"})
    assert first.wait(is_state())["version"] == version + 1
    assert server.stored_table(table_id).version == version + 1


def test_spectators_bad_tokens_and_bad_messages_cannot_resign(server: LiveServer) -> None:
    table_id, clients, _tokens = _guest_table(server)
    version = clients[0].state["version"]
    watcher = Client.open(server, table_id)
    watcher.send({"type": "resign"})
    refused = _error(watcher)
    assert refused["code"] == "not_seated" and "spectators" in refused["message"]
    watcher.send({"type": "leave"})
    assert _error(watcher)["code"] == "not_seated"
    clients[0].send({"type": "resign", "seat": 1})
    bad = _error(clients[0])
    assert bad["code"] == "bad_message" and "seat" in bad["message"]
    with pytest.raises(ConnectionClosed) as closed:  # a token of no seat is not let in
        stranger = Client.open(server, table_id, "not-a-seat-token")
        stranger.recv(5)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
    _drain(clients[1])
    assert clients[1].state["version"] == version and clients[1].state["result"] is None
    assert server.stored_table(table_id).version == version


def test_before_the_first_deal_resign_and_leave_are_refused(server: LiveServer) -> None:
    created = server.create()
    ann = Client.open(server, created["table_id"], created["token"])
    for kind in ("resign", "leave"):
        ann.send({"type": kind})
        refused = _error(ann)
        assert refused["code"] == "no_hand" and "/leave" in refused["message"]


def test_a_resignation_and_the_previous_sheet_survive_a_restart(tmp_path: Path) -> None:
    with live_server(tmp_path) as first:
        table_id, clients, tokens = _guest_table(first)
        clients[1].send({"type": "resign"})
        over = clients[0].wait(lambda m: m["type"] == "state" and m["result"] is not None)
        assert over["result"]["winner"] == 0 and over["resigned"] == [1]
        for client in clients.values():
            client.send({"type": "rematch"})
        fresh = clients[0].wait(lambda m: m["type"] == "state" and m["result"] is None
                                and m["view"] is not None)
        assert fresh["resigned"] == [] and fresh["sheet"] == []
        assert fresh["previous"]["result"]["winner"] == 0
        assert fresh["previous"]["resigned"] == [1]
        version = fresh["version"]
        for client in clients.values():
            client.close()
    with live_server(tmp_path) as again:  # the same database
        back = Client.open(again, table_id, tokens[0])
        state = back.reach(version)
        assert state["previous"]["result"]["winner"] == 0
        assert state["previous"]["resigned"] == [1] and state["result"] is None
        assert state["previous"]["sheet"] == []  # the resigned match had no finished hand
        back.close()


def _arena(server: LiveServer, ann: User) -> tuple[str, Client]:
    """A three-player arena table: Ann (an account) and two computer seats."""
    created = post(server, "/api/tables", {"nickname": "x", "preset": "arena", "players": 3,
                                           "bots": {"1": "simple", "2": "simple"}}, ann)
    assert created.status_code == 201, created.text
    table_id = created.json()["table_id"]
    client = open_as(server, table_id, ann)
    _dealt(client)
    return table_id, client


def test_three_players_play_on_with_the_computer_in_the_resigned_seat_placed_last(
        server: LiveServer) -> None:
    ann = add_user(server, "Ann")
    table_id, client = _arena(server, ann)
    client.send({"type": "resign"})
    resigned = client.wait(lambda m: m["type"] == "state" and m["resigned"] == [0])
    assert resigned["table"]["seats"][0]["away"] is True  # the computer plays it
    over = client.wait(lambda m: m["type"] == "state" and m["result"] is not None, 60)
    assert over["resigned"] == [0] and over["view"]["phase"] == "over"
    assert all(m["legal"] == [] for m in client.frames
               if m["type"] == "state" and m["version"] >= resigned["version"])
    kinds = [e.kind for e in server.stored_table(table_id).events]
    assert kinds.count(EventKind.RESIGN) == 1 and kinds[-1] == EventKind.ACTION
    engine = server.app.state.server.accounts.engine
    (match,) = players.account_matches(engine, ann.id)
    mine = next(s for s in match.seats if s.account_id == ann.id)
    assert (mine.place, mine.abandoned) == (3, True)
    assert match.category == "arena-multi"
    assert mine.rating_after is not None and mine.rating_after < 1500


def test_three_players_a_second_resignation_or_a_move_is_refused(
        make_server: Any) -> None:
    server = make_server(bot_delay_ms=600_000)  # the computer seats never move in this test
    ann = add_user(server, "Ann")
    table_id, client = _arena(server, ann)
    client.send({"type": "resign"})
    state = client.wait(lambda m: m["type"] == "state" and m["resigned"] == [0])
    version = state["version"]
    client.send({"type": "resign"})
    again = _error(client)
    assert again["code"] == "resigned" and "already resigned" in again["message"]
    client.send({"type": "leave"})
    assert _error(client)["code"] == "resigned"
    client.send({"type": "action", "id": "x1", "version": version, "action": "stock"})
    assert _error(client)["code"] in ("resigned", "not_your_turn")
    assert server.stored_table(table_id).version == version
    client.close()  # back with the token: the seat stays the computer's for this match
    back = open_as(server, table_id, ann)
    assert back.state["table"]["seats"][0]["away"] is True and back.state["legal"] == []


def test_leaving_a_match_hands_the_seat_to_the_computer_until_the_player_is_back(
        server: LiveServer) -> None:
    table_id, clients, tokens = _guest_table(server)
    leaver = clients[0]
    leaver.send({"type": "leave"})
    away = clients[1].wait(lambda m: m["type"] == "state" and m["table"]["seats"][0]["away"])
    assert away["result"] is None
    leaver.close()
    # the computer plays seat 0 whenever it is to move: the other seat is never kept waiting
    left_at = away["version"]
    bob = clients[1]
    for n in range(4):  # Bob moves; each time seat 0 is to move the computer plays it
        state = bob.playable()
        bob.send({"type": "action", "id": f"b{n}", "version": state["version"],
                  "action": state["legal"][0]})
        assert "ack" in bob.answer()
    moves = [e for e in server.stored_table(table_id).events
             if e.kind == EventKind.ACTION and e.seat == 0 and e.version > left_at]
    assert moves and all(e.source == "away" for e in moves)
    back = Client.open(server, table_id, tokens[0])  # the seat's token takes it back
    assert back.state["table"]["seats"][0]["away"] is False


def test_a_three_player_resignation_survives_a_restart(tmp_path: Path) -> None:
    slow = {"bot_delay_ms": 600_000}  # the computer seats never move in this test
    with live_server(tmp_path, **slow) as first:
        created = first.create(preset="arena", players=3, bots={"1": "simple", "2": "simple"})
        table_id = created["table_id"]
        ann = Client.open(first, table_id, created["token"])
        _dealt(ann)
        ann.send({"type": "resign"})
        version = ann.wait(lambda m: m["type"] == "state" and m["resigned"] == [0])["version"]
        ann.close()
    with live_server(tmp_path, **slow) as again:  # the same database
        back = Client.open(again, table_id, created["token"])
        state = back.reach(version)
        assert state["version"] == version and state["resigned"] == [0]
        assert state["table"]["seats"][0]["away"] is True and state["legal"] == []
        back.send({"type": "resign"})
        assert _error(back)["code"] == "resigned"
        back.close()
