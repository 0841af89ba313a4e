"""Chat reports (docs/moderation.md): a player reports a line said at the table recently;
it is stored with a log row and listed for the administrators."""

from __future__ import annotations

from typing import Any

from moderation_helpers import User, add_user, get, log_rows, open_as, post
from server_helpers import Client, LiveServer
from sqlalchemy import select

from ginrummy.server.core.auth import secret_hash
from ginrummy.server.players.sessions import SESSION_LIFETIME, new_session_token
from ginrummy.storage.models import ReportRow


def chat_between(server: LiveServer) -> tuple[dict[str, object], Client, Client, int]:
    """Ann (a guest) and Bob (an account) at one table; Bob says something rude."""
    bob = add_user(server, "Bobby")
    created = server.create(nickname="Ann")
    with server.http() as client:
        joined = client.post(f"/api/tables/{created['table_id']}/join",
                             json={"nickname": "x"}, headers=bob.headers)
    assert joined.status_code == 200, joined.text
    ann = Client.open(server, created["table_id"], str(created["token"]))
    bob_ws = open_as(server, str(created["table_id"]), bob, joined.json()["token"])
    bob_ws.send({"type": "chat", "text": "you   play like a potato"})
    line = ann.wait(lambda m: m["type"] == "chat")
    assert line["name"] == "Bobby" and line["text"] == "you play like a potato"
    return created, ann, bob_ws, bob.id


def stored_reports(server: LiveServer) -> list[object]:
    engine = server.app.state.server.accounts.engine
    with engine.connect() as conn:
        return list(conn.execute(select(ReportRow.__table__)).all())


def test_a_seated_guest_reports_a_line_that_was_said(server: LiveServer) -> None:
    created, ann, bob_ws, bob_id = chat_between(server)
    reported = post(server, "/api/reports", {
        "table_id": created["table_id"], "author": "Bobby", "text": "you play like a potato",
        "token": created["token"]})
    assert reported.status_code == 201, reported.text
    [row] = stored_reports(server)
    assert (row.reporter_id, row.reporter_name, row.table_id, row.author_name,
            row.author_account_id, row.text, row.handled) == (
        None, "Ann", created["table_id"], "Bobby", bob_id, "you play like a potato", False)
    [entry] = log_rows(server)
    assert (entry.action, entry.target_account_id, entry.table_id) == (
        "report", bob_id, created["table_id"])

    admin = add_user(server, "Boss", "admin")
    listed = get(server, "/api/admin/reports", admin)
    assert listed.status_code == 200
    [shown] = listed.json()["reports"]
    assert (shown["reporter"], shown["author"], shown["text"]) == (
        "Ann", "Bobby", "you play like a potato")
    assert str(created["token"]) not in listed.text
    ann.close()
    bob_ws.close()


def test_only_the_tables_people_report(server: LiveServer) -> None:
    """An account that never sat at the table cannot report its chat (issue 25, 11); a
    seated account can, without its token."""
    created, ann, bob_ws, bob_id = chat_between(server)
    carol = add_user(server, "Carol")
    stranger = post(server, "/api/reports", {
        "table_id": created["table_id"], "author": "Bobby",
        "text": "you play like a potato"}, carol)
    assert stranger.status_code == 403, stranger.text
    assert stranger.json()["error"]["field"] == "table_id"
    ann.send({"type": "chat", "text": "and you talk like one"})
    bob_ws.wait(lambda m: m["type"] == "chat" and m["text"] == "and you talk like one")
    cookie = new_session_token()  # a second session of Bob's account: its cookie only
    server.app.state.server.accounts.add_session(secret_hash(cookie), bob_id,
                                                 SESSION_LIFETIME)
    reported = post(server, "/api/reports", {
        "table_id": created["table_id"], "author": "Ann", "text": "and you talk like one"},
        User(bob_id, "Bobby", cookie))
    assert reported.status_code == 201, reported.text
    [row] = stored_reports(server)
    assert (row.reporter_id, row.reporter_name, row.author_name) == (bob_id, "Bobby", "Ann")
    ann.close()
    bob_ws.close()


def test_one_report_per_reporter_per_line(server: LiveServer) -> None:
    """The same seat (from any address) or the same account (by its cookie or its seat's
    token) reports a line once: 409 ``already_reported`` after (issue 25, 11)."""
    created, ann, bob_ws, _bob_id = chat_between(server)
    body = {"table_id": created["table_id"], "author": "Bobby",
            "text": "you play like a potato", "token": created["token"]}
    answers = [post(server, "/api/reports", body) for _ in range(3)]
    assert [a.status_code for a in answers] == [201, 409, 409]
    assert answers[1].json()["error"]["code"] == "already_reported"
    assert len(stored_reports(server)) == 1
    assert [r.action for r in log_rows(server)] == ["report"]
    ann.close()
    bob_ws.close()


