"""Friends on a live server (docs/friends.md): requests, acceptance and the lists with
presence; the push socket's presence changes and invitations (accepted: the friend sits at
the table; declined: the sender is told); blocks refuse requests, hide chat and keep the
blocked account away from the blocker's private tables. Every refusal changes nothing."""

from __future__ import annotations

from typing import Any

import pytest
from server_helpers import AccountPush, Client, LiveServer, open_socket
from test_chips import get, login, post
from websockets.exceptions import ConnectionClosed, InvalidStatus


def befriend(server: LiveServer, a: dict[str, str], a_name: str, b: dict[str, str],
             b_name: str) -> None:
    assert post(server, "/api/friends/request", {"name": b_name}, a).json() == {
        "ok": True, "status": "requested"}
    assert post(server, "/api/friends/accept", {"name": a_name}, b).status_code == 200


def presence_of(server: LiveServer, who: dict[str, str], name: str) -> dict[str, Any]:
    friends = get(server, "/api/friends", who).json()["friends"]
    return next(f["presence"] for f in friends if f["name"] == name)


def test_requests_lists_and_clear_errors(server: LiveServer) -> None:
    ann, bob = login(server, "Ann"), login(server, "Bob")
    assert get(server, "/api/friends").status_code == 401
    assert post(server, "/api/friends/request", {"name": "Bob"}).status_code == 401
    unknown = post(server, "/api/friends/request", {"name": "Nobody"}, ann)
    assert (unknown.status_code, unknown.json()["error"]["code"]) == (404, "unknown_name")
    yourself = post(server, "/api/friends/request", {"name": "ann"}, ann)
    assert (yourself.status_code, yourself.json()["error"]["code"]) == (400, "yourself")
    assert post(server, "/api/friends/request", {"name": "Bob"}, ann).status_code == 200
    again = post(server, "/api/friends/request", {"name": "Bob"}, ann)
    assert (again.status_code, again.json()["error"]["code"]) == (409, "already_requested")
    assert [p["name"] for p in get(server, "/api/friends", bob).json()["incoming"]] == ["Ann"]
    assert [p["name"] for p in get(server, "/api/friends", ann).json()["outgoing"]] == ["Bob"]
    wrong = post(server, "/api/friends/accept", {"name": "Bob"}, ann)  # her own request
    assert wrong.json()["error"]["code"] == "no_request"
    assert post(server, "/api/friends/accept", {"name": "Ann"}, bob).status_code == 200
    lists = get(server, "/api/friends", ann).json()
    assert [f["name"] for f in lists["friends"]] == ["Bob"]
    assert lists["friends"][0]["presence"] == {"status": "offline", "table_id": None,
                                               "playing": False, "tournament": None}
    assert lists["incoming"] == lists["outgoing"] == []
    already = post(server, "/api/friends/request", {"name": "Ann"}, bob)
    assert (already.status_code, already.json()["error"]["code"]) == (409, "already_friends")
    bad = post(server, "/api/friends/request", {"name": "Bob", "more": 1}, ann)
    assert bad.status_code == 422
    assert post(server, "/api/friends/remove", {"name": "Ann"}, bob).status_code == 200
    assert get(server, "/api/friends", ann).json()["friends"] == []
    gone = post(server, "/api/friends/remove", {"name": "Ann"}, bob)
    assert gone.json()["error"]["code"] == "not_friends"


