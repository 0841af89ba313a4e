"""Chat kept with the table (issue 13, 8): every line is stored, the last 100 of a table are
sent to each connection that joins or comes back (seats and spectators alike), after a
restart too; mutes are respected and nothing but the lines' public facts is sent."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from moderation_helpers import add_user, open_as, post
from server_helpers import Client, LiveServer, free_port, live_server
from sqlalchemy import select
from sqlalchemy.exc import OperationalError

from ginrummy.server.play.chat import ChatLine, ChatMutes, RecentChat
from ginrummy.server.play.committer import CommitFailed
from ginrummy.storage import InsertTable, Repository, StoredSeat, StoredTable, migrate, open_engine
from ginrummy.storage.chatlog import CHAT_LINES, StoredChatLine, add_line, count_lines, load_lines
from ginrummy.storage.models import ReportRow
from pg_helpers import pg_schema, schema_url

HISTORY_KEYS = {"type", "seat", "name", "text", "at", "seq", "history"}


def say(author: Client, line: str, *listeners: Client) -> dict[str, Any]:
    """``author`` says ``line``; wait until the author and every listener heard it live
    (its spaces cleaned)."""
    author.send({"type": "chat", "text": line})
    cleaned = " ".join(line.split())
    heard = [client.wait(lambda m: m["type"] == "chat" and m["text"] == cleaned
                         and not m.get("history")) for client in (author, *listeners)]
    assert all(m == heard[0] for m in heard)
    return heard[0]


def history(client: Client) -> list[dict[str, Any]]:
    """The history a freshly opened client got: the chat frames between ``welcome`` and its
    first ``state`` (asserting they come there, each marked ``history``)."""
    kinds = [m["type"] for m in client.frames]
    first_state = kinds.index("state")
    assert kinds[0] == "welcome"
    between = client.frames[1:first_state]
    assert all(m["type"] == "chat" and m["history"] is True for m in between), between
    assert not any(m.get("history") for m in client.frames[first_state:])
    return between


def quiet(client: Client) -> None:
    """Read everything the server sent until now (a ping's answer marks the end)."""
    client.send({"type": "ping"})
    client.wait(lambda m: m["type"] == "pong")


def test_a_newcomer_gets_the_chat_so_far_and_a_seat_gets_it_again_on_reconnect(
        server: LiveServer) -> None:
    created = server.create(nickname="Ann", public=False)
    table_id, invite = created["table_id"], created["invite"]
    joined = server.join(table_id, nickname="Bob", invite=invite)
    ann = Client.open(server, table_id, created["token"])
    bob = Client.open(server, table_id, joined["token"])
    wendy = add_user(server, "Wendy")  # a spectator chats only as an account (issue 25)
    watcher = Client.open(server, table_id, invite=invite, additional_headers=wendy.headers)
    assert history(ann) == [] and history(watcher) == []  # nothing said yet: no frame
    said = [say(ann, "good luck <b>Bob</b>", bob, watcher), say(bob, "thanks", ann, watcher),
            say(watcher, "go Ann", ann, bob)]
    assert [m["seq"] for m in said] == [1, 2, 3]

    eve = Client.open(server, table_id, invite=invite)  # a spectator who came late
    got = history(eve)
    assert [(m["seat"], m["name"], m["text"]) for m in got] == [
        (0, "Ann", "good luck <b>Bob</b>"), (1, "Bob", "thanks"), (None, "Wendy", "go Ann")]
    assert [{k: v for k, v in m.items() if k != "history"} for m in got] == said
    assert all(set(m) == HISTORY_KEYS for m in got)  # no account, token, view or card

    bob.close()  # a reload: the seat comes back on a new connection and gets it all again
    bob = Client.open(server, table_id, joined["token"])
    assert [m["seq"] for m in history(bob)] == [1, 2, 3]
    later = say(bob, "ready", ann, watcher, eve)
    assert later["seq"] == 4 and "history" not in later
    secrets_sent = (created["token"], joined["token"], invite)
    for client in (ann, bob, watcher, eve):
        for raw in client.texts:
            if '"type":"chat"' in raw:
                assert not any(secret in raw for secret in secrets_sent)
        client.close()


def test_the_chat_survives_a_restart_and_its_lines_can_still_be_reported(
        tmp_path: Path) -> None:
    with live_server(tmp_path) as first:
        bobby = add_user(first, "Bobby")
        created = first.create(nickname="Ann")
        table_id = created["table_id"]
        with first.http() as http:
            joined = http.post(f"/api/tables/{table_id}/join", json={"nickname": "x"},
                               headers=bobby.headers)
        assert joined.status_code == 200, joined.text
        ann = Client.open(first, table_id, created["token"])
        bob = open_as(first, table_id, bobby, joined.json()["token"])
        say(bob, "you   play like a potato", ann)
        say(ann, "be nice", bob)
        ann.close()
        bob.close()
    with live_server(tmp_path) as again:  # the same database
        ann = Client.open(again, table_id, created["token"])
        assert [(m["seq"], m["name"], m["text"]) for m in history(ann)] == [
            (1, "Bobby", "you play like a potato"), (2, "Ann", "be nice")]
        reported = post(again, "/api/reports", {
            "table_id": table_id, "author": "Bobby", "text": "you play like a potato",
            "token": created["token"]})
        assert reported.status_code == 201, reported.text
        with again.app.state.server.accounts.engine.connect() as conn:
            row = conn.execute(select(ReportRow.__table__)).one()
        assert (row.author_name, row.author_account_id) == ("Bobby", bobby.id)
        assert say(ann, "after the restart")["seq"] == 3  # numbers go on, none reused
        ann.close()


class _Remote:
    """A ``ginrummy serve`` process as the test clients see it."""

    def __init__(self, port: int) -> None:
        self.base = f"http://127.0.0.1:{port}"
        self.ws_base = self.base.replace("http://", "ws://")


def _serve(db: str, port: int, log: Path) -> subprocess.Popen[bytes]:
    """Start ``ginrummy serve`` in a subprocess; return once it answers."""
    script = Path(sys.executable).with_name("ginrummy")
    command = [str(script)] if script.exists() else [
        sys.executable, "-c", "from ginrummy.cli.main import main; raise SystemExit(main())"]
    with log.open("ab") as out:
        proc = subprocess.Popen([*command, "serve", "--port", str(port), "--db", db,
                                 "--log-level", "warning"], stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 90
    while True:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError(f"ginrummy serve did not start: {log.read_text()[-2000:]}")
        time.sleep(0.05)


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_a_line_anybody_heard_survives_a_crash(tmp_path: Path) -> None:
    db, port = f"sqlite:///{tmp_path / 'crash.db'}", free_port()
    remote = _Remote(port)
    proc = _serve(db, port, tmp_path / "serve.log")
    try:
        created = httpx.post(f"{remote.base}/api/tables", json={"nickname": "Ann"},
                             headers={"Origin": remote.base}).json()
        ann = Client.open(remote, created["table_id"], created["token"])
        watcher = Client.open(remote, created["table_id"])
        said = [say(ann, f"line {n}", watcher)["seq"] for n in range(3)]
        proc.send_signal(signal.SIGKILL)  # no shutdown code runs: only what was committed
        proc.wait(10)
        proc = _serve(db, port, tmp_path / "serve.log")
        again = Client.open(remote, created["table_id"], created["token"])
        assert [(m["seq"], m["text"]) for m in history(again)] == [
            (seq, f"line {n}") for n, seq in enumerate(said)]
        again.close()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


def test_the_history_keeps_the_last_hundred_lines(make_server: Any) -> None:
    server = make_server(chats_per_window=1000, messages_per_window=1000)
    created = server.create(nickname="Ann")
    table_id = created["table_id"]
    ann = Client.open(server, table_id, created["token"])
    for n in range(105):
        ann.send({"type": "chat", "text": f"line {n}"})
    ann.wait(lambda m: m["type"] == "chat" and m["text"] == "line 104")
    watcher = Client.open(server, table_id)
    got = history(watcher)
    assert [m["text"] for m in got] == [f"line {n}" for n in range(5, 105)]
    assert [m["seq"] for m in got] == list(range(6, 106))
    engine = open_engine(server.settings.db)
    try:
        assert count_lines(engine, table_id) == 100
        assert [line.seq for line in load_lines(engine, table_id)] == list(range(6, 106))
    finally:
        engine.dispose()
    ann.close()
    watcher.close()


def test_an_account_muted_by_an_administrator_is_left_out_of_the_history(
        server: LiveServer) -> None:
    admin, bobby = add_user(server, "Boss", "admin"), add_user(server, "Bobby")
    created = server.create(nickname="Ann")
    table_id = created["table_id"]
    with server.http() as http:
        joined = http.post(f"/api/tables/{table_id}/join", json={"nickname": "x"},
                           headers=bobby.headers)
    ann = Client.open(server, table_id, created["token"])
    bob = open_as(server, table_id, bobby, joined.json()["token"])
    say(bob, "rude words", ann)
    say(ann, "calm down", bob)
    assert post(server, "/api/admin/mute", {"name": "Bobby", "minutes": 30},
                admin).status_code == 200
    watcher = Client.open(server, table_id)
    assert [m["text"] for m in history(watcher)] == ["calm down"]
    assert post(server, "/api/admin/unmute", {"name": "Bobby"}, admin).status_code == 200
    later = Client.open(server, table_id)
    assert [m["text"] for m in history(later)] == ["rude words", "calm down"]
    for client in (ann, bob, watcher, later):
        client.close()


def test_the_history_leaves_out_the_seats_a_connection_muted() -> None:
    recent = RecentChat()
    recent.restore([StoredChatLine(1, datetime(2026, 12, 1, 18, 0, tzinfo=UTC), 0, "Ann",
                                   None, "hi"),
                    StoredChatLine(2, datetime(2026, 12, 1, 18, 1, tzinfo=UTC), 1, "Bob", 7,
                                   "hello"),
                    StoredChatLine(3, datetime(2026, 12, 1, 18, 2, tzinfo=UTC), None,
                                   "spectator", None, "go")])

    def seqs(texts: list[str]) -> list[int]:
        return [json.loads(text)["seq"] for text in texts]

    assert seqs(recent.history_for(set())) == [1, 2, 3]
    assert seqs(recent.history_for({1})) == [1, 3]
    assert seqs(recent.history_for({None, 0})) == [2]
    mutes = ChatMutes()
    mutes.set(7, datetime.now(UTC) + timedelta(minutes=5))
    assert seqs(recent.history_for(set(), mutes)) == [1, 3]
    assert recent.history_for(set())[0] == (
        '{"type":"chat","seat":0,"name":"Ann","text":"hi","at":"2026-12-01T18:00:00Z",'
        '"seq":1,"history":true}')
    assert recent.take_seq() == 4  # after the stored lines
    small = RecentChat(size=2)  # a line that leaves the memory leaves its text too
    for seq in (1, 2, 3):
        small.add(ChatLine(1764612000.0 + seq, 0, "Ann", None, f"n{seq}", seq))
        small.history_for(set())
    assert seqs(small.history_for(set())) == [2, 3] and sorted(small._texts) == [2, 3]


def test_a_line_the_database_refuses_is_heard_by_nobody(server: LiveServer) -> None:
    created = server.create(nickname="Ann")
    table_id = created["table_id"]
    joined = server.join(table_id, nickname="Bob")
    ann = Client.open(server, table_id, created["token"])
    bob = Client.open(server, table_id, joined["token"])
    writer = server.lobby.get(table_id)
    stored_line = writer.chat_room._store

    async def refuse(_line: ChatLine) -> None:
        raise CommitFailed("the database refused the write: OperationalError")

    writer.chat_room._store = refuse
    ann.send({"type": "chat", "text": "lost words"})
    refused = ann.wait(lambda m: m["type"] in ("error", "chat"))
    assert refused["type"] == "error" and refused["code"] == "storage"
    quiet(bob)
    assert not any(m["type"] == "chat" for m in bob.frames)
    writer.chat_room._store = stored_line
    kept = say(ann, "kept words", bob)
    watcher = Client.open(server, table_id)
    assert [m["text"] for m in history(watcher)] == ["kept words"]
    assert [line.text for line in writer.recent_chat.lines] == ["kept words"]
    assert kept["seq"] > 1
    for client in (ann, bob, watcher):
        client.close()


# ---------------------------------------------------------------------- storage
@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """A migrated engine on SQLite, or on PostgreSQL in a schema of its own."""
    if request.param == "sqlite":
        engine = open_engine(f"sqlite:///{tmp_path / 'chat.db'}")
        migrate(engine)
        yield engine
        engine.dispose()
        return
    with pg_schema("ginrummy_chat") as schema:
        engine = open_engine(schema_url(schema))
        try:
            migrate(engine)
            yield engine
        finally:
            engine.dispose()


def test_lines_are_written_pruned_and_read_back_oldest_first(database: Any) -> None:
    repository = Repository(database)
    for table_id in ("t1", "t2"):
        repository.write([InsertTable(StoredTable(
            table_id, "chatty", "classic", {}, 2, True, None, 0, None, "waiting", 0,
            [StoredSeat(0, "human", "Ann"), StoredSeat(1, "empty")]))])
    at = datetime(2026, 12, 1, 18, 30, 5, tzinfo=UTC)
    for seq in range(1, 6):
        repository.write([add_line("t1", StoredChatLine(seq, at, 0, "Ann", None, f"n{seq}"),
                                   keep=3)])
    repository.write([add_line("t2", StoredChatLine(1, at, None, "spectator", None, "other"),
                               keep=3)])
    lines = load_lines(database, "t1")
    assert [(line.seq, line.text) for line in lines] == [(3, "n3"), (4, "n4"), (5, "n5")]
    assert lines[0] == StoredChatLine(3, at, 0, "Ann", None, "n3")  # a UTC time, as written
    assert [line.text for line in load_lines(database, "t2")] == ["other"]
    assert [line.seq for line in load_lines(database, "t1", keep=2)] == [4, 5]
    assert count_lines(database, "t1") == 3 and count_lines(database, "nope") == 0
    with database.connect() as conn:  # the stored columns: nothing else is kept
        assert {c.name for c in CHAT_LINES.columns} == {
            "table_id", "seq", "at", "seat", "name", "account_id", "text"}
        assert conn.execute(select(CHAT_LINES.c.seq)).scalars().all() != []
    with pytest.raises(ValueError, match="keep"):
        add_line("t1", lines[0], keep=0)


def test_a_new_line_waits_for_the_stored_ones_to_be_loaded() -> None:
    loads: list[int] = []

    def load() -> list[StoredChatLine]:
        loads.append(1)
        return [StoredChatLine(41, datetime(2026, 12, 1, tzinfo=UTC), 0, "Ann", None, "old")]

    async def run() -> tuple[bool, bool]:
        recent = RecentChat()
        first, second = await asyncio.gather(recent.ensure_loaded(load),
                                             recent.ensure_loaded(load))
        assert recent.take_seq() == 42
        assert recent.find("Ann", " old ") is not None
        return first, second

    assert asyncio.run(run()) == (True, True)
    assert loads == [1]  # loaded once, however many asked at the same time

    def broken() -> list[StoredChatLine]:
        raise OperationalError("SELECT", {}, Exception("gone"))

    async def failing() -> tuple[bool, bool]:
        recent = RecentChat()
        return await recent.ensure_loaded(broken), await recent.ensure_loaded(load)

    assert asyncio.run(failing()) == (False, True)  # tried again on the next need
