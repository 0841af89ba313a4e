"""A chat line is fenced like an action (docs/cluster.md, *Fencing every commit*): a stale
owner, one that still holds its Redis lease but whose table a newer owner claimed in the
database (a partition), cannot store one more chat line; the line is refused, reaches nobody,
and the table is unloaded from the stale owner."""

from __future__ import annotations

from pathlib import Path

from server_helpers import Client
from test_cluster_node import member, node_of, until
from websockets.exceptions import ConnectionClosed

from ginrummy.server.cluster import Fence, claim
from ginrummy.storage import open_engine
from ginrummy.storage.chatlog import load_lines
from pg_helpers import pg_schema, schema_url


def test_a_stale_owners_chat_line_is_refused_and_not_stored(tmp_path: Path,
                                                            prefix: str) -> None:
    with pg_schema("chatfence") as schema:
        db = schema_url(schema)
        engine = open_engine(db)
        try:
            with member(tmp_path, db, prefix) as a:
                created = a.create(nickname="Ann")  # waiting: nothing but chat is written
                table_id = created["table_id"]
                ann = Client.open(a, table_id, created["token"])
                ann.send({"type": "chat", "text": "before"})
                assert ann.wait(lambda m: m["type"] == "chat")["text"] == "before"
                assert [line.text for line in load_lines(engine, table_id)] == ["before"]

                # a newer owner's token stored; A's Redis lease is untouched (A cannot know)
                lease = node_of(a).keeper.leases[table_id]
                claim(engine, Fence(table_id, lease.token + 10, "newer@elsewhere:1"))
                assert node_of(a).owns(table_id)

                ann.send({"type": "chat", "text": "one more"})
                seen: list[dict[str, object]] = []
                try:
                    while True:
                        seen.append(ann.recv(10))
                except ConnectionClosed:
                    pass
                # refused: the table is unloaded at once (its sockets closed, so the line's
                # ``storage`` error may not reach the author), and nobody heard the line
                assert all(m["type"] != "error" or m["code"] == "storage" for m in seen)
                assert not any(m["type"] == "chat" and m.get("text") == "one more"
                               for m in seen)
                assert ann.ws.close_code == 1012  # the table moved: reconnect
                until(lambda: table_id not in a.lobby.writers, timeout=10,
                      what="the stale owner unloads the table")
                assert [line.text for line in load_lines(engine, table_id)] == ["before"]
        finally:
            engine.dispose()
