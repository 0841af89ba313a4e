"""The admin routes (docs/moderation.md): who may call them, and what each action does to
live tables, connections, accounts and the moderation log."""

from __future__ import annotations

import contextlib
from typing import Any

from moderation_helpers import User, add_user, closed_with, get, log_rows, open_as, post
from server_helpers import Client, LiveServer, cards_in, until
from sqlalchemy import insert, select
from starlette.routing import Route

from ginrummy.server.core.kinds import Source, TableStatus
from ginrummy.server.play.settlement import Ending, MatchEnd
from ginrummy.server.play.tablewriter import REVOKED_TOKEN
from ginrummy.storage import Apply
from ginrummy.storage.accounts import ACCOUNTS, SESSIONS
from ginrummy.storage.models import ModerationRow
from ginrummy.storage.repository import utcnow


def admin_routes(server: LiveServer) -> list[tuple[str, str]]:
    """(method, path) of every route under /api/admin/, from the app's router."""
    routes = [(method, route.path) for route in server.app.routes
              if isinstance(route, Route) and route.path.startswith("/api/admin/")
              for method in sorted(route.methods or ()) if method != "HEAD"]
    assert len(routes) >= 10, routes
    return routes


def call(server: LiveServer, method: str, path: str, user: User | None) -> Any:
    with server.http() as client:
        return client.request(method, path, headers=user.headers if user else {},
                              json={} if method == "POST" else None)


def test_every_admin_route_refuses_guests_and_players(server: LiveServer) -> None:
    player = add_user(server, "Plain")
    admin = add_user(server, "Boss", "admin")
    routes = admin_routes(server)
    assert {path for _, path in routes} >= {
        "/api/admin/tables", "/api/admin/kick", "/api/admin/mute", "/api/admin/unmute",
        "/api/admin/ban", "/api/admin/unban", "/api/admin/close", "/api/admin/notice",
        "/api/admin/log", "/api/admin/reports", "/api/admin/reports/handled",
        "/api/admin/accounts/{name}"}
    for method, path in routes:
        guest = call(server, method, path, None)
        assert guest.status_code == 401, (method, path, guest.text)
        assert guest.json()["error"]["code"] == "not_logged_in"
        other = call(server, method, path, player)
        assert other.status_code == 403, (method, path, other.text)
        assert other.json()["error"]["code"] == "forbidden"
        # the administrator gets past the check (an empty body is then refused for itself)
        allowed = call(server, method, path, admin)
        assert allowed.status_code not in (401, 403), (method, path, allowed.text)
    assert log_rows(server) == []  # nothing refused was done


def seated_pair(server: LiveServer, bob: User, ann_user: User | None = None
                ) -> tuple[dict[str, Any], Client, Client, dict[str, Any]]:
    """Ann (a guest, or ``ann_user``'s account) creates a 2-seat table, Bob's account joins;
    both connected."""
    if ann_user is None:
        created = server.create(nickname="Ann")
    else:
        made = post(server, "/api/tables", {"nickname": "Ann"}, ann_user)
        assert made.status_code == 201, made.text
        created = made.json()
    table_id = created["table_id"]
    with server.http() as client:
        joined = client.post(f"/api/tables/{table_id}/join", json={"nickname": "ignored"},
                             headers=bob.headers)
    assert joined.status_code == 200, joined.text
    ann = Client.open(server, table_id, created["token"])
    bob_ws = open_as(server, table_id, bob, joined.json()["token"])
    return created, ann, bob_ws, joined.json()


