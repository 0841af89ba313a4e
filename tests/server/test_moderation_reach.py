"""Bans and mutes that reach every socket of an account, guests that cannot pass for an
account, and log-outs that close sockets (issue 25, points 5 and 9; docs/moderation.md)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

from moderation_helpers import (
    User,
    add_user,
    closed_with,
    open_as,
    post,
    refused_with,
)
from server_helpers import Client, LiveServer

from ginrummy.server.core.auth import secret_hash
from ginrummy.server.players import moderation
from ginrummy.server.players.names import name_key
from ginrummy.server.players.sessions import (
    SESSION_COOKIE,
    SESSION_LIFETIME,
    hash_password,
    new_session_token,
)

PASSWORD = "correct horse battery"


def seated_account(server: LiveServer, user: User) -> tuple[str, str]:
    """A table of the guest Ann with ``user``'s account seated: its id and the seat token."""
    created = server.create(nickname="Ann")
    joined = post(server, f"/api/tables/{created['table_id']}/join", {"nickname": "x"}, user)
    assert joined.status_code == 200, joined.text
    return str(created["table_id"]), str(joined.json()["token"])


def alive(client: Client) -> bool:
    """True when the socket still answers a ping."""
    client.send({"type": "ping"})
    return client.wait(lambda m: m["type"] == "pong", 10)["type"] == "pong"


# ------------------------------------------------------------------------- bans
def test_a_socket_opened_after_the_ban_committed_is_refused(server: LiveServer) -> None:
    """The ordering of the flaky browser test: the ban is stored, and the banned client's
    reconnect (its cookie, no token: an account's seat) arrives before the ban's closing of
    the account's sockets ran. It is refused, not seated as a spectator."""
    bob = add_user(server, "Bobby")
    table_id, token = seated_account(server, bob)
    server.app.state.server.accounts.set(bob.id, banned_at=datetime.now(UTC))  # stored only
    assert refused_with(server, table_id, headers=bob.headers) == (
        4403, "this account was banned")
    # banned here too (the ban's broadcast arrived): its seat token is refused as well
    server.lobby.restrictions.banned.add(bob.id)
    assert refused_with(server, table_id, token=token) == (4403, "this account was banned")


def test_a_socket_attaching_while_the_ban_runs_is_closed(server: LiveServer) -> None:
    """The ban closes the account's connections while a socket of it is on its way in
    (checked, not yet attached): that socket is closed once attached, not left seated."""
    bob = add_user(server, "Bobby")
    table_id, token = seated_account(server, bob)
    writer = server.lobby.get(table_id)
    attach = writer.attach

    async def attach_during_the_ban(conn: Any, **options: Any) -> None:
        server.lobby.restrictions.banned.add(bob.id)  # the ban ran meanwhile, elsewhere
        await attach(conn, **options)

    writer.attach = attach_during_the_ban
    client = Client.open(server, table_id, hello=False)
    client.send({"type": "hello", "protocol": 2, "token": token, "invite": None})
    assert closed_with(client, 5) == (4403, "this account was banned")


def test_the_catch_up_removes_a_banned_account_seated_here(server: LiveServer) -> None:
    """A ban this process missed (stored only, no broadcast): the periodic catch-up takes
    every stored ban as this process's and removes the banned account seated here."""
    bob = add_user(server, "Bobby")
    table_id, token = seated_account(server, bob)
    writer = server.lobby.get(table_id)
    attach = writer.attach
    loops: list[asyncio.AbstractEventLoop] = []

    async def noting_the_loop(conn: Any, **options: Any) -> None:
        loops.append(asyncio.get_running_loop())  # the server's, to run the catch-up on
        await attach(conn, **options)

    writer.attach = noting_the_loop
    client = Client.open(server, table_id, token=token)
    server.app.state.server.accounts.set(bob.id, banned_at=datetime.now(UTC))  # stored only
    engine = server.app.state.server.accounts.engine
    closed = asyncio.run_coroutine_threadsafe(
        moderation.catch_up(server.lobby, engine), loops[0]).result(30)
    assert closed == 1
    assert server.lobby.restrictions.banned == {bob.id}
    assert closed_with(client, 10) == (4403, "this account was banned")


