"""A database made by the code before the players' layer (schema revision 0001, written by
that code itself: tests/storage/fixtures/make_r0001_db.py) upgrades when the server starts,
with nothing lost: every table, seat and event is there and the games go on."""

from __future__ import annotations

import shutil
from pathlib import Path

import httpx
from alembic.config import Config
from alembic.script import ScriptDirectory
from server_helpers import Client, live_server
from sqlalchemy import text

from ginrummy.storage import Repository, open_engine
from ginrummy.storage.database import MIGRATIONS

FIXTURE = Path(__file__).parent.parent / "storage" / "fixtures" / "r0001.sqlite"


def _head() -> str:
    """The latest revision of the shipped migrations."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    head = ScriptDirectory.from_config(config).get_current_head()
    assert head is not None
    return head


def _rows(url: str) -> dict[str, list[tuple[object, ...]]]:
    engine = open_engine(url)
    try:
        with engine.connect() as conn:
            return {
                "tables": conn.execute(text(
                    "SELECT id, name, preset, status, version FROM game_tables ORDER BY id"
                )).all(),
                "seats": conn.execute(text(
                    "SELECT table_id, seat, kind, name, level, token_hash FROM seats "
                    "ORDER BY table_id, seat")).all(),
                "events": conn.execute(text(
                    "SELECT table_id, version, kind, seat, payload, source FROM events "
                    "ORDER BY table_id, version")).all(),
            }
    finally:
        engine.dispose()


def test_a_revision_0001_database_upgrades_on_start_and_its_games_go_on(
        tmp_path: Path) -> None:
    db = tmp_path / "old.sqlite"
    shutil.copy(FIXTURE, db)
    url = f"sqlite:///{db}"
    before = _rows(url)
    assert [t[0] for t in before["tables"]] == ["oldOver1", "oldPlay1", "oldWait1"]
    assert len(before["events"]) > 20
    with live_server(tmp_path, db=url) as server:
        with server.http() as http:
            listed = {t["id"]: t for t in http.get("/api/tables").json()["tables"]}
            assert listed["oldWait1"]["status"] == "waiting"
            assert listed["oldPlay1"]["status"] == "playing"
            finished = http.get("/api/tables/oldOver1")
            assert finished.status_code == 200 and finished.json()["status"] == "over"
        # the guest of the table in play gets its seat back with its old token
        ann = Client.open(server, "oldPlay1", token="token-oldPlay1")
        assert ann.state["seat"] == 0 and ann.state["version"] == before["tables"][1][4]
        assert len(ann.state["view"]["hand"]) in (10, 11)
        ann.close()
        # the waiting table takes a new player, an account made on the upgraded schema
        with httpx.Client(base_url=server.base, headers={"Origin": server.base},
                          trust_env=False) as bob:
            signed = bob.post("/api/account/signup",
                              json={"name": "bob_upgrader", "password": "a long password"})
            assert signed.status_code == 201, signed.text
            # the session cookie is Secure (``__Host-``) even on loopback: httpx keeps it
            # for HTTPS only, so it is sent by hand, as a browser sends it to 127.0.0.1
            session = "; ".join(f"{k}={v}" for k, v in signed.cookies.items())
            joined = bob.post("/api/tables/oldWait1/join", json={"nickname": "Bob"},
                              headers={"Cookie": session})
            assert joined.status_code == 200, joined.text
            assert joined.json()["seat"] == 1
    after = _rows(url)
    assert after["tables"][0] == before["tables"][0]  # the finished table, untouched
    changed = set(before["seats"]) - set(after["seats"])
    assert changed == {s for s in before["seats"] if s[:2] == ("oldWait1", 1)}  # Bob sat
    assert set(before["events"]) <= set(after["events"])  # every old event, unchanged
    engine = open_engine(url)
    try:
        with engine.connect() as conn:
            assert conn.execute(text("SELECT version_num FROM alembic_version")
                                ).scalar_one() == _head()  # the latest migration
            assert conn.execute(text("SELECT account_id FROM seats WHERE table_id = "
                                     "'oldWait1' AND seat = 1")).scalar_one() is not None
        stored = Repository(engine).load_table("oldOver1")
        assert stored is not None and stored.status == "over"
    finally:
        engine.dispose()