def test_kick_closes_the_seat_and_the_computer_plays_on(server: LiveServer) -> None:
    admin = add_user(server, "Boss", "admin")
    bob = add_user(server, "Bobby")
    created, ann, bob_ws, joined = seated_pair(server, bob)
    table_id, bob_seat = created["table_id"], joined["seat"]
    writer = server.lobby.get(table_id)
    assert writer.table.seats[bob_seat].account_id == bob.id

    kicked = post(server, "/api/admin/kick", {"table_id": table_id, "seat": bob_seat}, admin)
    assert kicked.status_code == 200, kicked.text
    assert kicked.json() == {"table_id": table_id, "seat": bob_seat, "emptied": False}
    assert closed_with(bob_ws) == (4403, "an administrator removed you from this seat")
    told = ann.wait(lambda m: m["type"] == "state" and m["table"]["seats"][bob_seat]["away"])
    assert told["table"]["seats"][bob_seat]["kind"] == "human"  # the computer plays it
    stored = server.stored_table(table_id)
    assert stored.seats[bob_seat].token_hash == REVOKED_TOKEN
    assert stored.seats[bob_seat].account_id == bob.id  # it abandoned the match: on record

    # neither the seat token nor the account's cookie takes the seat back
    by_token = Client.open(server, table_id, hello=False)
    by_token.send({"type": "hello", "protocol": 2, "token": joined["token"], "invite": None})
    # told why (a kick or a ban is for good: the page stops reconnecting), not "bad token"
    assert closed_with(by_token) == (4403, "an administrator removed you from this seat")
    cookie_only = Client.open(server, table_id, None, hello=False,
                              additional_headers=bob.headers)
    cookie_only.send({"type": "hello", "protocol": 2, "token": None, "invite": None})
    assert closed_with(cookie_only) == (4403, "an administrator removed you from this seat")

    # Ann plays on; the computer plays the kicked seat
    for _ in range(40):
        events = server.stored_table(table_id).events
        if any(e.seat == bob_seat and e.source == Source.AWAY for e in events):
            break
        state = ann.playable()
        ann.send({"type": "action", "id": f"a{state['version']}", "version": state["version"],
                  "action": state["legal"][0]})
        ann.answer()
    else:
        raise AssertionError("the computer never played the kicked seat")
    assert writer.absent_seats() == frozenset({bob_seat})  # the match end: it abandoned

    rows = log_rows(server)
    assert [(r.action, r.actor_id, r.target_account_id, r.table_id) for r in rows] == [
        ("kick", admin.id, bob.id, table_id)]
    again = post(server, "/api/admin/kick", {"table_id": table_id, "seat": bob_seat}, admin)
    assert again.status_code == 409 and again.json()["error"]["code"] == "not_seated"
    assert len(log_rows(server)) == 1
    ann.close()


def test_kick_before_the_deal_empties_the_seat(server: LiveServer) -> None:
    admin = add_user(server, "Boss", "admin")
    created = server.create(nickname="Ann", players=3, preset="arena")
    ann = Client.open(server, created["table_id"], created["token"])
    watcher = Client.open(server, created["table_id"])
    kicked = post(server, "/api/admin/kick", {"table_id": created["table_id"], "seat": 0},
                  admin)
    assert kicked.status_code == 200 and kicked.json()["emptied"] is True
    assert closed_with(ann)[0] == 4403
    entry = watcher.wait(lambda m: m["type"] == "state"
                         and m["table"]["seats"][0]["kind"] == "empty")
    # her page coming back with the old seat token is told why (4403), not "bad token"
    again = Client.open(server, created["table_id"], hello=False)
    again.send({"type": "hello", "protocol": 2, "token": created["token"], "invite": None})
    assert closed_with(again) == (4403, "an administrator removed you from this seat")
    assert entry["table"]["status"] == "waiting"
    assert server.stored_table(created["table_id"]).seats[0].kind == "empty"
    watcher.close()


def test_kick_refuses_bad_input_and_changes_nothing(server: LiveServer) -> None:
    admin = add_user(server, "Boss", "admin")
    created = server.create(nickname="Ann", bots={"1": "simple"})
    table_id = created["table_id"]
    cases = [({"table_id": "nope", "seat": 0}, 404, "table_id"),
             ({"table_id": table_id, "seat": 3}, 400, "seat"),
             ({"table_id": table_id, "seat": 1}, 409, "seat"),  # a computer seat
             ({"table_id": table_id, "seat": -1}, 422, "seat"),
             ({"table_id": table_id}, 422, "seat")]
    for body, status, field in cases:
        answer = post(server, "/api/admin/kick", body, admin)
        assert answer.status_code == status, (body, answer.text)
        assert answer.json()["error"]["field"] == field
    assert server.stored_table(table_id).seats[0].token_hash != REVOKED_TOKEN
    assert log_rows(server) == []