def test_a_line_never_said_is_not_reported(server: LiveServer) -> None:
    created, ann, bob_ws, _bob_id = chat_between(server)
    cases = [
        ({"author": "Bobby", "text": "something he never said"}, 404, "text"),
        ({"author": "Ann", "text": "you play like a potato"}, 404, "text"),  # not hers
        ({"author": "Bobby", "text": "you play like a potato", "table_id": "nope"}, 404,
         "table_id"),
    ]
    for body, status, field in cases:
        answer = post(server, "/api/reports", {"table_id": created["table_id"],
                                               "token": created["token"], **body})
        assert answer.status_code == status, (body, answer.text)
        assert answer.json()["error"]["field"] == field
    anonymous = post(server, "/api/reports", {"table_id": created["table_id"],
                                              "author": "Bobby",
                                              "text": "you play like a potato"})
    assert anonymous.status_code == 401
    assert anonymous.json()["error"]["code"] == "not_logged_in"
    wrong_token = post(server, "/api/reports", {"table_id": created["table_id"],
                                                "author": "Bobby",
                                                "text": "you play like a potato",
                                                "token": "not-a-seat-token"})
    assert wrong_token.status_code == 401
    assert stored_reports(server) == [] and log_rows(server) == []
    ann.close()
    bob_ws.close()


def test_only_the_last_hundred_lines_can_be_reported(make_server: Any) -> None:
    server = make_server(chats_per_window=1000, messages_per_window=1000)
    created, ann, bob_ws, _bob_id = chat_between(server)
    for n in range(100):  # as many lines as the table keeps: Bobby's is forgotten
        ann.send({"type": "chat", "text": f"line {n}"})
    for client in (ann, bob_ws):  # read (a socket with unread frames is slow to close)
        client.wait(lambda m: m["type"] == "chat" and m["text"] == "line 99")
    gone = post(server, "/api/reports", {"table_id": created["table_id"], "author": "Bobby",
                                         "text": "you play like a potato",
                                         "token": created["token"]})
    assert gone.status_code == 404
    kept = post(server, "/api/reports", {"table_id": created["table_id"], "author": "Ann",
                                         "text": "line 99", "token": created["token"]})
    assert kept.status_code == 201
    ann.close()
    bob_ws.close()


def test_reports_are_rate_limited(make_server: Any) -> None:
    server = make_server(chats_per_window=100)
    created, ann, bob_ws, _bob_id = chat_between(server)
    for n in range(11):
        bob_ws.send({"type": "chat", "text": f"rude line {n}"})
    ann.wait(lambda m: m["type"] == "chat" and m["text"] == "rude line 10")
    answers = [post(server, "/api/reports", {
        "table_id": created["table_id"], "author": "Bobby", "text": f"rude line {n}",
        "token": created["token"]}).status_code for n in range(11)]
    assert answers == [201] * 10 + [429]
    limited = post(server, "/api/reports", {
        "table_id": created["table_id"], "author": "Bobby", "text": "rude line 10",
        "token": created["token"]})
    assert int(limited.headers["retry-after"]) >= 1
    assert len(stored_reports(server)) == 10
    ann.close()
    bob_ws.close()


def test_an_administrator_marks_a_report_handled(server: LiveServer) -> None:
    created, ann, bob_ws, _bob_id = chat_between(server)
    assert post(server, "/api/reports", {
        "table_id": created["table_id"], "author": "Bobby", "text": "you play like a potato",
        "token": created["token"]}).status_code == 201
    admin = add_user(server, "Boss", "admin")
    [shown] = get(server, "/api/admin/reports", admin).json()["reports"]
    assert shown["handled"] is False
    done = post(server, "/api/admin/reports/handled", {"id": shown["id"]}, admin)
    assert done.status_code == 200 and done.json() == {"id": shown["id"], "handled": True}
    [shown] = get(server, "/api/admin/reports", admin).json()["reports"]
    assert shown["handled"] is True
    missing = post(server, "/api/admin/reports/handled", {"id": shown["id"] + 1}, admin)
    assert missing.status_code == 404 and missing.json()["error"]["field"] == "id"
    assert [r.action for r in log_rows(server)] == ["report", "handled"]
    ann.close()
    bob_ws.close()
