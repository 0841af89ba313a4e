"""Hostile input never makes a server error (issue 11, item 8): an integer of thousands of
digits, a number past orjson's 64-bit range, deep nesting, NaN or bytes that are not UTF-8 are a
``bad_message`` error on a WebSocket and a 4xx over HTTP, never a 1011 close or a 500; rule
integers have upper bounds. Then a Hypothesis fuzz of every client message type, over a real
WebSocket and the HTTP API, after which every table replays from storage to the state it has in
memory (``benchmarks/fuzz_server.py`` runs the same fuzz with 100,000 messages)."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import hypothesis
import pytest
from hypothesis import strategies as st
from server_helpers import Client, LiveServer, open_socket

from ginrummy.rules import OPTIONS, Ruleset, RulesetError
from ginrummy.server import Settings
from ginrummy.server.play.table import GameTable
from ginrummy.views import view

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from fuzz_server import (  # the benchmark's strategies and sender
    FUZZ_SETTINGS,
    Fuzzer,
    frames,
    http_requests,
    replay_mismatches,
)
from ginrummy.server.core.jsontext import MAX_INT, JSONTextError, loads
from ginrummy.server.core.protocol import Code, MessageError, parse_client_message

HUGE = "9" * 5000
"""An integer literal past Python's 4,300-digit conversion limit."""


# --------------------------------------------------------------------------- the parser
@pytest.mark.parametrize("text", [
    '{"type": "action", "id": "x", "version": ' + HUGE + ', "action": "stock"}',
    '{"type": "hello", "protocol": -' + HUGE + '}',
    '{"type": "action", "id": "x", "version": 18446744073709551616, "action": "stock"}',
    '{"type": "hello", "protocol": 2, "since": 18446744073709551616}',
    '{"type": "mute", "seat": 9223372036854775808, "muted": true}',
    '{"type": "action", "id": "x", "version": NaN, "action": "stock"}',
    '{"type": "action", "id": "x", "version": 1e999, "action": "stock"}',
    '{"type": "chat", "text": "' + "[" * 50_000 + '"}',
    "[" * 50_000,
    '{"type": "chat", "text": ' + "[" * 50_000 + "]" * 50_000 + "}",
])
def test_hostile_frames_are_a_bad_message(text: str) -> None:
    with pytest.raises(MessageError) as info:
        parse_client_message(text)
    assert info.value.code in (Code.BAD_MESSAGE, Code.UNKNOWN_TYPE)
    assert len(str(info.value)) < 400  # the error does not echo a huge input back


def test_the_strict_reader_refuses_what_json_loads_would_raise_on_or_orjson_cannot_send() -> None:
    assert loads('{"a": [1, -2, 3.5, "\\u00e9"]}') == {"a": [1, -2, 3.5, "\u00e9"]}
    assert loads(str(MAX_INT)) == MAX_INT and loads(str(-MAX_INT)) == -MAX_INT
    for text in (str(MAX_INT + 1), HUGE, "-" + HUGE, "NaN", "-Infinity", "1e400", "[" * 100_000,
                 b"\xff\xfe", "{", ""):
        with pytest.raises(JSONTextError):
            loads(text)


# --------------------------------------------------------------------------- rule maxima
def test_every_integer_rule_option_has_a_maximum() -> None:
    unbounded = [name for name, option in OPTIONS.items()
                 if option.kind == "int" and option.maximum is None]
    assert unbounded == []
    assert all("max" in entry for entry in Ruleset.schema() if entry["type"] == "int")
    for name, value in (("target", 10_001), ("target", 2**64), ("gin_bonus", 1_001),
                        ("game_bonus", 10**9), ("max_reshuffles", 11),
                        ("payout_threshold", 1_001)):
        preset = "arena" if name in ("payout_threshold", "max_reshuffles") else "classic"
        with pytest.raises(RulesetError, match=name):
            Ruleset.preset(preset, **{name: value})
    assert Ruleset.preset("classic", target=10_000, game_bonus=1_000).target == 10_000