def test_mute_refuses_chat_until_unmuted(server: LiveServer) -> None:
    admin = add_user(server, "Boss", "admin")
    bob = add_user(server, "Bobby")
    # Ann is an account: a guest at Bobby's address (every client here is 127.0.0.1) is
    # silenced with him (test_moderation_reach.py::test_a_mute_follows_the_account_to_its_address)
    _created, ann, bob_ws, _joined = seated_pair(server, bob, add_user(server, "Annie"))
    muted = post(server, "/api/admin/mute", {"name": "bobby", "minutes": 30}, admin)
    assert muted.status_code == 200, muted.text
    assert muted.json()["name"] == "Bobby" and muted.json()["muted_until"].endswith("Z")
    bob_ws.send({"type": "chat", "text": "you all stink"})
    refused = bob_ws.wait(lambda m: m["type"] in ("error", "chat"))
    assert refused["type"] == "error" and refused["code"] == "muted"
    assert "muted you in chat until" in refused["message"]
    ann.send({"type": "chat", "text": "hello"})
    heard = ann.wait(lambda m: m["type"] == "chat")
    assert heard["text"] == "hello"  # Bob's line never reached Ann: hers is the first
    engine = server.app.state.server.accounts.engine
    with engine.connect() as conn:
        assert conn.execute(select(ACCOUNTS.c.muted_until)
                            .where(ACCOUNTS.c.id == bob.id)).scalar_one() is not None

    standing = get(server, "/api/admin/accounts/Bobby", admin).json()
    assert standing["muted_until"] == muted.json()["muted_until"]
    assert standing["banned_at"] is None and standing["seats"][0]["kicked"] is False
    unmuted = post(server, "/api/admin/unmute", {"name": "Bobby"}, admin)
    assert unmuted.status_code == 200 and unmuted.json()["muted_until"] is None
    bob_ws.send({"type": "chat", "text": "sorry"})
    assert ann.wait(lambda m: m["type"] == "chat")["text"] == "sorry"
    assert [(r.action, r.target_account_id, r.detail) for r in log_rows(server)] == [
        ("mute", bob.id, "30 min"), ("unmute", bob.id, "")]
    for body in ({"name": "nobody-here", "minutes": 5}, {"name": "Bobby", "minutes": 0}):
        answer = post(server, "/api/admin/mute", body, admin)
        assert answer.status_code in (404, 422), answer.text
        assert answer.json()["error"]["field"] in ("name", "minutes")
    ann.close()
    bob_ws.close()


def test_a_mute_survives_a_restart(make_server: Any, tmp_path: Any) -> None:
    first = make_server()
    admin = add_user(first, "Boss", "admin")
    add_user(first, "Bobby")
    assert post(first, "/api/admin/mute", {"name": "Bobby", "minutes": 60},
                admin).status_code == 200
    db = first.settings.db
    first.server.should_exit = True
    first.thread.join(10)
    second = make_server(db=db)
    mutes = second.lobby.mutes
    bob_id = second.app.state.server.accounts.by_key("bobby").id
    assert mutes.until(bob_id) is not None


