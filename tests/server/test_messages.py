"""The server messages' exact text (key order included) stays what protocol clients got."""

from __future__ import annotations

import json
import re

from ginrummy.server.core.jsontext import dumps
from ginrummy.server.core.protocol import CLIENT_TYPES, Code
from ginrummy.server.play.messages import (
    PONG,
    ack,
    chat_message,
    duplicate_ack,
    error,
    welcome,
    with_ack,
)


def test_the_small_messages_text() -> None:
    assert dumps(welcome(2, "k3J9", 0, 42, "Ann")) == (
        '{"type":"welcome","protocol":2,"table":"k3J9","seat":0,"version":42,"name":"Ann"}')
    assert dumps(welcome(1, "k3J9", None, 0, "spectator")) == (
        '{"type":"welcome","protocol":1,"table":"k3J9","seat":null,"version":0,'
        '"name":"spectator"}')
    assert dumps(ack("a17", 43)) == '{"type":"ack","id":"a17","version":43}'
    assert dumps(duplicate_ack("a17", 43)) == (
        '{"type":"ack","id":"a17","version":43,"duplicate":true}')
    assert dumps(error(Code.STALE_VERSION, "old", "a1")) == (
        '{"type":"error","id":"a1","code":"stale_version","message":"old"}')
    assert dumps(error(Code.ENDLESS_HAND, "why")) == (
        '{"type":"error","id":null,"code":"endless_hand","message":"why"}')
    assert dumps(PONG) == '{"type":"pong"}'


def test_chat_and_ack_texts() -> None:
    text = dumps(chat_message(None, "spectator", "<b>hi</b> é"))
    assert re.fullmatch(r'\{"type":"chat","seat":null,"name":"spectator","text":"<b>hi</b> é",'
                        r'"at":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"\}', text), text
    state = '{"type":"state","table":{},"version":3}'
    assert with_ack(state, "x\"1") == '{"type":"state","ack":"x\\"1","table":{},"version":3}'
    assert json.loads(with_ack(state, "a"))["ack"] == "a"
    delta = '{"type":"delta","base":2,"version":3}'  # protocol 3
    assert with_ack(delta, "a") == '{"type":"delta","ack":"a","base":2,"version":3}'


def test_the_client_types() -> None:
    expected = {"hello", "action", "chat", "mute", "rematch", "next", "resync", "ping",
                "resign", "leave", "seed"}
    assert expected == CLIENT_TYPES
