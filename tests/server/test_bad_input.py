"""Bad input of every kind gets an error or a close with a reason, and changes nothing."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from server_helpers import Client, LiveServer, open_socket
from websockets.exceptions import ConnectionClosed, InvalidStatus

from ginrummy.server import Settings, create_app


@pytest.fixture
def seated(server: LiveServer) -> tuple[LiveServer, str, dict[str, Any]]:
    created = server.create(nickname="Ann")  # nobody moves unless a test does
    server.join(created["table_id"], nickname="Bob")
    return server, created["table_id"], created


def closed_with(client: Client, timeout: float = 10) -> tuple[int, str]:
    """Read until the server closes; the close code and reason."""
    with pytest.raises(ConnectionClosed) as info:
        while True:
            client.recv(timeout)
    received = info.value.rcvd
    assert received is not None
    return received.code, received.reason


@pytest.mark.parametrize(("text", "code", "words"), [
    ("{not json", "bad_message", "not valid JSON"),
    ("[1, 2]", "bad_message", "JSON object"),
    ('{"kind": "action"}', "bad_message", "type"),
    ('{"type": "teleport"}', "unknown_type", "teleport"),
    ('{"type": "action", "id": "x", "version": "7", "action": "stock"}', "bad_message",
     "version"),
    ('{"type": "action", "id": "", "version": 1, "action": "stock"}', "bad_message", "id"),
    ('{"type": "action", "id": "x", "version": 1}', "bad_message", "action"),
    ('{"type": "chat", "text": "hi", "extra": 1}', "bad_message", "extra"),
    ('{"type": "hello", "protocol": 1}', "protocol", "already"),
    ('"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["', "bad_message", "JSON object"),
])
def test_malformed_messages_get_an_error_and_change_nothing(
        seated: tuple[LiveServer, str, dict[str, Any]], text: str, code: str,
        words: str) -> None:
    server, table_id, created = seated
    client = Client.open(server, table_id, created["token"])
    before = server.stored_table(table_id)
    client.send(text)
    answer = client.wait(lambda m: m["type"] == "error")
    assert answer["code"] == code and words in answer["message"], answer
    client.send({"type": "ping"})
    assert client.wait(lambda m: m["type"] == "pong") == {"type": "pong"}  # still served
    after = server.stored_table(table_id)
    assert (after.version, len(after.events)) == (before.version, len(before.events))


def test_binary_frames_are_refused(seated: tuple[LiveServer, str, dict[str, Any]]) -> None:
    server, table_id, created = seated
    client = Client.open(server, table_id, created["token"])
    client.ws.send(b'{"type": "ping"}')
    assert client.wait(lambda m: m["type"] == "error")["code"] == "bad_message"


def test_a_frame_over_8_kib_closes_with_1009(
        seated: tuple[LiveServer, str, dict[str, Any]]) -> None:
    server, table_id, created = seated
    client = Client.open(server, table_id, created["token"])
    client.send({"type": "chat", "text": "x" * 8200})
    code, _reason = closed_with(client)
    assert code == 1009
    assert len(server.stored_table(table_id).events) >= 2  # the table goes on


def test_a_frame_of_exactly_8_kib_is_accepted(
        seated: tuple[LiveServer, str, dict[str, Any]]) -> None:
    server, table_id, created = seated
    client = Client.open(server, table_id, created["token"])
    padding = 8192 - len('{"type": "chat", "text": ""}')
    client.send('{"type": "chat", "text": "' + "y" * padding + '"}')
    answer = client.wait(lambda m: m["type"] == "error")
    assert answer["code"] == "chat_rejected"  # over 200 characters, but not closed


def test_the_app_itself_closes_oversized_frames(tmp_path: Path) -> None:
    """Behind a server without uvicorn's frame limit (Starlette's TestClient) the app still
    enforces 8 KiB."""
    with warnings.catch_warnings():  # Starlette prefers httpx2; httpx is what we ship
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

    settings = Settings(db=f"sqlite:///{tmp_path / 'app.db'}", bot_delay_ms=0)
    with TestClient(create_app(settings)) as http:
        origin = {"Origin": "http://127.0.0.1:8000"}  # the default public origin
        created = http.post("/api/tables", json={"nickname": "Ann"}, headers=origin).json()
        with http.websocket_connect(f"/ws/tables/{created['table_id']}",
                                    headers=origin) as ws:
            ws.send_json({"type": "hello", "protocol": 1, "token": created["token"]})
            assert ws.receive_json()["type"] == "welcome"
            assert ws.receive_json()["type"] == "state"
            ws.send_text(json.dumps({"type": "chat", "text": "z" * 9000}))
            closing = ws.receive()
    assert closing["type"] == "websocket.close"
    assert (closing["code"], closing["reason"]) == (1009, "frame over 8 KiB")


def test_more_than_100_messages_in_20_s_close_with_1008(make_server: Any) -> None:
    server = make_server(message_window_seconds=600)  # 100 messages per window, however slow
    created = server.create(nickname="Ann")
    table_id = created["table_id"]
    client = Client.open(server, table_id, created["token"])
    for _ in range(101):
        client.send({"type": "ping"})
    code, reason = closed_with(client)
    assert code == 1008 and "rate limit" in reason
    errors = [m for m in client.frames if m["type"] == "error"]
    assert errors and errors[-1]["code"] == "rate_limited"
    assert sum(m["type"] == "pong" for m in client.frames) == 99  # hello counted too


def test_foreign_origin_is_refused_on_upgrade(
        seated: tuple[LiveServer, str, dict[str, Any]]) -> None:
    server, table_id, _created = seated
    url = f"{server.ws_base}/ws/tables/{table_id}"
    with pytest.raises(InvalidStatus) as info:
        open_socket(url, origin="http://evil.example")
    assert info.value.response.status_code == 403
    same = open_socket(url, origin=server.base)  # the page's own origin
    same.close()


def test_allow_listed_origin_is_accepted(make_server: Any) -> None:
    server = make_server(allowed_origins=("http://localhost:5173",))
    created = server.create()
    url = f"{server.ws_base}/ws/tables/{created['table_id']}"
    open_socket(url, origin="http://localhost:5173").close()
    with pytest.raises(InvalidStatus):
        open_socket(url, origin="http://localhost:5174")


def test_unknown_table_bad_token_private_table_and_missing_hello(server: LiveServer) -> None:
    unknown = Client.open(server, "nothere", hello=False)  # closed at once
    assert closed_with(unknown) == (4404, "unknown table")

    created = server.create(public=False)
    table_id = created["table_id"]
    bad = Client.open(server, table_id, hello=False)
    bad.send({"type": "hello", "protocol": 1, "token": "forged"})
    assert closed_with(bad) == (4401, "bad token")

    outsider = Client.open(server, table_id, hello=False)
    outsider.send({"type": "hello", "protocol": 1})
    assert closed_with(outsider)[0] == 4403
    invited = Client.open(server, table_id, invite=created["invite"])
    assert invited.state["seat"] is None

    rude = Client.open(server, table_id, hello=False)
    rude.send({"type": "ping"})
    assert closed_with(rude) == (4400, "hello expected")

    future = Client.open(server, table_id, hello=False)
    future.send({"type": "hello", "protocol": 4, "token": created["token"]})
    code, reason = closed_with(future)
    assert code == 4400 and "protocol" in reason


def test_hello_must_come_in_time(make_server: Any) -> None:
    server = make_server(hello_timeout_seconds=0.2)
    created = server.create()
    silent = Client.open(server, created["table_id"], hello=False)
    assert closed_with(silent) == (4400, "hello expected")