def test_ban_ends_sessions_and_closes_sockets_at_once(server: LiveServer) -> None:
    admin = add_user(server, "Boss", "admin")
    bob = add_user(server, "Bobby")
    created, ann, bob_ws, joined = seated_pair(server, bob)
    table_id = created["table_id"]
    elsewhere = server.create(nickname="Cy", bots={"1": "simple"})
    bob_watching = open_as(server, elsewhere["table_id"], bob)

    banned = post(server, "/api/admin/ban", {"name": "Bobby"}, admin)
    assert banned.status_code == 200, banned.text
    assert banned.json() == {"name": "Bobby", "banned": True, "connections_closed": 2}
    assert closed_with(bob_ws, 2) == (4403, "this account was banned")
    assert closed_with(bob_watching, 2) == (4403, "this account was banned")
    engine = server.app.state.server.accounts.engine
    with engine.connect() as conn:  # its session is kept, dead, while the ban lasts
        assert len(conn.execute(select(SESSIONS)
                                .where(SESSIONS.c.account_id == bob.id)).all()) == 1
        assert conn.execute(select(ACCOUNTS.c.banned_at)
                            .where(ACCOUNTS.c.id == bob.id)).scalar_one() is not None
    # the old cookie is worth nothing now
    assert get(server, "/api/admin/tables", bob).status_code == 401
    seat = server.lobby.get(table_id).table.seats[joined["seat"]]
    assert seat.token_hash == REVOKED_TOKEN and seat.away  # the computer plays it
    # the page coming back with its seat token (its socket was down during the ban) is told
    # why, as the open sockets were: a final close, not "bad token" (flake 13)
    by_token = Client.open(server, table_id, hello=False)
    by_token.send({"type": "hello", "protocol": 2, "token": joined["token"], "invite": None})
    assert closed_with(by_token) == (4403, "this account was banned")
    standing = get(server, "/api/admin/accounts/bobby", admin)
    assert standing.status_code == 200, standing.text
    assert standing.json()["banned_at"] is not None and standing.json()["role"] == "player"
    assert standing.json()["seats"] == [{"table_id": table_id, "seat": joined["seat"],
                                         "status": "playing", "kicked": True}]
    assert get(server, "/api/admin/accounts/nobody-at-all", admin).status_code == 404
    again = post(server, "/api/admin/ban", {"name": "Bobby"}, admin)
    assert again.status_code == 409 and again.json()["error"]["code"] == "already_banned"
    assert post(server, "/api/admin/ban", {"name": "Boss"}, admin).status_code == 400
    unbanned = post(server, "/api/admin/unban", {"name": "Bobby"}, admin)
    assert unbanned.status_code == 200 and unbanned.json()["banned"] is False
    with engine.connect() as conn:  # the unban deletes the sessions: none comes back
        assert conn.execute(select(ACCOUNTS.c.banned_at)
                            .where(ACCOUNTS.c.id == bob.id)).scalar_one() is None
        assert conn.execute(select(SESSIONS).where(SESSIONS.c.account_id == bob.id)).all() == []
    assert get(server, "/api/admin/tables", bob).status_code == 401
    assert [(r.action, r.actor_id, r.target_account_id) for r in log_rows(server)] == [
        ("ban", admin.id, bob.id), ("unban", admin.id, bob.id)]
    ann.close()


def test_close_stops_the_table_and_stores_the_status(server: LiveServer) -> None:
    admin = add_user(server, "Boss", "admin")
    created = server.create(nickname="Ann", bots={"1": "simple"}, clock_seconds=30)
    table_id = created["table_id"]
    ann = Client.open(server, table_id, created["token"])
    state = ann.playable()
    closed = post(server, "/api/admin/close", {"table_id": table_id}, admin)
    assert closed.status_code == 200, closed.text
    assert closed.json() == {"table_id": table_id, "status": "closed"}
    final = ann.wait(lambda m: m["type"] == "state" and m["table"]["status"] == "closed")
    assert final["legal"] == [] and final["clock"] is None
    assert ann.wait(lambda m: m["type"] == "notice")["text"] == \
        "an administrator closed this table"
    stored = server.stored_table(table_id)
    assert stored.status == TableStatus.CLOSED and stored.clock_seat is None
    assert stored.version == state["version"]  # no event: the record stays as it was
    ann.send({"type": "action", "id": "late", "version": final["version"],
              "action": state["legal"][0]})
    assert ann.answer()["code"] == "no_hand"
    with server.http() as client:
        assert table_id not in [t["id"] for t in client.get("/api/tables").json()["tables"]]
    again = post(server, "/api/admin/close", {"table_id": table_id}, admin)
    assert again.status_code == 409 and again.json()["error"]["code"] == "table_stopped"
    missing = post(server, "/api/admin/close", {"table_id": "nope"}, admin)
    assert missing.status_code == 404
    assert [(r.action, r.table_id, r.actor_id) for r in log_rows(server)] == [
        ("close", table_id, admin.id)]
    ann.close()