def test_presence_is_pushed_and_an_invitation_seats_the_friend(server: LiveServer) -> None:
    ann, bob = login(server, "Ann"), login(server, "Bob")
    befriend(server, ann, "Ann", bob, "Bob")
    ann_push = AccountPush(server.base, ann["Cookie"])
    assert ann_push.wait(lambda m: m["type"] == "presence")["status"] == "offline"
    bob_push = AccountPush(server.base, bob["Cookie"])
    assert ann_push.wait(lambda m: m["type"] == "presence")["status"] == "online"
    assert presence_of(server, bob, "Ann")["status"] == "online"
    with server.http() as client:
        made = client.post("/api/tables", json={"nickname": "Ann", "public": False},
                           headers={"Cookie": ann["Cookie"]})
    assert made.status_code == 201, made.text
    table_id, invite = made.json()["table_id"], made.json()["invite"]
    seated = Client.open(server, table_id, token=made.json()["token"])
    at_table = bob_push.wait(lambda m: m["type"] == "presence" and m["status"] == "table")
    assert (at_table["table_id"], at_table["playing"]) == (table_id, False)
    # a wrong invite code of the private table, or a table she does not sit at: refused
    wrong = post(server, "/api/friends/invite",
                 {"name": "Bob", "table_id": table_id, "invite": "wrong"}, ann)
    assert wrong.status_code == 403
    assert not [m for m in bob_push.frames if m["type"] == "invitation"]
    answer = post(server, "/api/friends/invite",
                  {"name": "Bob", "table_id": table_id, "invite": invite}, ann)
    assert answer.status_code == 200, answer.text
    invitation = bob_push.wait(lambda m: m["type"] == "invitation")
    assert (invitation["from"], invitation["table_id"], invitation["invite"]) == (
        "Ann", table_id, invite)
    accepted = post(server, "/api/friends/invitation",
                    {"id": invitation["id"], "answer": "accept"}, bob).json()
    assert (accepted["table_id"], accepted["invite"]) == (table_id, invite)
    told = ann_push.wait(lambda m: m["type"] == "invitation_answer")
    assert (told["friend"], told["answer"]) == ("Bob", "accepted")
    twice = post(server, "/api/friends/invitation", {"id": invitation["id"], "answer": "accept"},
                 bob)
    assert twice.json()["error"]["code"] == "no_invitation"
    with server.http() as client:
        joined = client.post(f"/api/tables/{table_id}/join",
                             json={"nickname": "Bob", "invite": accepted["invite"]},
                             headers={"Cookie": bob["Cookie"]})
    assert joined.status_code == 200, joined.text
    # declined: the sender is told
    post(server, "/api/friends/invite", {"name": "Bob", "table_id": table_id, "invite": invite},
         ann)
    second = bob_push.wait(lambda m: m["type"] == "invitation")
    post(server, "/api/friends/invitation", {"id": second["id"], "answer": "decline"}, bob)
    assert ann_push.wait(lambda m: m["type"] == "invitation_answer")["answer"] == "declined"
    bob_push.close()
    seated.close()
    assert ann_push.wait(lambda m: m["type"] == "presence")["status"] == "offline"
    ann_push.close()


def test_an_invitation_needs_an_online_friend_at_your_table(server: LiveServer) -> None:
    ann, bob, cy = login(server, "Ann"), login(server, "Bob"), login(server, "Cy")
    befriend(server, ann, "Ann", bob, "Bob")
    table = server.create(nickname="Guest")  # not Ann's
    body = {"name": "Bob", "table_id": table["table_id"]}
    offline = post(server, "/api/friends/invite", body, ann)
    assert offline.json()["error"]["code"] == "friend_offline"
    push = AccountPush(server.base, bob["Cookie"])
    not_seated = post(server, "/api/friends/invite", body, ann)
    assert (not_seated.status_code, not_seated.json()["error"]["code"]) == (403, "not_seated")
    stranger = post(server, "/api/friends/invite", body, cy)
    assert stranger.json()["error"]["code"] == "not_friends"
    assert not [m for m in push.frames if m["type"] == "invitation"]
    push.close()


