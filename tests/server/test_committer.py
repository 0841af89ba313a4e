"""Group commit: concurrent writes share transactions; a refused write fails alone and leaves
the table as the database has it."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.exc import NoSuchColumnError

from ginrummy.server.core.protocol import ActionMessage, CreateTable, JoinTable
from ginrummy.server.core.settings import Settings
from ginrummy.server.play.committer import CommitFailed, GroupCommitter
from ginrummy.server.play.connections import Connection
from ginrummy.server.play.lobby import Lobby
from ginrummy.storage import (
    InsertEvent,
    InsertTable,
    Repository,
    StoredEvent,
    StoredSeat,
    StoredTable,
    UpdateSeat,
    UpdateTable,
    WriteOp,
    migrate,
    open_engine,
)


class SlowRepository:
    """Records each transaction; takes 20 ms like a disk that syncs; refuses ``poison``."""

    def __init__(self) -> None:
        self.transactions: list[list[WriteOp]] = []
        self.lock = threading.Lock()

    def write(self, ops: Sequence[WriteOp]) -> None:
        time.sleep(0.02)
        if any(isinstance(op, UpdateTable) and op.table_id == "poison" for op in ops):
            raise RuntimeError("refused")
        with self.lock:
            self.transactions.append(list(ops))

    def write_each(self, writes: Sequence[Sequence[WriteOp]]) -> list[BaseException | None]:
        """One transaction; each write refused alone (as the repository's savepoints)."""
        time.sleep(0.02)
        kept: list[WriteOp] = []
        errors: list[BaseException | None] = []
        for ops in writes:
            if any(isinstance(op, UpdateTable) and op.table_id == "poison" for op in ops):
                errors.append(RuntimeError("refused"))
            else:
                kept.extend(ops)
                errors.append(None)
        with self.lock:
            self.transactions.append(kept)
        return errors


def test_concurrent_writes_share_transactions() -> None:
    async def run() -> tuple[SlowRepository, GroupCommitter]:
        repo = SlowRepository()
        committer = GroupCommitter(repo)  # type: ignore[arg-type]
        committer.start()
        await asyncio.gather(*(committer.commit([UpdateTable(f"t{i}", {"version": i})])
                               for i in range(50)))
        await committer.close()
        return repo, committer

    repo, committer = asyncio.run(run())
    written = [op.table_id for batch in repo.transactions for op in batch
               if isinstance(op, UpdateTable)]
    assert sorted(written) == sorted(f"t{i}" for i in range(50))
    assert len(repo.transactions) <= 5  # 50 writes, a handful of commits
    assert committer.stats.writes == 50 and committer.stats.largest_batch >= 10


def test_a_refused_write_fails_alone() -> None:
    async def run() -> tuple[list[object], SlowRepository]:
        repo = SlowRepository()
        committer = GroupCommitter(repo)  # type: ignore[arg-type]
        committer.start()
        outcomes = await asyncio.gather(
            *(committer.commit([UpdateTable(name, {"version": 1})])
              for name in ("a", "poison", "b")), return_exceptions=True)
        await committer.close()
        return list(outcomes), repo

    outcomes, repo = asyncio.run(run())
    assert outcomes[0] is None and outcomes[2] is None
    assert isinstance(outcomes[1], CommitFailed)
    assert isinstance(outcomes[1].__cause__, RuntimeError)  # the write's own error
    written = {op.table_id for batch in repo.transactions for op in batch
               if isinstance(op, UpdateTable)}
    assert written == {"a", "b"}
    assert len(repo.transactions) == 1  # the others in one transaction, not one each


class TimedRepository(SlowRepository):
    """A :class:`SlowRepository` that also notes when each transaction started."""

    def __init__(self) -> None:
        super().__init__()
        self.started: list[float] = []

    def write(self, ops: Sequence[WriteOp]) -> None:
        self.started.append(time.perf_counter())
        super().write(ops)


def test_the_next_transaction_starts_while_the_event_loop_is_busy() -> None:
    """The database thread takes the next batch as soon as a transaction ends: a write handed
    over during a transaction is committed even while the event loop is blocked."""
    async def run() -> tuple[TimedRepository, float, float]:
        repo = TimedRepository()
        committer = GroupCommitter(repo)  # type: ignore[arg-type]
        committer.start()
        first = asyncio.ensure_future(committer.commit([UpdateTable("a", {"version": 1})]))
        while not repo.started:  # the first transaction (20 ms) is running
            await asyncio.sleep(0.001)
        second = asyncio.ensure_future(committer.commit([UpdateTable("b", {"version": 1})]))
        await asyncio.sleep(0)  # the second write is handed over at the end of this pass
        await asyncio.sleep(0)
        blocked_at = time.perf_counter()
        time.sleep(0.1)  # the event loop busy for 100 ms (the thread keeps committing)
        unblocked_at = time.perf_counter()
        await asyncio.gather(first, second)
        await committer.close()
        return repo, blocked_at, unblocked_at

    repo, blocked_at, unblocked_at = asyncio.run(run())
    assert [[op.table_id for op in t if isinstance(op, UpdateTable)]
            for t in repo.transactions] == [["a"], ["b"]]
    assert blocked_at < repo.started[1] < unblocked_at


def test_the_writes_of_one_loop_pass_share_a_transaction() -> None:
    async def run() -> SlowRepository:
        repo = SlowRepository()
        committer = GroupCommitter(repo)  # type: ignore[arg-type]
        committer.start()
        await asyncio.gather(*(committer.commit([UpdateTable(f"t{i}", {"version": 1})])
                               for i in range(3)))
        await committer.close()
        return repo

    repo = asyncio.run(run())
    assert [sorted(op.table_id for op in t if isinstance(op, UpdateTable))
            for t in repo.transactions] == [["t0", "t1", "t2"]]

class InstantRepository(TimedRepository):
    """A :class:`TimedRepository` whose transactions take no time."""

    def write(self, ops: Sequence[WriteOp]) -> None:
        self.started.append(time.perf_counter())
        with self.lock:
            self.transactions.append(list(ops))


def test_commits_are_spaced_under_load_and_a_lone_write_commits_at_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With a spacing of 300 ms: after a transaction of several writes, writes that come
    within 300 ms of its start wait for the next one and share it; after a transaction of one
    write (one table's moves one after another), or after a quiet spell, a write commits at
    once (the database thread sleeps only for the spaced one)."""
    sleeps: list[float] = []
    sleep = time.sleep

    def noted_sleep(seconds: float) -> None:
        if threading.current_thread().name.startswith("ginrummy-db"):
            sleeps.append(seconds)
        sleep(seconds)

    monkeypatch.setattr(time, "sleep", noted_sleep)

    def write(committer: GroupCommitter, name: str) -> asyncio.Future[None]:
        return asyncio.ensure_future(committer.commit([UpdateTable(name, {"version": 1})]))

    async def run() -> InstantRepository:
        repo = InstantRepository()
        committer = GroupCommitter(repo, spacing_ms=300)  # type: ignore[arg-type]
        committer.start()
        for n in range(3):  # one table's moves, one after another: none waits
            await write(committer, f"one{n}")
        burst = [write(committer, f"t{i}") for i in range(3)]  # one transaction of three
        await asyncio.gather(*burst)
        await asyncio.sleep(0.01)
        await asyncio.gather(*(write(committer, f"u{i}") for i in range(3)))  # spaced
        await asyncio.sleep(0.4)  # a quiet spell, longer than the spacing
        await write(committer, "after")
        await committer.close()
        return repo

    repo = asyncio.run(run())
    tables = [sorted(op.table_id for op in t if isinstance(op, UpdateTable))
              for t in repo.transactions]
    assert tables == [["one0"], ["one1"], ["one2"], ["t0", "t1", "t2"], ["u0", "u1", "u2"],
                      ["after"]]
    assert len(sleeps) == 1 and 0 < sleeps[0] <= 0.3, sleeps  # only the spaced one waited
    assert repo.started[4] - repo.started[3] >= 0.29  # (clocks read a moment apart)



def test_close_commits_what_is_pending_and_refuses_more() -> None:
    async def run() -> tuple[SlowRepository, list[object]]:
        repo = SlowRepository()
        committer = GroupCommitter(repo)  # type: ignore[arg-type]
        committer.start()
        pending = [asyncio.ensure_future(committer.commit([UpdateTable(f"t{i}", {"version": 1})]))
                   for i in range(4)]
        await asyncio.sleep(0)
        await committer.close()
        outcomes = await asyncio.gather(*pending, return_exceptions=True)
        with pytest.raises(CommitFailed, match="shutting down"):
            await committer.commit([UpdateTable("late", {"version": 1})])
        return repo, list(outcomes)

    repo, outcomes = asyncio.run(run())
    assert outcomes == [None] * 4
    assert sorted(op.table_id for t in repo.transactions for op in t
                  if isinstance(op, UpdateTable)) == ["t0", "t1", "t2", "t3"]


class Recorder(Connection):
    """A connection that keeps what it is sent."""

    def __init__(self, settings: Settings, seat: int) -> None:
        super().__init__(None, settings)  # type: ignore[arg-type]
        self.seat = seat
        self.sent: list[Any] = []

    def send(self, message: Any) -> None:
        self.sent.append(message)


class FlakyCommitter(GroupCommitter):
    """Fails the next ``fail`` commits (their ``CommitFailed`` caused by ``cause``)."""

    fail = 0
    cause: BaseException | None = None

    async def commit(self, ops: Sequence[WriteOp], table_id: str | None = None) -> None:
        if self.fail:
            self.fail -= 1
            raise CommitFailed("the database refused the write: disk full") from self.cause
        await super().commit(ops, table_id)


def test_a_failed_commit_changes_nothing_and_play_goes_on(tmp_path: Path) -> None:
    async def run() -> None:
        settings = Settings(db=f"sqlite:///{tmp_path / 'f.db'}", bot_delay_ms=0)
        engine = open_engine(settings.db)
        migrate(engine)
        repo = Repository(engine)
        committer = FlakyCommitter(repo)
        committer.start()
        lobby = Lobby(settings, repo, committer)
        created = await lobby.create(CreateTable(nickname="Ann"))
        await lobby.join(created["table_id"], JoinTable(nickname="Bob"))
        writer = lobby.get(created["table_id"])
        assert writer is not None
        table = writer.table
        mover = table.running_hand().to_move  # type: ignore[union-attr]
        conn = Recorder(settings, mover)
        legal = table.state_message(mover, 0)["legal"]
        before = (table.version, table.running_hand().snapshot())  # type: ignore[union-attr]
        committer.fail = 1
        await writer.handle_action(conn, ActionMessage(type="action", id="x", version=table.version,
                                                       action=legal[0]))
        error = conn.sent[-1]
        assert error["type"] == "error" and error["code"] == "storage" and error["id"] == "x"
        table = writer.table  # reloaded from the database
        assert (table.version, table.running_hand().snapshot()) == before  # type: ignore[union-attr]
        await writer.handle_action(conn, ActionMessage(type="action", id="y", version=table.version,
                                                       action=legal[0]))
        acks = [json.loads(m) for m in conn.sent if isinstance(m, str) and '"ack"' in m]
        assert [(m["type"], m["ack"], m["version"]) for m in acks] == [
            ("state", "y", before[0] + 1)]
        stored = repo.load_table(created["table_id"])
        assert stored is not None and stored.version == before[0] + 1
        lobby.close()
        await committer.close()
        engine.dispose()

    asyncio.run(run())


@pytest.mark.parametrize(("cause", "level"), [
    (LookupError("seat 1 is taken"), logging.WARNING),
    (NoSuchColumnError("no such column: seats.rematch"), logging.ERROR),
])
def test_a_failed_commit_is_logged_as_a_refusal_or_a_fault(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, cause: BaseException,
        level: int) -> None:
    """The table's commit path and the group committer tell a write's own refusal from a
    fault alike: a SQLAlchemy error is a fault even when it is a ``KeyError``."""
    async def run() -> None:
        settings = Settings(db=f"sqlite:///{tmp_path / 'f.db'}", bot_delay_ms=0)
        engine = open_engine(settings.db)
        migrate(engine)
        repo = Repository(engine)
        committer = FlakyCommitter(repo)
        committer.start()
        lobby = Lobby(settings, repo, committer)
        created = await lobby.create(CreateTable(nickname="Ann"))
        await lobby.join(created["table_id"], JoinTable(nickname="Bob"))
        writer = lobby.get(created["table_id"])
        assert writer is not None
        table = writer.table
        mover = table.running_hand().to_move  # type: ignore[union-attr]
        legal = table.state_message(mover, 0)["legal"]
        committer.fail, committer.cause = 1, cause
        with caplog.at_level(logging.WARNING, logger="ginrummy.server.table"):
            await writer.handle_action(Recorder(settings, mover), ActionMessage(
                type="action", id="x", version=table.version, action=legal[0]))
        lobby.close()
        await committer.close()
        engine.dispose()

    asyncio.run(run())
    (record,) = [r for r in caplog.records if "commit failed" in r.getMessage()]
    assert record.levelno == level


@pytest.mark.parametrize("count", [1, 3])
def test_close_commits_what_is_pending(count: int) -> None:
    async def run() -> SlowRepository:
        repo = SlowRepository()
        committer = GroupCommitter(repo)  # type: ignore[arg-type]
        committer.start()
        pending = [asyncio.ensure_future(committer.commit([UpdateTable(f"t{i}", {})]))
                   for i in range(count)]
        await asyncio.sleep(0)
        await committer.close()
        await asyncio.gather(*pending)
        with pytest.raises(CommitFailed):
            await committer.commit([UpdateTable("late", {})])
        return repo

    repo = asyncio.run(run())
    assert sum(len(batch) for batch in repo.transactions) == count


# ------------------------------------------------------------- the real write path, both databases
@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh SQLite file with the server's pragmas, or a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'commits.db'}"
    return str(request.getfixturevalue("pg_url"))


def two_seats(table_id: str) -> StoredTable:
    """A two-seat table as the lobby stores it."""
    return StoredTable(
        id=table_id, name=table_id, preset="classic", rules={}, players=2, public=True,
        invite_hash=None, clock_ms=30_000, pool_chips=None, status="playing", version=1,
        seats=[StoredSeat(0, "human", "Ann"), StoredSeat(1, "human", "Bob")])


def an_action(table_id: str, version: int, clock: bool) -> list[WriteOp]:
    """What one action writes: its event and the table's version, status and clock."""
    return [InsertEvent(table_id, StoredEvent(version, "action", f"{table_id}:{version}",
                                              version % 2, "human", f"a{version}")),
            UpdateTable(table_id, {
                "version": version, "status": "playing" if version < 9 else "over",
                "clock_seat": (version + 1) % 2 if clock else None,
                "clock_deadline": 1000.0 + version + 0.25 if clock else None})]


def test_concurrent_actions_of_many_tables_are_all_stored(database_url: str) -> None:
    """150 tables (more rows than one multi-row statement holds) act 8 times each at once:
    every event and the last version, status and clock of every table are stored, in a few
    shared transactions, on one connection of the pool."""
    ids = [f"t{i:03d}" for i in range(150)]
    engine = open_engine(database_url, background_checkpoint=True)
    migrate(engine)
    checkouts: list[object] = []
    event.listen(engine, "checkout", lambda *_: checkouts.append(1))
    repo = Repository(engine)

    async def play(table_id: str, index: int) -> None:
        for version in range(2, 10):  # the last action of every third table stops its clock
            clock = version < 9 or index % 3 != 0
            await committer.commit(an_action(table_id, version, clock))

    async def run() -> None:
        committer.start()
        await committer.commit([InsertTable(two_seats(t)) for t in ids])
        await asyncio.gather(*(play(t, i) for i, t in enumerate(ids)))
        await committer.close()

    committer = GroupCommitter(repo)
    asyncio.run(run())
    writer_checkouts = len(checkouts)
    stored = {t.id: t for t in repo.load_tables(ids=ids)}
    engine.dispose()
    assert sorted(stored) == ids
    for index, table_id in enumerate(ids):
        table = stored[table_id]
        clock = index % 3 != 0
        assert (table.version, table.status, table.clock_seat, table.clock_deadline) == (
            9, "over", 0 if clock else None, 1009.25 if clock else None)
        assert [(e.version, e.payload, e.seat, e.client_id) for e in table.events] == [
            (v, f"{table_id}:{v}", v % 2, f"a{v}") for v in range(2, 10)]
        assert table.updated_at > table.created_at
    assert committer.stats.writes == 1 + 150 * 8
    assert committer.stats.batches < 150 * 8 / 4  # transactions were shared
    assert committer.stats.largest_batch > 64  # a batch needed more than one statement
    assert writer_checkouts == 1  # the writes kept their connection


def test_a_refused_write_in_a_real_batch_fails_alone(database_url: str) -> None:
    """A duplicate event in a batch: that write gets CommitFailed, the rest of its batch is
    stored, and the next writes go through (the write connection is replaced)."""
    engine = open_engine(database_url, background_checkpoint=True)
    migrate(engine)
    repo = Repository(engine)

    async def run() -> list[object]:
        committer = GroupCommitter(repo)
        committer.start()
        await committer.commit([InsertTable(two_seats("a")), InsertTable(two_seats("b"))])
        await committer.commit(an_action("a", 2, True))
        outcomes = await asyncio.gather(
            committer.commit(an_action("b", 2, True)),
            committer.commit(an_action("a", 2, False)),  # version 2 of "a" exists
            committer.commit(an_action("b", 3, True)), return_exceptions=True)
        await committer.commit(an_action("a", 3, False))
        await committer.close()
        return list(outcomes)

    outcomes = asyncio.run(run())
    assert outcomes[0] is None and outcomes[2] is None
    assert isinstance(outcomes[1], CommitFailed) and "IntegrityError" in str(outcomes[1])
    a, b = repo.load_table("a"), repo.load_table("b")
    engine.dispose()
    assert a is not None and b is not None
    assert [e.version for e in a.events] == [2, 3] and a.clock_seat is None
    assert [e.version for e in b.events] == [2, 3] and (b.version, b.clock_seat) == (3, 0)


def test_a_write_postgresql_refuses_fails_alone_and_the_batch_commits_once(
        pg_url: str) -> None:
    """A NUL in a text column (the edge refuses it; this write goes around the edge):
    PostgreSQL refuses the batch; the write is isolated in a savepoint of the retry, the
    other tables' writes of the batch commit in that one transaction, and only the bad
    write's waiter hears of it."""
    engine = open_engine(pg_url)
    migrate(engine)
    repo = Repository(engine)
    commits: list[int] = []
    event.listen(engine, "commit", lambda _conn: commits.append(1))
    tables = [f"t{n}" for n in range(6)]

    async def run() -> list[object]:
        committer = GroupCommitter(repo)
        committer.start()
        await committer.commit([InsertTable(two_seats(t)) for t in [*tables, "bad"]])
        commits.clear()
        poisoned = an_action("bad", 2, True)
        event_op = poisoned[0]
        assert isinstance(event_op, InsertEvent)
        poisoned[0] = InsertEvent("bad", StoredEvent(2, "action", "bad:2", 0, "human",
                                                     "id\x00with a NUL"))
        outcomes = await asyncio.gather(
            *(committer.commit(an_action(t, 2, True), t) for t in tables[:3]),
            committer.commit(poisoned, "bad"),
            *(committer.commit(an_action(t, 2, True), t) for t in tables[3:]),
            return_exceptions=True)
        await committer.close()
        return list(outcomes)

    outcomes = asyncio.run(run())
    bad = outcomes.pop(3)
    assert outcomes == [None] * 6  # no other table saw an error
    assert isinstance(bad, CommitFailed) and "DataError" in str(bad)
    assert len(commits) == 1  # the failed batch's other writes: one transaction
    for table_id in tables:
        stored = repo.load_table(table_id)
        assert stored is not None and [e.version for e in stored.events] == [2]
    stored_bad = repo.load_table("bad")
    engine.dispose()
    assert stored_bad is not None and stored_bad.events == [] and stored_bad.version == 1


def test_bad_operations_are_named(tmp_path: Path) -> None:
    engine = open_engine(f"sqlite:///{tmp_path / 'bad.db'}")
    migrate(engine)
    repo = Repository(engine)
    with pytest.raises(TypeError, match="not a write operation: str"):
        repo.write(["INSERT"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="no seat column 'colour'"):
        repo.write([UpdateSeat("t", 0, {"colour": "red"})])
    repo.write([InsertTable(two_seats("t"))])  # the repository still writes
    assert repo.load_table("t") is not None
    repo.close()
    engine.dispose()


def test_a_sqlite_batch_is_one_transaction_of_two_prepared_statements(tmp_path: Path) -> None:
    """However many actions a SQLite batch holds, it runs in one transaction (BEGIN ...
    COMMIT) its events' INSERT and its tables' UPDATE, each one prepared one-row statement
    stepped once per action (an ``executemany``): the same two texts at every batch size."""
    engine = open_engine(f"sqlite:///{tmp_path / 'steps.db'}")
    statements: list[str] = []
    event.listen(engine, "connect",
                 lambda dbapi, _record: dbapi.set_trace_callback(statements.append))
    migrate(engine)
    repo = Repository(engine)
    ids = [f"t{i:02d}" for i in range(64)]
    repo.write([InsertTable(two_seats(t)) for t in ids])
    texts: set[str] = set()
    for size in (1, 4, 64):
        statements.clear()
        repo.write([op for t in ids[:size] for op in an_action(t, 1 + size, True)])
        words = [s.split()[0] for s in statements]
        assert words == ["BEGIN", *["INSERT"] * size, *["UPDATE"] * size, "COMMIT"], size
        # the trace shows each step with its values: the statements' shapes without them
        texts |= {re.sub(r"'(?:[^']|'')*'|\b\d+(?:\.\d+)?\b|NULL", "?", s)
                  for s in statements[1:-1]}
    assert len(texts) == 2, texts
    stored = repo.load_tables(ids=ids)
    assert [(t.version, len(t.events)) for t in stored] == (
        [(65, 3)] * 1 + [(65, 2)] * 3 + [(65, 1)] * 60)
    repo.close()
    engine.dispose()
