"""Every client string is checked at the edge (docs/security.md, *Input at the edge*): a
control character or a lone surrogate in any field of a WebSocket message or a JSON body is
refused naming the field (``bad_message`` / 400), before any table, model or database sees
it; a log-in with one is a 401 like any unknown name."""

from __future__ import annotations

import json
from typing import Any

import pytest
from server_helpers import Client, LiveServer

from ginrummy.server.core.clienttext import BadText, check_strings
from ginrummy.server.core.protocol import Code, MessageError, parse_client_message

REFUSED = ["\x00", "\x01", "\x0b", "\x1b", "\x7f", "\x85", "\x9f"]
"""Control characters (C0, DEL, C1) that no client string may hold."""


@pytest.mark.parametrize("char", REFUSED)
@pytest.mark.parametrize(("message", "field"), [
    ({"type": "action", "id": "a{}b", "version": 1, "action": "stock"}, "id"),
    ({"type": "action", "id": "a1", "version": 1, "action": "discard {}"}, "action"),
    ({"type": "chat", "text": "hello{}there"}, "text"),
    ({"type": "seed", "hand": 1, "seed": "ab{}cd"}, "seed"),
    ({"type": "hello", "protocol": 2, "token": "t{}k"}, "token"),
    ({"type": "hello", "protocol": 2, "invite": "{}"}, "invite"),
])
def test_a_control_character_in_any_message_field_is_a_bad_message_naming_it(
        message: dict[str, Any], field: str, char: str) -> None:
    text = json.dumps({k: v.replace("{}", char) if isinstance(v, str) else v
                       for k, v in message.items()})
    with pytest.raises(MessageError) as info:
        parse_client_message(text)
    assert info.value.code is Code.BAD_MESSAGE
    assert str(info.value).startswith(f"{field}: ") and f"U+{ord(char):04X}" in str(info.value)


def test_a_lone_surrogate_and_a_bad_key_are_refused_and_clean_text_passes() -> None:
    with pytest.raises(MessageError, match=r"text: a lone surrogate U\+D800"):
        parse_client_message('{"type": "chat", "text": "x\\ud800"}')
    with pytest.raises(BadText) as info:
        check_strings({"options": {"a\x00b": 1}})
    assert info.value.field == "options.a?b" and "field name" in str(info.value)
    with pytest.raises(BadText) as deep:
        check_strings({"a": [1, {"b": ["ok", "no\x00"]}]})
    assert deep.value.field == "a.1.b.1"
    check_strings({"name": "Ann Ünïcødé 🂡", "n": [1, 2.5, None, True], "text": "a\tb\nc\r\n"})
    chat = parse_client_message('{"type": "chat", "text": "gg, well played 👍"}')
    assert chat.type == "chat"


def test_a_nul_action_id_over_the_socket_changes_nothing(server: LiveServer) -> None:
    created = server.create(nickname="Ann", bots={"1": "simple"})
    table_id = created["table_id"]
    ann = Client.open(server, table_id, created["token"])
    state = ann.playable()
    before = server.stored_table(table_id)
    ann.send({"type": "action", "id": "a\u0000b", "version": state["version"],
              "action": state["legal"][0]})
    answer = ann.answer()
    assert answer["type"] == "error" and answer["code"] == "bad_message", answer
    assert answer["message"].startswith("id: ") and "U+0000" in answer["message"]
    ann.send({"type": "chat", "text": "hi\u0000"})
    chat = ann.wait(lambda m: m["type"] == "error")
    assert chat["code"] == "bad_message" and chat["message"].startswith("text: ")
    after = server.stored_table(table_id)
    assert (after.version, len(after.events)) == (before.version, len(before.events))
    ann.send({"type": "action", "id": "a1", "version": state["version"],
              "action": state["legal"][0]})
    assert ann.answer()["type"] == "state"  # the seat plays on
    ann.close()


@pytest.mark.parametrize(("path", "body", "field"), [
    ("/api/tables", {"nickname": "A\u0000nn"}, "nickname"),
    ("/api/tables", {"nickname": "Ann", "name": "my\u0007table"}, "name"),
    ("/api/tables", {"nickname": "Ann", "preset": "classic\u0000"}, "preset"),
    ("/api/tables", {"nickname": "Ann", "bots": {"1": "simple\u0000"}}, "bots.1"),
    ("/api/tables", {"nickname": "Ann", "options": {"knock\u0000limit": 5}}, "options.knock?limit"),
    ("/api/account/signup", {"name": "Ann\u0000", "password": "correct horse"}, "name"),
    ("/api/account/signup", {"name": "Ann", "password": "pass\u0000word!"}, "password"),
    ("/api/reports", {"table_id": "abc", "author": "Bob", "text": "bad\u0000"}, "text"),
])
def test_a_control_character_in_a_body_is_400_naming_the_field(
        server: LiveServer, path: str, body: dict[str, Any], field: str) -> None:
    with server.http() as client:
        answer = client.post(path, json=body)
        listed = client.get("/api/tables").json()["tables"]
    assert answer.status_code == 400, answer.text
    problem = answer.json()["error"]
    assert problem["code"] == "bad_request" and problem["field"] == field, problem
    assert "control character" in problem["message"]
    assert listed == []


def test_a_log_in_with_a_control_character_is_401(server: LiveServer) -> None:
    with server.http() as client:
        made = client.post("/api/account/signup", json={"name": "Annie",
                                                        "password": "correct horse"})
        assert made.status_code == 201, made.text
        client.cookies.clear()
        for name, password in (("Ann\u0000ie", "correct horse"), ("Annie", "correct\u0000horse"),
                               ("\u0000", "x")):
            answer = client.post("/api/account/login", json={"name": name,
                                                             "password": password})
            assert answer.status_code == 401, answer.text
            assert answer.json()["error"]["code"] == "bad_credentials"


def test_a_number_too_big_is_named_as_such(server: LiveServer) -> None:
    with server.http() as client:
        answer = client.post("/api/tables", content=b'{"nickname": "Ann", "buy_in": '
                             b'1234567890123456789}',
                             headers={"Content-Type": "application/json"})
    assert answer.status_code == 400
    message = answer.json()["error"]["message"]
    assert "integer over 9007199254740991" in message and "not valid JSON" not in message
