"""The HTTP routes that need their table in memory, through a cluster member that does not own
the table (docs/cluster.md, *Requests at the table's owner*; docs/moderation.md): two apps in
this process on one PostgreSQL schema and one Redis prefix. A's tables are acted on through
B: an administrator's kick, close, list, mute, ban and notice, a chat report, a guest turned
into an account; a non-administrator and a guest are refused alike at both; an owner that
does not answer is 503 saying so."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from cluster_helpers import redis_client
from moderation_helpers import User, add_user, closed_with, get, open_as, post
from server_helpers import Client, LiveServer
from test_cluster_node import member, node_of, until

from ginrummy.server.cluster import LeaseStore
from ginrummy.server.play.tablewriter import REVOKED_TOKEN
from ginrummy.server.players.moderation import read_reports
from ginrummy.server.players.sessions import SESSION_COOKIE
from pg_helpers import pg_schema, schema_url


@pytest.fixture
def pair(tmp_path: Path, prefix: str) -> Iterator[tuple[LiveServer, LiveServer]]:
    """A (the tables' owner) and B, members of one cluster."""
    with pg_schema("admin") as schema:
        db = schema_url(schema)
        with member(tmp_path, db, prefix) as a, member(tmp_path, db, prefix) as b:
            yield a, b


def owned_by_a(a: LiveServer, b: LiveServer, **body: Any) -> dict[str, Any]:
    """A table created at A (A owns it; B does not have it)."""
    created = a.create(**body)
    table_id = created["table_id"]
    assert node_of(a).owns(table_id) and table_id not in b.lobby.writers
    return created


def bob_at_a_table_of_a(a: LiveServer, b: LiveServer, join_at: LiveServer
                        ) -> tuple[User, User, dict[str, Any], dict[str, Any], Client]:
    """An administrator, and Bobby (an account) joined through ``join_at`` to Ann's table
    owned by A, his socket at A: (admin, bob, the table as created, the join's answer, his
    socket)."""
    admin = add_user(a, "Boss", "admin")
    bob = add_user(a, "Bobby")
    created = owned_by_a(a, b, nickname="Ann")
    joined = post(join_at, f"/api/tables/{created['table_id']}/join",
                  {"nickname": "ignored"}, bob)
    assert joined.status_code == 200, joined.text
    bob_ws = open_as(a, created["table_id"], bob, joined.json()["token"])
    return admin, bob, created, joined.json(), bob_ws


def same_answer(a: LiveServer, b: LiveServer, method: str, path: str, body: Any,
                user: User | None) -> httpx.Response:
    """The request at A and at B: the same status and body; B's answer."""
    if method == "GET":
        at_a, at_b = get(a, path, user), get(b, path, user)
    else:
        at_a, at_b = post(a, path, body, user), post(b, path, body, user)
    assert (at_b.status_code, at_b.json()) == (at_a.status_code, at_a.json()), path
    return at_b


def test_an_administrator_acts_on_a_table_through_a_process_that_does_not_own_it(
        pair: tuple[LiveServer, LiveServer]) -> None:
    a, b = pair
    admin, bob, created, joined, bob_ws = bob_at_a_table_of_a(a, b, join_at=b)
    table_id = created["table_id"]
    bob_seat = joined["seat"]
    ann = Client.open(a, table_id, created["token"])
    writer = a.lobby.writers[table_id]
    assert writer.table.seats[bob_seat].account_id == bob.id

    listed = get(b, "/api/admin/tables", admin)  # every process's tables
    assert listed.status_code == 200, listed.text
    assert listed.json()["processes"] == 2 and listed.json()["unanswered"] == 0
    entry = next(t for t in listed.json()["tables"] if t["id"] == table_id)
    assert entry["seats"][bob_seat]["account"] == "Bobby" and entry["connections"] == 2
    standing = get(b, "/api/admin/accounts/bobby", admin)
    assert standing.status_code == 200, standing.text
    assert [s["table_id"] for s in standing.json()["seats"]] == [table_id]

    kicked = post(b, "/api/admin/kick", {"table_id": table_id, "seat": bob_seat}, admin)
    assert kicked.status_code == 200, kicked.text
    assert kicked.json() == {"table_id": table_id, "seat": bob_seat, "emptied": False}
    assert closed_with(bob_ws) == (4403, "an administrator removed you from this seat")
    assert writer.table.seats[bob_seat].token_hash == REVOKED_TOKEN  # at the owner, A
    assert a.stored_table(table_id).seats[bob_seat].token_hash == REVOKED_TOKEN
    assert table_id not in b.lobby.writers  # B never loaded it
    # the owner's refusal comes back unchanged: the seat is taken from its player already
    again = post(b, "/api/admin/kick", {"table_id": table_id, "seat": bob_seat}, admin)
    assert again.status_code == 409 and again.json()["error"]["code"] == "not_seated"
    no_seat = same_answer(a, b, "POST", "/api/admin/kick", {"table_id": table_id, "seat": 3},
                          admin)
    assert no_seat.status_code == 400  # the owner checked the seat: its answer as A gives it
    unknown = same_answer(a, b, "POST", "/api/admin/kick", {"table_id": "nosuch", "seat": 0},
                          admin)
    assert unknown.status_code == 404

    noticed = post(b, "/api/admin/notice", {"text": "restart in 5 minutes"}, admin)
    assert noticed.status_code == 200, noticed.text
    assert noticed.json() == {"sent": 1, "processes": 2, "unanswered": 0}  # Ann's, at A
    assert ann.wait(lambda m: m["type"] == "notice")["text"] == "restart in 5 minutes"

    closed = post(b, "/api/admin/close", {"table_id": table_id}, admin)
    assert closed.status_code == 200, closed.text
    assert closed.json() == {"table_id": table_id, "status": "closed"}
    assert writer.table.status == "closed" and a.stored_table(table_id).status == "closed"
    assert ann.wait(lambda m: m["type"] == "notice")["text"] == \
        "an administrator closed this table"
    twice = post(b, "/api/admin/close", {"table_id": table_id}, admin)
    assert twice.status_code == 409 and twice.json()["error"]["code"] == "table_stopped"
    ann.close()


def test_mute_and_ban_through_another_process_reach_the_owners_tables(
        pair: tuple[LiveServer, LiveServer]) -> None:
    a, b = pair
    admin, bob, created, joined, bob_ws = bob_at_a_table_of_a(a, b, join_at=a)
    table_id = created["table_id"]
    ann = Client.open(a, table_id, created["token"])  # a guest at Bob's address, at A

    muted = post(b, "/api/admin/mute", {"name": "Bobby", "minutes": 10}, admin)
    assert muted.status_code == 200, muted.text
    assert muted.json()["processes"] == 2 and muted.json()["unanswered"] == 0
    assert a.lobby.mutes.until(bob.id) is not None  # A's chat refuses Bob's lines now
    bob_ws.send({"type": "chat", "text": "hello"})
    refused = bob_ws.wait(lambda m: m["type"] == "error")
    assert refused["code"] == "muted"
    # and the guest's at the address A saw Bob at (the mute reached A's memory of it)
    ann.send({"type": "chat", "text": "me neither?"})
    refused = ann.wait(lambda m: m["type"] in ("error", "chat"))
    assert refused["type"] == "error" and refused["code"] == "muted", refused
    assert "muted by a moderator used this address" in refused["message"]
    unmuted = post(b, "/api/admin/unmute", {"name": "Bobby"}, admin)
    assert unmuted.status_code == 200 and a.lobby.mutes.until(bob.id) is None
    ann.send({"type": "chat", "text": "free again"})
    assert ann.wait(lambda m: m["type"] == "chat")["text"] == "free again"
    ann.close()

    banned = post(b, "/api/admin/ban", {"name": "Bobby"}, admin)
    assert banned.status_code == 200, banned.text
    assert banned.json() == {"name": "Bobby", "banned": True, "connections_closed": 1,
                             "processes": 2, "unanswered": 0}
    assert closed_with(bob_ws) == (4403, "this account was banned")
    seat = a.lobby.writers[table_id].table.seats[joined["seat"]]
    assert seat.token_hash == REVOKED_TOKEN or seat.kind == "empty"


def test_a_player_and_a_guest_are_refused_the_same_way_at_both_processes(
        pair: tuple[LiveServer, LiveServer]) -> None:
    a, b = pair
    pat = add_user(a, "Pat")
    table_id = owned_by_a(a, b, nickname="Ann")["table_id"]
    requests: list[tuple[str, str, Any]] = [
        ("POST", "/api/admin/kick", {"table_id": table_id, "seat": 0}),
        ("POST", "/api/admin/close", {"table_id": table_id}),
        ("POST", "/api/admin/mute", {"name": "Pat", "minutes": 5}),
        ("POST", "/api/admin/ban", {"name": "Pat"}),
        ("POST", "/api/admin/notice", {"text": "hi"}),
        ("GET", "/api/admin/tables", None),
    ]
    for method, path, body in requests:
        as_player = same_answer(a, b, method, path, body, pat)
        assert as_player.status_code == 403, path
        assert as_player.json()["error"]["code"] == "forbidden"
        as_guest = same_answer(a, b, method, path, body, None)
        assert as_guest.status_code == 401, path
    writer = a.lobby.writers[table_id]
    assert writer.table.status != "closed" and writer.table.seats[0].name == "Ann"
    assert a.lobby.mutes.until(pat.id) is None


def test_a_guest_becomes_an_account_and_reports_a_line_through_another_process(
        pair: tuple[LiveServer, LiveServer]) -> None:
    a, b = pair
    created = owned_by_a(a, b, nickname="Ann")
    table_id, token = created["table_id"], created["token"]
    ann = Client.open(a, table_id, token)
    ann.send({"type": "chat", "text": "you are slow"})
    assert ann.wait(lambda m: m["type"] == "chat")["text"] == "you are slow"

    # the report: a guest reporter names its seat by its token; the owner has the line
    reported = post(b, "/api/reports", {"table_id": table_id, "author": "Ann",
                                        "text": "you are slow", "token": token})
    assert reported.status_code == 201, reported.text
    stored = read_reports(a.app.state.server.accounts.engine, 10)
    assert [(r["table_id"], r["text"]) for r in stored] == [(table_id, "you are slow")]
    wrong = same_answer(a, b, "POST", "/api/reports", {
        "table_id": table_id, "author": "Ann", "text": "never said", "token": token}, None)
    assert wrong.status_code == 404 and wrong.json()["error"]["field"] == "text"

    refused = same_answer(a, b, "POST", "/api/account/upgrade", {
        "name": "Annie", "password": "a long password", "table_id": table_id,
        "token": "not-the-token"}, None)
    assert refused.status_code == 403
    planted = add_user(b, "Planted", "player")  # a session the request came with
    with b.http() as client:
        upgraded = client.post("/api/account/upgrade", json={
            "name": "Annie", "password": "a long password", "table_id": table_id,
            "token": token}, headers=planted.headers)
    assert upgraded.status_code == 201, upgraded.text
    assert upgraded.json()["seat"] == 0 and upgraded.json()["account"]["name"] == "Annie"
    account_id = upgraded.json()["account"]["id"]
    assert a.lobby.writers[table_id].table.seats[0].account_id == account_id  # at A
    assert a.stored_table(table_id).seats[0].account_id == account_id
    cookie = upgraded.headers["set-cookie"]
    assert cookie.startswith(f"{SESSION_COOKIE}=") and "HttpOnly" in cookie
    session = cookie.split(";", 1)[0]
    for server in (a, b):  # the new session works at every process
        with server.http() as client:
            me = client.get("/api/account/me", headers={"Cookie": session})
        assert me.status_code == 200 and me.json()["account"]["name"] == "Annie"
        with server.http() as client:  # the session it came with is gone, as in one process
            before = client.get("/api/account/me", headers=planted.headers)
        assert before.status_code == 401
    twice = same_answer(a, b, "POST", "/api/account/upgrade", {
        "name": "Annie2", "password": "a long password", "table_id": table_id,
        "token": token}, None)
    assert twice.status_code == 409 and twice.json()["error"]["code"] == "already_bound"
    ann.close()


def test_an_owner_that_does_not_answer_is_503_saying_so(
        pair: tuple[LiveServer, LiveServer], prefix: str) -> None:
    _a, b = pair
    admin = add_user(b, "Boss", "admin")

    async def ghost_lease(table_id: str, owner: str) -> None:  # a lease, nobody answering
        client = redis_client()
        try:
            assert await LeaseStore(client, owner, prefix).acquire(table_id, 60_000)
        finally:
            await client.aclose()

    asyncio.run(ghost_lease("ghosttable", "ghost@nowhere:1"))
    gone = post(b, "/api/admin/kick", {"table_id": "ghosttable", "seat": 0}, admin)
    assert gone.status_code == 503 and gone.json()["error"]["code"] == "unavailable"
    assert "does not listen" in gone.json()["error"]["message"]

    async def deaf_owner() -> None:  # listens on its request channel, never answers
        client = redis_client()
        pubsub = client.pubsub()
        try:
            await LeaseStore(client, "deaf@nowhere:2", prefix).acquire("deaftable", 60_000)
            await pubsub.subscribe(f"{prefix}:node:deaf@nowhere:2")
            answer = await asyncio.to_thread(
                post, b, "/api/admin/close", {"table_id": "deaftable"}, admin)
            assert answer.status_code == 503, answer.text
            assert "did not answer within 5 s" in answer.json()["error"]["message"]
            heard = None
            with contextlib.suppress(TimeoutError):
                while heard is None or heard["type"] != "message":
                    heard = await pubsub.get_message(timeout=1.0)
            assert heard is not None and b'"admin.close"' in heard["data"]
            assert b"Cookie" not in heard["data"] and b"cookie" not in heard["data"]
        finally:
            await pubsub.aclose()
            await client.aclose()

    asyncio.run(deaf_owner())


def test_a_seat_is_left_and_the_coach_asked_through_another_process(
        pair: tuple[LiveServer, LiveServer]) -> None:
    a, b = pair
    created = owned_by_a(a, b, nickname="Ann", players=3, preset="arena")
    table_id = created["table_id"]
    joined = b.join(table_id, nickname="Bob")  # the join ran at A
    path = f"/api/tables/{table_id}/coach"
    early = same_answer(a, b, "POST", path, {"token": created["token"]}, None)
    assert early.status_code == 409 and early.json()["error"]["code"] == "not_finished"
    stranger = same_answer(a, b, "POST", f"/api/tables/{table_id}/leave",
                           {"token": "not-a-seat"}, None)
    assert stranger.status_code == 403 and stranger.json()["error"]["code"] == "not_seated"
    left = post(b, f"/api/tables/{table_id}/leave", {"token": joined["token"]})
    assert left.status_code == 200, left.text
    assert left.json()["seat"] == joined["seat"]
    seat = a.lobby.writers[table_id].table.seats[joined["seat"]]  # emptied at the owner
    assert seat.kind == "empty" and seat.name is None
    assert a.stored_table(table_id).seats[joined["seat"]].kind == "empty"
    again = same_answer(a, b, "POST", f"/api/tables/{table_id}/leave",
                        {"token": joined["token"]}, None)
    assert again.status_code == 403


def test_a_member_that_missed_a_mute_or_a_ban_catches_up_from_the_database(
        tmp_path: Path, prefix: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from datetime import timedelta

    from sqlalchemy import update

    from ginrummy.server.http import admin_api
    from ginrummy.storage.accounts import ACCOUNTS
    from ginrummy.storage.repository import utcnow

    monkeypatch.setattr(admin_api, "CATCH_UP_SECONDS", 0.3)
    with pg_schema("admin") as schema, member(tmp_path, schema_url(schema), prefix) as a:
        bob = add_user(a, "Bobby")
        created = a.create(nickname="Ann")
        joined = post(a, f"/api/tables/{created['table_id']}/join", {"nickname": "x"}, bob)
        assert joined.status_code == 200, joined.text
        bob_ws = open_as(a, created["table_id"], bob, joined.json()["token"])
        engine = a.app.state.server.accounts.engine

        def store(**values: Any) -> None:  # as another member stored it, A not told
            with engine.begin() as conn:
                conn.execute(update(ACCOUNTS).where(ACCOUNTS.c.id == bob.id).values(values))

        store(muted_until=utcnow() + timedelta(minutes=5))
        until(lambda: a.lobby.mutes.until(bob.id) is not None, timeout=10,
              what="A reads the mute")
        store(muted_until=None)
        until(lambda: a.lobby.mutes.until(bob.id) is None, timeout=10,
              what="A reads the unmute")
        store(banned_at=utcnow())
        assert closed_with(bob_ws) == (4403, "this account was banned")
        seat = a.lobby.writers[created["table_id"]].table.seats[joined.json()["seat"]]
        assert seat.kind == "empty" or seat.token_hash == REVOKED_TOKEN
