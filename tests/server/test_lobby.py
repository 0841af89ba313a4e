"""The lobby API: presets, the rules schema, levels, create (exactly what the schema allows), join,
list, private tables, bad requests."""

from __future__ import annotations

from typing import Any

import pytest
from server_helpers import LiveServer

from ginrummy.rules import PRESETS, Ruleset
from test_schema import base_preset, candidates, game_format, schema_accepts


def test_presets_and_option_schema(server: LiveServer) -> None:
    with server.http() as client:
        data = client.get("/api/presets").json()
    assert set(data["presets"]) == set(PRESETS)
    assert data["presets"]["playok"] == Ruleset.preset("playok").to_dict()
    assert data["options"]["format"] == {"type": "enum", "values": ["match", "single_hand"]}
    assert data["options"]["big_gin"] == {"type": "bool"}
    assert set(data["options"]) == set(Ruleset().to_dict())


def test_rules_schema_is_served_and_presets_agree(server: LiveServer) -> None:
    with server.http() as client:
        schema = client.get("/api/rules/schema").json()["options"]
        short = client.get("/api/presets").json()["options"]
    assert schema == Ruleset.schema()
    assert list(short) == [entry["name"] for entry in schema]
    for entry in schema:
        assert short[entry["name"]] == {k: v for k, v in entry.items()
                                        if k in ("type", "values", "min", "max", "nullable")}


def test_create_accepts_exactly_what_the_schema_says(server: LiveServer) -> None:
    """Every option at and around its edges: a table exactly when the schema allows the value,
    else a refusal naming the option."""
    checked = 0
    with server.http() as client:
        for entry in Ruleset.schema():
            name, preset = entry["name"], base_preset(entry)
            for value in candidates(entry):
                expected = schema_accepts(entry, value, game_format(entry, value, preset))
                answer = client.post("/api/tables", json={
                    "nickname": "Ann", "preset": preset, "options": {name: value}})
                if expected:
                    assert answer.status_code == 201, (name, value, answer.text)
                    rules = answer.json()["table"]["rules"]
                    assert value is None or rules[name] in (value, None), (name, value)
                else:
                    assert answer.status_code in (400, 422), (name, value, answer.text)
                    assert answer.json()["error"]["field"] == name, (name, value)
                checked += 1
    assert checked > 150


def test_bots_lists_registered_levels(server: LiveServer) -> None:
    with server.http() as client:
        data = client.get("/api/bots").json()
    assert "simple" in data["levels"] and data["default"] in data["levels"]


def test_create_join_and_list(server: LiveServer) -> None:
    created = server.create(nickname="Ann", preset="playok", options={"target": 150},
                            clock_seconds=30)
    table = created["table"]
    assert created["seat"] == 0 and created["invite"] is None and len(created["token"]) > 20
    assert table["rules"]["target"] == 150 and table["preset"] == "playok"
    assert table["status"] == "waiting" and table["clock_seconds"] == 30
    assert [s["kind"] for s in table["seats"]] == ["human", "empty"]
    with server.http() as client:
        listed = client.get("/api/tables").json()["tables"]
    assert [t["id"] for t in listed] == [created["table_id"]]
    assert listed[0]["rules"] == table["rules"]  # rules visible before joining
    joined = server.join(created["table_id"], nickname="Bob")
    assert joined["seat"] == 1 and joined["token"] != created["token"]
    assert joined["table"]["status"] == "playing"
    assert [s["name"] for s in joined["table"]["seats"]] == ["Ann", "Bob"]
    with server.http() as client:
        again = client.post(f"/api/tables/{created['table_id']}/join", json={"nickname": "Cy"})
        one = client.get(f"/api/tables/{created['table_id']}").json()
    assert again.status_code == 409 and again.json()["error"]["code"] == "table_full"
    assert one["status"] == "playing" and one["version"] >= 3


def test_four_seats_with_computers(server: LiveServer) -> None:
    created = server.create(preset="arena", players=4, bots={"2": "simple", "3": "random"},
                            pool_chips=500)
    table = created["table"]
    assert table["rules"]["players"] == 4 and table["rules"]["format"] == "single_hand"
    assert [s["kind"] for s in table["seats"]] == ["human", "empty", "bot", "bot"]
    assert table["seats"][2]["level"] == "simple" and table["pool_chips"] == 500
    with server.http() as client:
        taken = client.post(f"/api/tables/{created['table_id']}/join",
                            json={"nickname": "Bob", "seat": 2})
    assert taken.status_code == 409 and taken.json()["error"]["code"] == "seat_taken"
    assert server.join(created["table_id"], seat=1)["table"]["status"] == "playing"


def test_private_table_needs_its_invite(server: LiveServer) -> None:
    created = server.create(public=False)
    invite, table_id = created["invite"], created["table_id"]
    assert invite
    with server.http() as client:
        assert client.get("/api/tables").json()["tables"] == []
        assert client.get(f"/api/tables/{table_id}").status_code == 403
        assert client.get(f"/api/tables/{table_id}",
                          headers={"X-Invite": "nope"}).status_code == 403
        assert client.get(f"/api/tables/{table_id}",
                          headers={"X-Invite": invite}).status_code == 200
        # never in a URL: a code in the query string is ignored
        assert client.get(f"/api/tables/{table_id}", params={"invite": invite}).status_code == 403
        refused = client.post(f"/api/tables/{table_id}/join", json={"nickname": "Bob"})
        assert refused.status_code == 403 and refused.json()["error"]["field"] == "invite"
    assert server.join(table_id, invite=invite)["seat"] == 1


@pytest.mark.parametrize(("body", "field", "words"), [
    ({"preset": "poker"}, "preset", "unknown preset"),
    ({"options": {"knock_limit": 11}}, "knock_limit", "0 to 10"),
    ({"options": {"colour": "red"}}, "colour", "no such option"),
    ({"players": 5}, "players", "2 to 4"),
    ({"players": 3, "options": {"format": "match"}}, "format", "single_hand"),
    ({"bots": {"1": "genius"}}, "bots", "unknown player"),
    ({"bots": {"0": "simple"}}, "bots", "seat 0 is yours"),
    ({"clock_seconds": 2}, "clock_seconds", "no clock"),
    ({"pool_chips": 100}, "pool_chips", "single_hand"),
    ({"nickname": ""}, "nickname", "at least 1"),
    ({"nickname": "\u0000\u0001"}, "nickname", "control character U+0000"),
    ({"nickname": "x" * 25}, "nickname", "at most 24"),
    ({"surprise": 1}, "surprise", "Extra inputs"),
])
def test_create_refuses_bad_input_naming_the_field(server: LiveServer, body: dict[str, Any],
                                                   field: str, words: str) -> None:
    body = {"nickname": "Ann", **body}
    with server.http() as client:
        answer = client.post("/api/tables", json=body)
        listed = client.get("/api/tables").json()["tables"]
    assert answer.status_code in (400, 422), answer.text
    problem = answer.json()["error"]
    assert problem["field"] == field and words in problem["message"], problem
    assert listed == []  # nothing was created


def test_bad_bodies_and_unknown_tables(server: LiveServer) -> None:
    with server.http() as client:
        not_json = client.post("/api/tables", content=b"{nope",
                               headers={"Content-Type": "application/json"})
        a_list = client.post("/api/tables", json=[1, 2])
        missing = client.get("/api/tables/nothere")
        join_missing = client.post("/api/tables/nothere/join", json={"nickname": "Bob"})
    assert not_json.status_code == 400 and "JSON" in not_json.json()["error"]["message"]
    assert a_list.status_code == 400
    assert missing.status_code == 404 and join_missing.status_code == 404
