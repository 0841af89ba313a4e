"""Quotas and limits a public server needs: tables per address (429 with ``Retry-After``),
flood and chat budgets per seat (and per spectator address) rather than per connection, caps
on connections per address and per process, and spectators who come and go without a state
sent to everyone (docs/server.md, *Quotas and lifecycle*)."""

from __future__ import annotations

import contextlib
import logging
import time
from typing import Any

from moderation_helpers import add_user
from server_helpers import Client
from websockets.exceptions import ConnectionClosed

from ginrummy.server import Settings
from ginrummy.server.core.limits import address_key
from ginrummy.server.play.connections import ConnectionCounts


def close_of(client: Client, timeout: float = 10) -> tuple[int, str]:
    """Read until the server closes the connection: its close code and reason."""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            with contextlib.suppress(TimeoutError):
                client.recv(0.2)
    except ConnectionClosed as exc:
        assert exc.rcvd is not None
        return exc.rcvd.code, exc.rcvd.reason
    raise TimeoutError("the connection stayed open")


def test_defaults_protect_a_public_server() -> None:
    settings = Settings()
    assert 1 <= settings.tables_per_address <= 50 and settings.tables_window_seconds >= 3600
    assert settings.connections_per_address <= 100 and settings.max_connections <= 1000
    assert settings.abandon_after_seconds <= 900 and settings.unload_after_seconds <= 900


def test_an_address_creates_at_most_its_quota_of_tables(make_server: Any) -> None:
    server = make_server(tables_per_address=3, tables_window_seconds=3600)
    for _ in range(3):
        server.create(nickname="Ann")
    with server.http() as client:
        refused = client.post("/api/tables", json={"nickname": "Ann"})
        listed = client.get("/api/tables").json()["tables"]
    assert refused.status_code == 429, refused.text
    assert refused.json()["error"]["code"] == "too_many_tables"
    assert "at most 3 new tables" in refused.json()["error"]["message"]
    assert 3500 <= int(refused.headers["Retry-After"]) <= 3600
    assert len(listed) == 3  # the refused one was not created


def test_the_table_quota_frees_up_as_the_window_slides(make_server: Any) -> None:
    server = make_server(tables_per_address=1, tables_window_seconds=1.0)
    server.create(nickname="Ann")
    with server.http() as client:
        refused = client.post("/api/tables", json={"nickname": "Ann"})
        assert refused.status_code == 429 and refused.headers["Retry-After"] == "1"
        time.sleep(1.1)
        again = client.post("/api/tables", json={"nickname": "Ann"})
    assert again.status_code == 201, again.text


def test_the_flood_budget_is_the_seats_not_each_connections(make_server: Any) -> None:
    server = make_server(messages_per_window=10, message_window_seconds=600)
    created = server.create(nickname="Ann")
    tabs = [Client.open(server, created["table_id"], created["token"]) for _ in range(3)]
    # 12 pings from one seat over three connections: four each, well under 10 per connection
    closed = []
    for tab in tabs:
        for _ in range(4):
            with contextlib.suppress(ConnectionClosed):
                tab.send({"type": "ping"})
    for tab in tabs:
        with contextlib.suppress(TimeoutError):
            closed.append(close_of(tab, 2))
    assert closed, "three connections of one seat got three budgets"
    assert all(code == 1008 and reason.startswith("rate limit") for code, reason in closed)
    assert any(f["type"] == "error" and f["code"] == "rate_limited"
               for tab in tabs for f in tab.frames)


def test_the_chat_budget_is_the_seats_and_the_spectators_address(make_server: Any) -> None:
    server = make_server(chats_per_window=2, chat_window_seconds=600)
    created = server.create(nickname="Ann")
    table_id = created["table_id"]
    one, two = (Client.open(server, table_id, created["token"]) for _ in range(2))
    wendy = add_user(server, "Wendy")  # a spectator chats only as an account (issue 25)
    watchers = [Client.open(server, table_id, additional_headers=wendy.headers)
                for _ in range(2)]
    for client in (one, two, *watchers):
        for n in range(2):
            client.send({"type": "chat", "text": f"line {n}"})
    for client in (one, two, *watchers):
        client.send({"type": "ping"})
        client.wait(lambda m: m["type"] == "pong")

    def refused(client: Client) -> int:
        return sum(1 for f in client.frames
                   if f["type"] == "error" and f["code"] == "rate_limited")

    assert refused(one) + refused(two) == 2  # Ann's seat: 2 of her 4 lines
    assert refused(watchers[0]) + refused(watchers[1]) == 2  # one address watching: 2 of 4