def test_a_ban_closes_the_guest_side_of_its_address(server: LiveServer) -> None:
    admin = add_user(server, "Boss", "admin")
    bob = add_user(server, "Bobby")
    table_id, token = seated_account(server, bob)
    bob_ws = open_as(server, table_id, bob, token)  # the address is seen with the account
    guest_table = server.create(nickname="Zed")  # a guest seat made before the ban
    guest = Client.open(server, str(guest_table["table_id"]), str(guest_table["token"]))
    assert post(server, "/api/admin/ban", {"name": "Bobby"}, admin).status_code == 200
    assert closed_with(bob_ws, 5) == (4403, "this account was banned")
    with server.http() as client:  # no guest table from the banned account's address
        created = client.post("/api/tables", json={"nickname": "Bobby2"})
        joined = client.post(f"/api/tables/{table_id}/join", json={"nickname": "Bob"})
    assert created.status_code == 403 and created.json()["error"]["code"] == "banned"
    assert joined.status_code == 403 and joined.json()["error"]["code"] == "banned"
    guest.send({"type": "chat", "text": "i am back"})  # nor a guest's chat
    refused = guest.wait(lambda m: m["type"] in ("error", "chat"))
    assert refused["type"] == "error" and refused["code"] == "muted"
    assert "banned" in refused["message"]
    unbanned = post(server, "/api/admin/unban", {"name": "Bobby"}, admin)
    assert unbanned.status_code == 200
    guest.send({"type": "chat", "text": "hello again"})
    assert guest.wait(lambda m: m["type"] == "chat")["text"] == "hello again"
    guest.close()


# ------------------------------------------------------------------------- chat
def test_a_spectator_chats_only_with_an_account(server: LiveServer) -> None:
    bob = add_user(server, "Bobby")
    created = server.create(nickname="Ann", bots={"1": "simple"})
    table_id = str(created["table_id"])
    stranger = Client.open(server, table_id)
    stranger.send({"type": "chat", "text": "anonymous words"})
    refused = stranger.wait(lambda m: m["type"] in ("error", "chat"))
    assert refused["type"] == "error" and refused["code"] == "spectator_chat"
    assert "log in" in refused["message"]
    watching = open_as(server, table_id, bob)
    watching.send({"type": "chat", "text": "nice hand"})
    heard = stranger.wait(lambda m: m["type"] == "chat")
    assert (heard["name"], heard["text"]) == ("Bobby", "nice hand")
    stranger.close()
    watching.close()


def test_a_mute_follows_the_account_into_a_spectator_socket(server: LiveServer) -> None:
    admin = add_user(server, "Boss", "admin")
    bob = add_user(server, "Bobby")
    created = server.create(nickname="Ann", bots={"1": "simple"})
    table_id = str(created["table_id"])
    assert post(server, "/api/admin/mute", {"name": "Bobby", "minutes": 5},
                admin).status_code == 200
    with_cookie = open_as(server, table_id, bob)
    without = Client.open(server, table_id)
    for client, code in ((with_cookie, "muted"), (without, "spectator_chat")):
        client.send({"type": "chat", "text": "still here"})
        answer = client.wait(lambda m: m["type"] in ("error", "chat"))
        assert answer["type"] == "error" and answer["code"] == code
        client.close()


def said(client: Client, text: str) -> dict[str, Any]:
    """Send a chat line from ``client``; what it hears back first: its own line or an error."""
    client.send({"type": "chat", "text": text})
    return client.wait(lambda m: m["type"] in ("error", "chat")
                       and (m["type"] == "error" or m.get("text") == text))


