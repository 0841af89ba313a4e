"""Group commit: concurrent writes share transactions; a refused write fails alone and leaves
the table as the database has it."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from ginrummy.server.committer import CommitFailed, GroupCommitter
from ginrummy.server.connections import Connection
from ginrummy.server.lobby import Lobby
from ginrummy.server.protocol import ActionMessage, CreateTable, JoinTable
from ginrummy.server.settings import Settings
from ginrummy.storage import Repository, UpdateTable, WriteOp, migrate, open_engine


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
    written = {op.table_id for batch in repo.transactions for op in batch
               if isinstance(op, UpdateTable)}
    assert written == {"a", "b"}


class Recorder(Connection):
    """A connection that keeps what it is sent."""

    def __init__(self, settings: Settings, seat: int) -> None:
        super().__init__(None, settings)  # type: ignore[arg-type]
        self.seat = seat
        self.sent: list[Any] = []

    def send(self, message: Any) -> None:
        self.sent.append(message)


class FlakyCommitter(GroupCommitter):
    """Fails the next ``fail`` commits."""

    fail = 0

    async def commit(self, ops: Sequence[WriteOp]) -> None:
        if self.fail:
            self.fail -= 1
            raise CommitFailed("the database refused the write: disk full")
        await super().commit(ops)


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