def test_notice_reaches_every_connection(server: LiveServer) -> None:
    admin = add_user(server, "Boss", "admin")
    one = server.create(nickname="Ann", bots={"1": "simple"})
    two = server.create(nickname="Cy")
    clients = [Client.open(server, one["table_id"], one["token"]),
               Client.open(server, one["table_id"]),  # a spectator
               Client.open(server, two["table_id"], two["token"])]
    sent = post(server, "/api/admin/notice", {"text": "  restart in\n5 minutes "}, admin)
    assert sent.status_code == 200, sent.text
    assert sent.json() == {"sent": 3}
    for client in clients:
        message = client.wait(lambda m: m["type"] == "notice")
        assert message["text"] == "restart in 5 minutes"
        assert message["at"].endswith("Z")
        client.close()
    for bad in ("", "   ", "x" * 501):
        refused = post(server, "/api/admin/notice", {"text": bad}, admin)
        assert refused.status_code == 400 and refused.json()["error"]["field"] == "text"
    assert [(r.action, r.detail) for r in log_rows(server)] == [
        ("notice", "restart in 5 minutes")]


def test_admin_tables_and_the_log_newest_first(server: LiveServer) -> None:
    admin = add_user(server, "Boss", "admin")
    bob = add_user(server, "Bobby")
    created, ann, bob_ws, joined = seated_pair(server, bob)
    listed = get(server, "/api/admin/tables", admin)
    assert listed.status_code == 200
    table = next(t for t in listed.json()["tables"] if t["id"] == created["table_id"])
    assert [s["account"] for s in table["seats"]] == [None, "Bobby"]
    assert table["connections"] == 2 and table["seats"][1]["kicked"] is False
    text = listed.text
    assert created["token"] not in text and joined["token"] not in text
    assert "token" not in text and "view" not in text and cards_in(listed.json()) == set()

    post(server, "/api/admin/mute", {"name": "Bobby", "minutes": 5}, admin)
    post(server, "/api/admin/notice", {"text": "hi all"}, admin)
    post(server, "/api/admin/kick", {"table_id": created["table_id"], "seat": 1}, admin)
    entries = get(server, "/api/admin/log", admin).json()["log"]
    assert [(e["action"], e["actor"], e["target"]) for e in entries] == [
        ("kick", "Boss", "Bobby"), ("notice", "Boss", None), ("mute", "Boss", "Bobby")]
    assert entries[0]["table_id"] == created["table_id"]
    older = get(server, f"/api/admin/log?limit=1&before={entries[0]['id']}", admin)
    assert [e["action"] for e in older.json()["log"]] == ["notice"]
    assert get(server, "/api/admin/log?limit=0", admin).status_code == 400
    assert get(server, "/api/admin/log?before=x", admin).status_code == 400
    huge = get(server, f"/api/admin/log?before={10**30}", admin)
    assert huge.status_code == 400 and huge.json()["error"]["field"] == "before"
    with contextlib.suppress(Exception):
        ann.close()
        bob_ws.close()
    assert until(lambda: table["id"] in [t["id"] for t in get(
        server, "/api/admin/tables", admin).json()["tables"]])