def test_a_mute_follows_the_account_to_its_address(server: LiveServer) -> None:
    """While Bobby's mute lasts, a guest chatting from an address Bobby was seen at (every
    client of the tests is 127.0.0.1) is refused with ``muted``, saying until when; another
    account at that address chats on; the mute's end (by time, or the unmute) frees the
    guest's chat."""
    admin = add_user(server, "Boss", "admin")
    bob, cy = add_user(server, "Bobby"), add_user(server, "Cyril")
    table_id, token = seated_account(server, bob)  # Bobby seen here: he joined a table
    guest_table = server.create(nickname="Zed", bots={"1": "simple"})
    guest = Client.open(server, str(guest_table["table_id"]), str(guest_table["token"]))
    cy_ws = open_as(server, str(guest_table["table_id"]), cy)  # an account watching
    assert said(guest, "before the mute")["type"] == "chat"
    muted = post(server, "/api/admin/mute", {"name": "Bobby", "minutes": 30}, admin)
    assert muted.status_code == 200, muted.text
    until_text = muted.json()["muted_until"][:16].replace("T", " ")  # 2026-12-01 19:30

    refused = said(guest, "i am Bobby's friend")
    assert refused["type"] == "error" and refused["code"] == "muted", refused
    assert "muted by a moderator used this address" in refused["message"]
    assert f"until {until_text} UTC" in refused["message"]
    heard = said(cy_ws, "i have my own standing")  # another account: not silenced
    assert heard["type"] == "chat" and heard["name"] == "Cyril"
    bob_ws = open_as(server, table_id, bob, token)  # Bobby himself: his own mute's words
    own = said(bob_ws, "me again")
    assert own["code"] == "muted" and "muted you in chat until" in own["message"]
    assert "i am Bobby's friend" not in [m.get("text") for m in cy_ws.frames]

    # the mute's end passes (as the clock would pass 30 minutes): the guest chats again
    server.lobby.mutes.set(bob.id, datetime.now(UTC) - timedelta(seconds=1))
    assert said(guest, "time is up")["type"] == "chat"
    assert post(server, "/api/admin/mute", {"name": "Bobby", "minutes": 5},
                admin).status_code == 200
    assert said(guest, "again")["code"] == "muted"
    assert post(server, "/api/admin/unmute", {"name": "Bobby"}, admin).status_code == 200
    assert said(guest, "unmuted")["type"] == "chat"
    for client in (guest, cy_ws, bob_ws):
        client.close()


# ------------------------------------------------------------------------- nicknames
def test_a_guest_nickname_cannot_pass_for_an_account(server: LiveServer) -> None:
    add_user(server, "Ann2be1")
    add_user(server, "Boss", "admin")
    created = server.create(nickname="Zed")
    for nickname, status, code in (
            ("Ann2be1", 409, "name_taken"), ("ann2be1", 409, "name_taken"),
            ("ᴀnn2be1", 409, "name_taken"), ("ɑnn2be1", 409, "name_taken"),
            ("Аnn2bе1", 409, "name_taken"), ("Ann 2be1", 409, "name_taken"),
            ("BOSS", 409, "name_taken"), ("Ann2be1\u3164", 400, "bad_request"),
            ("\u3164\u115f", 400, "bad_request"), ("\u200b", 400, "bad_request"),
            ("admin", 400, "bad_request"), ("Moderator", 400, "bad_request"),
            ("ginrummy team", 400, "bad_request")):
        with server.http() as client:
            made = client.post("/api/tables", json={"nickname": nickname})
            joined = client.post(f"/api/tables/{created['table_id']}/join",
                                 json={"nickname": nickname})
        for answer in (made, joined):
            assert answer.status_code == status, (nickname, answer.text)
            assert answer.json()["error"]["code"] == code
            assert answer.json()["error"]["field"] == "nickname"
    assert server.create(nickname="Ann the second")["seat"] == 0


def test_seats_show_which_are_accounts(server: LiveServer) -> None:
    bob = add_user(server, "Bobby")
    table_id, _token = seated_account(server, bob)
    ann = Client.open(server, table_id)
    marks = [seat.get("account") for seat in ann.state["table"]["seats"]]
    assert marks == [False, True]
    with server.http() as client:
        listed = client.get(f"/api/tables/{table_id}").json()
    assert [seat.get("account") for seat in listed["seats"]] == [False, True]
    ann.close()


# ------------------------------------------------------------------------- log-outs
def account_with_sessions(server: LiveServer, name: str, sessions: int) -> tuple[int, list[str]]:
    """An account with a real password and ``sessions`` live sessions (their tokens)."""
    store = server.app.state.server.accounts
    account = store.create(name, name_key(name), hash_password(PASSWORD))
    tokens = [new_session_token() for _ in range(sessions)]
    for token in tokens:
        store.add_session(secret_hash(token), account.id, SESSION_LIFETIME)
    return account.id, tokens