def test_connections_per_address_are_capped(make_server: Any) -> None:
    server = make_server(connections_per_address=2)
    created = server.create(nickname="Ann")
    table_id = created["table_id"]
    ann = Client.open(server, table_id, created["token"])
    watcher = Client.open(server, table_id)
    third = Client.open(server, table_id, hello=False)
    code, reason = close_of(third)
    assert code == 1013 and "too many connections from this address" in reason
    watcher.close()
    deadline = time.monotonic() + 10
    while True:  # the closed connection is no longer counted
        try:
            again = Client.open(server, table_id)
            break
        except (ConnectionClosed, TimeoutError):
            assert time.monotonic() < deadline
            time.sleep(0.05)
    assert again.state["table"]["id"] == table_id
    assert ann.state["table"]["id"] == table_id


def test_connections_per_process_are_capped(make_server: Any) -> None:
    server = make_server(max_connections=2, connections_per_address=100)
    created = server.create(nickname="Ann")
    table_id = created["table_id"]
    Client.open(server, table_id, created["token"])
    Client.open(server, table_id)
    code, reason = close_of(Client.open(server, table_id, hello=False))
    assert code == 1013 and reason.startswith("server full")


def test_spectators_come_and_go_without_a_state_to_everyone(make_server: Any) -> None:
    server = make_server()
    created = server.create(nickname="Ann")
    table_id = created["table_id"]
    joined = server.join(table_id, nickname="Bob")
    ann = Client.open(server, table_id, created["token"])
    bob = Client.open(server, table_id, joined["token"])
    ann.reach(bob.state["version"])
    ann.send({"type": "ping"})
    ann.wait(lambda m: m["type"] == "pong")
    before = len(ann.frames)
    watchers = [Client.open(server, table_id) for _ in range(3)]
    assert all(w.state["seat"] is None for w in watchers)
    for watcher in watchers:
        watcher.close()
    time.sleep(0.3)  # let the server see the closes
    ann.send({"type": "ping"})
    ann.wait(lambda m: m["type"] == "pong")
    assert [f["type"] for f in ann.frames[before:]] == ["pong"]
    # a seat's connection still tells the others (its "connected" changes)
    bob.close()
    gone = ann.wait(lambda m: m["type"] == "state")
    assert gone["table"]["seats"][1]["connected"] is False


def test_an_ipv6_host_is_its_64_and_refusals_are_logged_once_a_minute(
        caplog: Any) -> None:
    assert address_key("2001:db8:1:2:aaaa::1") == address_key("2001:db8:1:2:bbbb::2")
    assert address_key("2001:db8:1:3::1") != address_key("2001:db8:1:2::1")
    assert address_key("::ffff:10.0.0.1") == "10.0.0.1" == address_key("10.0.0.1")
    counts = ConnectionCounts(Settings(connections_per_address=2, max_connections=10))
    assert counts.admit("2001:db8:1:2::1") is None
    assert counts.admit("2001:db8:1:2::2") is None
    with caplog.at_level(logging.WARNING, logger="ginrummy.server.connections"):
        refusals = [counts.admit(f"2001:db8:1:2::{n}") for n in range(3, 103)]
    assert all(r is not None and "too many connections" in r for r in refusals)
    assert len([r for r in caplog.records if "refused" in r.getMessage()]) == 1
    assert counts.admit("2001:db8:1:3::1") is None  # another /64
    counts.release("2001:db8:1:2::1")
    assert counts.admit("2001:db8:1:2::ffff") is None and counts.total == 3