def test_close_commits_the_match_end_writes_with_the_status(server: LiveServer) -> None:
    admin = add_user(server, "Boss", "admin")
    ends: list[tuple[str, str, frozenset[int]]] = []

    def refund(end: MatchEnd) -> list[Apply]:
        """A stand-in for the chips hook: a row that must commit with the status."""
        ends.append((end.table.id, end.ending, end.absent))
        table_id = end.table.id
        return [Apply(lambda conn: conn.execute(
            insert(ModerationRow.__table__).values(
                at=utcnow(), action="refund", table_id=table_id, detail="hook")))]

    server.lobby.hooks.on_end.append(refund)
    created = server.create(nickname="Ann", bots={"1": "simple"})
    ann = Client.open(server, created["table_id"], created["token"])
    ann.playable()
    assert post(server, "/api/admin/close", {"table_id": created["table_id"]},
                admin).status_code == 200
    assert ends == [(created["table_id"], Ending.CLOSED, frozenset())]
    assert [(r.action, r.table_id) for r in log_rows(server)] == [
        ("refund", created["table_id"]), ("close", created["table_id"])]
    ann.close()


def test_a_close_that_cannot_be_stored_leaves_the_table_playing(server: LiveServer) -> None:
    admin = add_user(server, "Boss", "admin")

    def broken(_end: MatchEnd) -> list[Apply]:
        def fail(_conn: Any) -> None:
            raise RuntimeError("the ledger refused")
        return [Apply(fail)]

    server.lobby.hooks.on_end.append(broken)
    created = server.create(nickname="Ann", bots={"1": "simple"})
    ann = Client.open(server, created["table_id"], created["token"])
    state = ann.playable()
    refused = post(server, "/api/admin/close", {"table_id": created["table_id"]}, admin)
    assert refused.status_code == 503 and refused.json()["error"]["code"] == "storage"
    assert server.stored_table(created["table_id"]).status == TableStatus.PLAYING
    assert server.lobby.get(created["table_id"]).table.status == TableStatus.PLAYING
    assert log_rows(server) == []
    ann.send({"type": "action", "id": "after", "version": state["version"],
              "action": state["legal"][0]})
    assert ann.answer()["type"] == "state"  # the game goes on
    ann.close()


def test_a_kick_survives_a_restart(make_server: Any) -> None:
    first = make_server()
    admin = add_user(first, "Boss", "admin")
    bob = add_user(first, "Bobby")
    created, ann, bob_ws, joined = seated_pair(first, bob)
    assert post(first, "/api/admin/kick", {"table_id": created["table_id"],
                                           "seat": joined["seat"]}, admin).status_code == 200
    closed_with(bob_ws)
    ann.close()
    first.server.should_exit = True
    first.thread.join(10)
    second = make_server(db=first.settings.db)
    seat = second.lobby.get(created["table_id"]).table.seats[joined["seat"]]
    assert seat.token_hash == REVOKED_TOKEN and seat.away and seat.account_id == bob.id
    back = Client.open(second, created["table_id"], None, hello=False,
                       additional_headers=bob.headers)
    back.send({"type": "hello", "protocol": 2, "token": None, "invite": None})
    assert closed_with(back) == (4403, "an administrator removed you from this seat")



def test_moderation_on_postgresql(make_server: Any, pg_url: str) -> None:
    server = make_server(db=pg_url)
    admin = add_user(server, "Boss", "admin")
    bob = add_user(server, "Bobby")
    created, ann, bob_ws, joined = seated_pair(server, bob)
    assert post(server, "/api/admin/mute", {"name": "Bobby", "minutes": 5},
                admin).status_code == 200
    bob_ws.send({"type": "chat", "text": "hi"})
    assert bob_ws.wait(lambda m: m["type"] == "error")["code"] == "muted"
    banned = post(server, "/api/admin/ban", {"name": "Bobby"}, admin)
    assert banned.status_code == 200 and banned.json()["connections_closed"] == 1
    assert closed_with(bob_ws)[0] == 4403
    assert server.stored_table(created["table_id"]).seats[joined["seat"]].token_hash == \
        REVOKED_TOKEN
    assert post(server, "/api/admin/close", {"table_id": created["table_id"]},
                admin).status_code == 200
    assert server.stored_table(created["table_id"]).status == TableStatus.CLOSED
    entries = get(server, "/api/admin/log", admin).json()["log"]
    assert [(e["action"], e["actor"], e["target"]) for e in entries] == [
        ("close", "Boss", None), ("ban", "Boss", "Bobby"), ("mute", "Boss", "Bobby")]
    ann.close()


