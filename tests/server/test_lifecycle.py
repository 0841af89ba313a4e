"""The tables' lifecycle: computers never play a table alone, a table no person attends is
abandoned (kept as a finished record, not listed, not restored), and a finished table nobody
is at leaves memory and is loaded again when asked for (docs/server.md, *Quotas and
lifecycle*)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from server_helpers import Client, live_server

COMPUTER = {"bot", "away", "clock"}


def wait_until(predicate: Any, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("condition not met in time")
        time.sleep(0.05)


def computer_moves(stored: Any) -> int:
    return sum(1 for e in stored.events if e.kind == "action" and e.source in COMPUTER)


def test_a_table_nobody_attends_is_abandoned_never_played_and_not_restored(
        tmp_path: Path) -> None:
    settings = dict(abandon_after_seconds=0.6, hold_seconds=0.1, unload_after_seconds=600)
    with live_server(tmp_path, **settings) as server:
        # the computer moves first in half of the deals: its seat does not play either way
        created = server.create(nickname="Ann", bots={"1": "simple"})
        table_id = created["table_id"]
        wait_until(lambda: server.stored_table(table_id).status == "abandoned")
        stored = server.stored_table(table_id)
        assert computer_moves(stored) == 0
        with server.http() as client:
            listed = client.get("/api/tables").json()["tables"]
            entry = client.get(f"/api/tables/{table_id}").json()
        assert table_id not in [t["id"] for t in listed]
        assert entry["status"] == "abandoned"
        # the player comes back too late: the table is a record, nothing is played
        ann = Client.open(server, table_id, created["token"])
        assert ann.state["table"]["status"] == "abandoned" and ann.state["legal"] == []
        ann.send({"type": "action", "id": "late", "version": ann.state["version"],
                  "action": "stock"})
        assert ann.answer()["type"] == "error"
        ann.close()
        version = server.stored_table(table_id).version
    with live_server(tmp_path, **settings) as again:
        assert again.app.state.server.restored == 0
        assert table_id not in again.lobby.writers
        time.sleep(0.5)
        assert again.stored_table(table_id).version == version


def test_computers_stop_when_the_last_person_leaves_and_go_on_when_one_is_back(
        make_server: Any) -> None:
    server = make_server(hold_seconds=0.1, abandon_after_seconds=600)
    created = server.create(nickname="Ann", bots={"1": "simple"})
    table_id = created["table_id"]
    ann = Client.open(server, table_id, created["token"])
    state = ann.playable()
    ann.close()
    # Ann is gone: her hold ends after 0.1 s, and yet neither seat is played by the computer
    time.sleep(1.0)
    stored = server.stored_table(table_id)
    assert stored.version == state["version"], "computers played a table alone"
    assert stored.status == "playing"
    # she is back: the game goes on where it stopped
    ann = Client.open(server, table_id, created["token"])
    back = ann.playable()
    assert back["table"]["seats"][0]["away"] is False
    ann.send({"type": "action", "id": "a1", "version": back["version"],
              "action": back["legal"][0]})
    assert ann.answer().get("ack") == "a1"


def test_a_spectator_is_not_a_person_the_table_is_abandoned(make_server: Any) -> None:
    server = make_server(abandon_after_seconds=0.5, hold_seconds=0.1)
    created = server.create(nickname="Ann", bots={"1": "simple"})
    table_id = created["table_id"]
    watcher = Client.open(server, table_id)
    ended = watcher.wait(lambda m: m["type"] == "state"
                         and m["table"]["status"] == "abandoned", 20)
    assert ended["legal"] == []
    assert computer_moves(server.stored_table(table_id)) == 0


def test_a_finished_table_leaves_memory_and_is_loaded_again(make_server: Any) -> None:
    server = make_server(abandon_after_seconds=0.3, unload_after_seconds=0.3,
                         hold_seconds=0.1)
    created = server.create(nickname="Ann")
    table_id = created["table_id"]
    wait_until(lambda: table_id not in server.lobby.writers)
    assert server.stored_table(table_id).status == "abandoned"
    with server.http() as client:
        assert server.lobby.writers == {}
        entry = client.get(f"/api/tables/{table_id}")  # loaded from the database again
        assert entry.status_code == 200 and entry.json()["status"] == "abandoned"
        assert client.get("/api/tables/nosuchtable").status_code == 404
    ann = Client.open(server, table_id, created["token"])
    assert ann.state["table"]["id"] == table_id and ann.state["seat"] == 0
    # while someone is there it stays; once nobody is, it leaves again
    time.sleep(0.6)
    assert table_id in server.lobby.writers
    ann.close()
    wait_until(lambda: table_id not in server.lobby.writers)
