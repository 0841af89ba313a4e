"""The server on PostgreSQL: play, stop, start again, the table is restored and goes on."""

from __future__ import annotations

from pathlib import Path

from server_helpers import Client, live_server


def test_play_restart_and_play_on_with_postgresql(tmp_path: Path, pg_url: str) -> None:
    with live_server(tmp_path, db=pg_url) as server:
        created = server.create(nickname="Ann", bots={"1": "simple"})
        table_id, token = created["table_id"], created["token"]
        ann = Client.open(server, table_id, token)
        acked = []
        while len(acked) < 3:
            state = ann.playable()
            ann.send({"type": "action", "id": f"a{len(acked)}", "version": state["version"],
                      "action": state["legal"][0]})
            ack = ann.answer()
            assert ack.get("ack") == f"a{len(acked)}", ack
            acked.append(ack["version"])
        ann.close()
        stored = server.stored_table(table_id)
    assert stored.version >= acked[-1]
    assert {e.client_id for e in stored.events if e.client_id} == {"a0", "a1", "a2"}
    with live_server(tmp_path, db=pg_url) as again:
        assert again.app.state.server.restored == 1
        ann = Client.open(again, table_id, token)
        assert ann.state["version"] >= acked[-1]
        state = ann.playable()
        ann.send({"type": "action", "id": "after", "version": state["version"],
                  "action": state["legal"][0]})
        assert ann.answer().get("ack") == "after"
        ann.reach(state["version"] + 1)