# --------------------------------------------------------------------------- over the wire
ORIGIN = "http://fuzz.test"
"""The page origin of these tests' clients (an allowed origin of their servers)."""


@pytest.fixture
def server(make_server: Callable[..., LiveServer]) -> LiveServer:
    """A server that accepts :data:`ORIGIN`."""
    return make_server(allowed_origins=(ORIGIN,))


def post(server: LiveServer, path: str, body: Any) -> Any:
    """A JSON POST from the web client's page."""
    with server.http() as http:
        return http.post(path, json=body, headers={"Origin": ORIGIN})


def _seated(server: LiveServer) -> tuple[str, dict[str, Any]]:
    created = post(server, "/api/tables", {"nickname": "Ann"})
    assert created.status_code == 201, created.text
    table_id = created.json()["table_id"]
    joined = post(server, f"/api/tables/{table_id}/join", {"nickname": "Bob"})
    assert joined.status_code == 200, joined.text
    return table_id, dict(created.json())


def connect(server: LiveServer, table_id: str, token: str | None) -> Client:
    """A seated (or watching) WebSocket client, past ``welcome`` and the first state."""
    client = Client(open_socket(f"{server.ws_base}/ws/tables/{table_id}", origin=ORIGIN))
    client.send({"type": "hello", "protocol": 2, "token": token})
    client.wait(lambda m: m["type"] == "welcome")
    client.wait(lambda m: m["type"] == "state")
    return client


@pytest.mark.parametrize("text", [
    '{"type": "action", "id": "x", "version": ' + HUGE[:4400] + ', "action": "stock"}',
    '{"type": "action", "id": "x", "version": 18446744073709551616, "action": "stock"}',
    '{"type": "mute", "seat": 18446744073709551616, "muted": true}',
    '{"type": "chat", "text": ' + "[" * 3000 + "]" * 3000 + "}",
])
def test_a_hostile_frame_gets_bad_message_and_the_connection_stays(server: LiveServer,
                                                                   text: str) -> None:
    table_id, created = _seated(server)
    client = connect(server, table_id, created["token"])
    before = server.stored_table(table_id)
    client.send(text)
    answer = client.wait(lambda m: m["type"] == "error")
    assert answer["code"] == "bad_message", answer
    client.send({"type": "ping"})
    assert client.wait(lambda m: m["type"] == "pong") == {"type": "pong"}
    after = server.stored_table(table_id)
    assert (after.version, len(after.events)) == (before.version, len(before.events))


@pytest.mark.parametrize("options", [{"target": 2**64}, {"target": 10_001},
                                     {"gin_bonus": 2**63}, {"shutout_bonus": 10**40},
                                     {"game_bonus": 10**15}, {"payout_threshold": 1_001}])
def test_an_oversized_rule_integer_is_refused_and_makes_no_table(server: LiveServer,
                                                                 options: dict[str, Any]) -> None:
    answer = post(server, "/api/tables", {"nickname": "Ann", "options": options})
    assert answer.status_code == 400, answer.text
    (name, value), = options.items()
    if value <= MAX_INT:  # larger: refused by the JSON reader itself, before the rules
        assert answer.json()["error"]["field"] == name
    with server.http() as http:
        assert http.get("/api/tables").json()["tables"] == []


# --------------------------------------------------------------------------- the fuzz
FUZZ_EXAMPLES = 400
"""Batches of up to 8 frames (and one HTTP request each) in the test suite (~10 s);
``benchmarks/fuzz_server.py --messages 100000`` runs the same strategies at scale."""


def fuzz_settings() -> dict[str, Any]:
    names = {f.name for f in dataclasses.fields(Settings)}
    return {k: v for k, v in FUZZ_SETTINGS.items() if k in names} | {
        "allowed_origins": (ORIGIN,)}