def cookie(token: str) -> dict[str, str]:
    return {"Cookie": f"{SESSION_COOKIE}={token}"}


def test_log_out_everywhere_closes_the_accounts_sockets(server: LiveServer) -> None:
    account_id, (phone, laptop) = account_with_sessions(server, "Pat", 2)
    created = server.create(nickname="Ann")
    table_id = str(created["table_id"])
    with server.http() as client:
        joined = client.post(f"/api/tables/{table_id}/join", json={"nickname": "x"},
                             headers=cookie(phone))
    seat_token = joined.json()["token"]
    seated = Client.open(server, table_id, seat_token)  # by the seat's token alone
    watching = Client.open(server, table_id, additional_headers=cookie(laptop))
    other = server.create(nickname="Cy", bots={"1": "simple"})
    elsewhere = Client.open(server, str(other["table_id"]), additional_headers=cookie(phone))
    ann = Client.open(server, table_id, str(created["token"]))
    with server.http() as client:
        out = client.post("/api/account/logout", json={"everywhere": True},
                          headers=cookie(laptop))
    assert out.status_code == 204
    reason = "this account logged out everywhere: log in again"
    for client in (seated, watching, elsewhere):
        assert closed_with(client, 5) == (4403, reason)
    assert alive(ann)  # another player's socket stays
    seat = server.lobby.get(table_id).table.seats[joined.json()["seat"]]
    assert seat.account_id == account_id  # the seat stays the account's
    ann.close()


def test_a_password_change_closes_the_other_sessions_sockets(server: LiveServer) -> None:
    _account_id, (phone, laptop) = account_with_sessions(server, "Pat", 2)
    created = server.create(nickname="Ann", bots={"1": "simple"})
    table_id = str(created["table_id"])
    on_phone = Client.open(server, table_id, additional_headers=cookie(phone))
    on_laptop = Client.open(server, table_id, additional_headers=cookie(laptop))
    with server.http() as client:
        changed = client.post("/api/account/password",
                              json={"old": PASSWORD, "new": "another password 2"},
                              headers=cookie(phone))
    assert changed.status_code == 200, changed.text
    assert closed_with(on_laptop, 5) == (4403, "this account's password was changed: log "
                                                "in again")
    assert alive(on_phone)  # the session that changed it keeps its sockets
    on_phone.close()


def test_restrictions_remember_few_addresses(server: Any) -> None:
    from ginrummy.server.play.restrictions import ADDRESSES_PER_ACCOUNT, Restrictions

    kept = Restrictions()
    for n in range(ADDRESSES_PER_ACCOUNT + 3):
        kept.seen(7, f"10.0.0.{n}")
    kept.banned.add(7)
    assert len(kept.addresses(7)) == ADDRESSES_PER_ACCOUNT
    assert not kept.address_banned("10.0.0.0") and kept.address_banned("10.0.0.10")
    kept.replace_bans(set())
    assert not kept.address_banned("10.0.0.10")


def test_the_mute_at_an_address_lasts_as_long_as_its_last_muted_account() -> None:
    from ginrummy.server.play.chat import ChatMutes
    from ginrummy.server.play.restrictions import Restrictions

    kept, mutes, now = Restrictions(), ChatMutes(), datetime.now(UTC)
    kept.seen(7, "10.0.0.1")
    kept.seen(8, "10.0.0.1")
    kept.seen(9, "10.0.0.2")
    mutes.set(7, now + timedelta(minutes=5))
    mutes.set(8, now + timedelta(minutes=10))
    mutes.set(9, now - timedelta(seconds=1))  # over already
    assert kept.accounts_at("10.0.0.1") == {7, 8}
    assert mutes.latest(kept.accounts_at("10.0.0.1")) == now + timedelta(minutes=10)
    assert mutes.latest(kept.accounts_at("10.0.0.2")) is None
    assert mutes.latest(kept.accounts_at("10.0.0.3")) is None
    mutes.set(8, None)  # unmuted
    assert mutes.latest(kept.accounts_at("10.0.0.1")) == now + timedelta(minutes=5)
