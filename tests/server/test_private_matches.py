"""A private (invite-only) table's finished matches are its players' (and the
administrators'): not listed to others, not replayed for them; match ids cannot be guessed
(issue 25, 7; docs/security.md, *Private tables*)."""

from __future__ import annotations

from typing import Any

import httpx
from player_helpers import add_account, example_table, log_in, migrated, store
from server_helpers import Client, LiveServer
from sqlalchemy import select

from ginrummy.server.players.names import name_key
from ginrummy.server.players.sessions import SESSION_COOKIE
from ginrummy.storage.accounts import MATCHES, AccountStore


def get(server: LiveServer, path: str, token: str | None = None) -> httpx.Response:
    with server.http() as client:
        return client.get(path, headers={"cookie": f"{SESSION_COOKIE}={token}"}
                          if token else {})


def test_a_private_tables_matches_are_shown_to_its_players_only(server: LiveServer) -> None:
    private_matches_shown_to_players_only(server)


def test_private_matches_and_reports_once_on_postgresql(make_server: Any, pg_url: str
                                                        ) -> None:
    """The same on PostgreSQL (the listing's EXISTS, the migrations' unique index and
    constraint)."""
    server = make_server(db=pg_url)
    private_matches_shown_to_players_only(server)
    created = server.create(nickname="Zed")
    ann = Client.open(server, str(created["table_id"]), str(created["token"]))
    ann.send({"type": "chat", "text": "hello there"})
    ann.wait(lambda m: m["type"] == "chat")
    body = {"table_id": created["table_id"], "author": "Zed", "text": "hello there",
            "token": created["token"]}
    with server.http() as client:
        answers = [client.post("/api/reports", json=body).status_code for _ in range(2)]
    assert answers == [201, 409]
    ann.close()


def private_matches_shown_to_players_only(server: LiveServer) -> None:
    """Ann and Bob played at a private table, Ann at a public one too: who sees what."""
    engine = migrated(server.settings.db)
    ann, bob, cy = (add_account(engine, name) for name in ("Ann", "Bob", "Cy"))
    boss = AccountStore(engine).create("Boss", name_key("Boss"), "not-a-hash", "admin").id
    private = example_table("priv1", [bob, ann], ["Bob", "Ann"])
    private.public = False
    store(engine, private)
    store(engine, example_table("pub1", ["expert", ann], ["Expert", "Ann"]))
    tokens = {who: log_in(engine, account) for who, account in
              (("ann", ann), ("bob", bob), ("cy", cy), ("boss", boss))}

    def listed(token: str | None) -> list[list[str]]:
        recent = get(server, "/api/players/Ann", token).json()["recent"]
        history = get(server, "/api/players/Ann/matches", token).json()["matches"]
        return [[m["players"][0]["name"] for m in ms] for ms in (recent, history)]

    assert listed(None) == listed(tokens["cy"]) == [["Expert"], ["Expert"]]
    for who in ("ann", "bob", "boss"):
        assert listed(tokens[who]) == [["Expert", "Bob"], ["Expert", "Bob"]], who
    (hidden,) = [m["id"] for m in get(server, "/api/players/Ann", tokens["bob"]).json()
                 ["recent"] if m["players"][0]["name"] == "Bob"]
    for path in (f"/api/matches/{hidden}/replay", f"/api/matches/{hidden}/record",
                 f"/replay/{hidden}"):
        for token in (None, tokens["cy"]):
            refused = get(server, path, token)
            assert refused.status_code == 403, (path, refused.text)
            if path.startswith("/api/"):
                assert refused.json()["error"]["code"] == "forbidden"
                assert "private" in refused.json()["error"]["message"]
                assert "Bob" not in refused.text
        for who in ("ann", "bob", "boss"):
            assert get(server, path, tokens[who]).status_code == 200, (path, who)


def test_match_ids_cannot_be_guessed(server: LiveServer) -> None:
    engine = migrated(server.settings.db)
    ann = add_account(engine, "Ann")
    private = example_table("priv2", ["expert", ann], ["Expert", "Ann"])
    private.public = False
    store(engine, private)
    store(engine, example_table("pub2", ["expert", ann], ["Expert", "Ann"]))
    with engine.connect() as conn:
        rows = {r.table_id: r for r in conn.execute(select(MATCHES)).all()}
    for row in rows.values():  # random, long, never a number
        assert len(row.public_id) >= 16 and not row.public_id.isdigit()
    token = log_in(engine, ann)
    # an old link's integer id opens a public table's match, never a private one's: 404
    # for everyone, its player too (counting finds nothing)
    assert get(server, f"/api/matches/{rows['pub2'].id}/replay").status_code == 200
    for who in (None, token):
        missing = get(server, f"/api/matches/{rows['priv2'].id}/replay", who)
        assert missing.status_code == 404 and missing.json()["error"]["field"] == "match_id"
    assert get(server, f"/api/matches/{rows['priv2'].public_id}/replay", token
               ).status_code == 200
    assert get(server, "/replay/AAAAAAAAAAAAAAAA").status_code == 404
    mine = get(server, "/api/players/Ann/matches", token).json()["matches"]
    assert {m["id"] for m in mine} == {rows["priv2"].public_id, rows["pub2"].public_id}