def test_a_block_refuses_requests_hides_chat_and_private_tables(server: LiveServer) -> None:
    ann, bob = login(server, "Ann"), login(server, "Bob")
    befriend(server, ann, "Ann", bob, "Bob")
    assert post(server, "/api/friends/block", {"name": "Bob"}, ann).status_code == 200
    lists = get(server, "/api/friends", ann).json()
    assert lists["friends"] == [] and [p["name"] for p in lists["blocked"]] == ["Bob"]
    for asker, name in ((bob, "Ann"), (ann, "Bob")):
        refused = post(server, "/api/friends/request", {"name": name}, asker)
        assert (refused.status_code, refused.json()["error"]["code"]) == (403, "blocked")
    assert get(server, "/api/friends", bob).json()["incoming"] == []
    # chat: at a public table, Bob's lines reach the watcher but not Ann
    with server.http() as client:
        made = client.post("/api/tables", json={"nickname": "Ann", "public": True},
                           headers={"Cookie": ann["Cookie"]}).json()
        joined = client.post(f"/api/tables/{made['table_id']}/join", json={"nickname": "B"},
                             headers={"Cookie": bob["Cookie"]}).json()
    ann_client = Client.open(server, made["table_id"], token=made["token"])
    bob_client = Client.open(server, made["table_id"], token=joined["token"])
    watcher = Client.open(server, made["table_id"])
    bob_client.send({"type": "chat", "text": "hello Ann"})
    assert watcher.wait(lambda m: m["type"] == "chat")["text"] == "hello Ann"
    ann_client.send({"type": "chat", "text": "ping"})
    assert ann_client.wait(lambda m: m["type"] == "chat")["text"] == "ping"
    assert not [m for m in ann_client.frames if m["type"] == "chat" and m["seat"] == 1]
    later = Client.open(server, made["table_id"], token=made["token"])  # the history too
    assert [m["text"] for m in later.frames if m["type"] == "chat"] == ["ping"]
    # unblocked and blocked again while the connections stay open: at once, both ways
    assert post(server, "/api/friends/unblock", {"name": "Bob"}, ann).status_code == 200
    bob_client.send({"type": "chat", "text": "heard"})
    assert ann_client.wait(lambda m: m["type"] == "chat")["text"] == "heard"
    assert post(server, "/api/friends/block", {"name": "Bob"}, ann).status_code == 200
    bob_client.send({"type": "chat", "text": "unheard"})
    assert watcher.wait(lambda m: m["type"] == "chat" and m["text"] == "unheard")
    ann_client.send({"type": "chat", "text": "pong"})
    assert ann_client.wait(lambda m: m["type"] == "chat")["text"] == "pong"  # not "unheard"
    for client_ in (ann_client, bob_client, watcher, later):
        client_.close()
    # her private table: Bob, with the right invite, is refused his seat; unblocked, he sits
    with server.http() as client:
        private = client.post("/api/tables", json={"nickname": "Ann", "public": False},
                              headers={"Cookie": ann["Cookie"]}).json()
        body = {"nickname": "B", "invite": private["invite"]}
        refused = client.post(f"/api/tables/{private['table_id']}/join", json=body,
                              headers={"Cookie": bob["Cookie"]})
        assert (refused.status_code, refused.json()["error"]["code"]) == (403, "blocked")
        assert server.lobby.get(private["table_id"]).table.seats[1].account_id is None
        assert post(server, "/api/friends/unblock", {"name": "Bob"}, ann).status_code == 200
        sat = client.post(f"/api/tables/{private['table_id']}/join", json=body,
                          headers={"Cookie": bob["Cookie"]})
        assert sat.status_code == 200, sat.text


def test_the_push_socket_refuses_guests_and_foreign_origins_and_tells_list_changes(
        server: LiveServer) -> None:
    guest = open_socket(f"{server.ws_base}/ws/account", origin=server.base)
    with pytest.raises(ConnectionClosed) as closed:
        guest.recv(timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403
    ann, bob = login(server, "Ann"), login(server, "Bob")
    with pytest.raises(InvalidStatus):  # another site's page: refused before the upgrade
        open_socket(f"{server.ws_base}/ws/account", origin="http://evil.example",
                    additional_headers={"Cookie": ann["Cookie"]})
    bob_push = AccountPush(server.base, bob["Cookie"])
    post(server, "/api/friends/request", {"name": "Bob"}, ann)
    bob_push.wait(lambda m: m["type"] == "friends")
    post(server, "/api/friends/accept", {"name": "Ann"}, bob)
    assert bob_push.wait(lambda m: m["type"] == "presence")["status"] == "offline"
    bob_push.close()