def test_closing_a_finished_table_settles_nothing_again(server: LiveServer) -> None:
    admin = add_user(server, "Boss", "admin")
    ends: list[str] = []
    server.lobby.hooks.on_end.append(lambda end: ends.append(end.ending) or [])
    created = server.create(nickname="Ann", bots={"1": "simple"},
                            options={"format": "single_hand"})
    ann = Client.open(server, created["table_id"], created["token"])
    for n in range(300):
        state = ann.state
        if state["table"]["status"] == "over":
            break
        if not state["legal"]:
            ann.wait(lambda m: m["type"] == "state")
            continue
        ann.send({"type": "action", "id": f"p{n}", "version": state["version"],
                  "action": state["legal"][0]})
        ann.answer()
    assert ann.state["table"]["status"] == "over"
    assert ends == [Ending.OVER]
    assert post(server, "/api/admin/close", {"table_id": created["table_id"]},
                admin).status_code == 200
    assert ends == [Ending.OVER]  # the match was settled when it ended, not again
    assert server.stored_table(created["table_id"]).status == TableStatus.CLOSED
    ann.close()


def test_an_account_kicked_before_the_deal_cannot_sit_down_again(server: LiveServer) -> None:
    admin = add_user(server, "Boss", "admin")
    bob = add_user(server, "Bobby")
    created = server.create(nickname="Ann", players=3, preset="arena")
    table_id = created["table_id"]
    joined = post(server, f"/api/tables/{table_id}/join", {"nickname": "x"}, bob)
    assert joined.status_code == 200, joined.text
    kicked = post(server, "/api/admin/kick", {"table_id": table_id,
                                              "seat": joined.json()["seat"]}, admin)
    assert kicked.status_code == 200 and kicked.json()["emptied"] is True
    again = post(server, f"/api/tables/{table_id}/join", {"nickname": "x"}, bob)
    assert again.status_code == 409, again.text
    assert again.json()["error"] == {"code": "barred", "field": "seat",
                                     "message": "an administrator removed you from this table"}
    carol = add_user(server, "Carol")
    assert post(server, f"/api/tables/{table_id}/join", {"nickname": "x"},
                carol).status_code == 200  # the seat itself is free for anyone else


def test_bad_bodies_never_crash_an_admin_route(server: LiveServer) -> None:
    admin = add_user(server, "Boss", "admin")
    created = server.create(nickname="Ann", bots={"1": "simple"})
    posts = [path for method, path in admin_routes(server) if method == "POST"]
    posts.append("/api/reports")
    bodies: list[Any] = [[], "x", None, 7, {"table_id": 5}, {"name": None},
                         {"table_id": created["table_id"], "seat": "1"},
                         {"name": "Boss", "minutes": 10**30}, {"text": 123}, {"id": -1},
                         {"id": 10**30}, {"extra": 1}, {"name": "x" * 5000},
                         {"table_id": "../../etc", "seat": 0},
                         {"table_id": created["table_id"], "author": "Ann", "text": "",
                          "token": "t" * 500}]
    with server.http() as client:
        for path in posts:
            for body in bodies:
                answer = client.post(path, json=body, headers=admin.headers)
                assert 400 <= answer.status_code < 500, (path, body, answer.text)
                assert answer.json()["error"]["code"]
            raw = client.post(path, content=b"{not json", headers={
                **admin.headers, "Content-Type": "application/json"})
            assert raw.status_code == 400, (path, raw.text)
            deep = client.post(path, content=b"[" * 10_000 + b"]" * 10_000, headers={
                **admin.headers, "Content-Type": "application/json"})
            assert 400 <= deep.status_code < 500, (path, deep.text)
            form = client.post(path, content=b"name=Boss", headers={
                **admin.headers, "Content-Type": "application/x-www-form-urlencoded"})
            assert form.status_code == 415
    assert log_rows(server) == []
    assert server.stored_table(created["table_id"]).status == TableStatus.PLAYING