def test_fuzz_of_every_client_message_makes_no_server_error_and_tables_replay(
        make_server: Callable[..., LiveServer]) -> None:
    server = make_server(**fuzz_settings())
    fuzzer = Fuzzer(server.base, origin=ORIGIN, tables=2, seed=11)

    @hypothesis.seed(11)
    @hypothesis.settings(max_examples=FUZZ_EXAMPLES, deadline=None, database=None,
                         suppress_health_check=list(hypothesis.HealthCheck))
    @hypothesis.given(st.lists(frames(), min_size=1, max_size=8), http_requests())
    def one_batch(batch: list[str | bytes], request: tuple[str, str, Any]) -> None:
        fuzzer.send_frames(batch)
        fuzzer.request(*request)

    try:
        one_batch()
    finally:
        fuzzer.close()
    stats = fuzzer.stats
    assert stats.server_errors == []
    assert stats.messages >= FUZZ_EXAMPLES and stats.errors["bad_message"] > 0
    assert stats.batches > 0 and len(stats.tables) >= 2
    assert stats.acks > 0  # legal actions were played too: the replays below have moves

    def live(table_id: str) -> dict[str, Any] | None:
        with server.http() as http:
            answer = http.get(f"/api/tables/{table_id}")
        return dict(answer.json()) if answer.status_code == 200 else None

    assert replay_mismatches(server.settings.db, live, stats.tables) == []
    # the tables in memory and their replays agree on what every seat sees
    for table_id in stats.tables:
        writer = server.lobby.get(table_id)
        if writer is None or writer.table.match is None:
            continue
        replayed = GameTable.from_stored(server.stored_table(table_id))
        live_table = writer.table
        if replayed.version != live_table.version:
            continue  # moved on since (replay_mismatches waited for it once already)
        for seat in (None, *range(live_table.rules.players)):
            assert view(replayed.match, seat).to_dict() == view(live_table.match, seat).to_dict()


def test_http_bodies_json_loads_raises_on_are_a_400_not_a_500(server: LiveServer) -> None:
    statuses = []
    for body in ('{"nickname": "Ann", "players": ' + HUGE + "}",
                 '{"nickname": "Ann", "options": {"target": ' + "9" * 4400 + "}}",
                 "[" * 5000 + "]" * 5000, '{"nickname": "Ann", "players": NaN}'):
        with server.http() as http:
            answer = http.post("/api/tables", content=body.encode(),
                               headers={"Origin": ORIGIN, "Content-Type": "application/json"})
        statuses.append(answer.status_code)
    assert all(400 <= status < 500 for status in statuses), statuses


# --------------------------------------------------------------------------- the scripts
BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def test_the_abuse_script_runs_and_reports_each_attack() -> None:
    """benchmarks/abuse.py (a few of its attacks): it starts its server, reports held or
    broken with figures, and does not crash on a refused attack."""
    done = subprocess.run([sys.executable, str(BENCHMARKS / "abuse.py"), "--quick", "--json",
                           "--only", "huge_int,target_2_64,text_plain,db_mode"],
                          capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = {row["name"]: row for row in json.loads(done.stdout)}
    assert list(rows) == ["huge_int", "target_2_64", "text_plain", "db_mode"]
    assert all(row["held"] in (True, False) for row in rows.values()), rows
    assert rows["target_2_64"]["held"] and rows["db_mode"]["held"]
    assert rows["huge_int"]["ws_answer"] == "error bad_message"


def test_the_fuzz_script_reports_its_counts() -> None:
    done = subprocess.run([sys.executable, str(BENCHMARKS / "fuzz_server.py"), "--messages",
                           "200", "--tables", "1", "--json"],
                          capture_output=True, text=True, timeout=180, check=False)
    report = json.loads(done.stdout)
    assert report["generated_frames"] == 200 and 0 < report["messages"] <= 200
    assert report["batches"] == 10
    assert report["replay_mismatches"] == []
    assert done.returncode == (0 if report["server_errors"] == 0 else 1)
