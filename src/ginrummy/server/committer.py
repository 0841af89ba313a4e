"""Group commit: one writer task batches the pending writes of every table into one
transaction, then wakes each waiter. An action is acknowledged only after its batch commits.

While one transaction runs (in a worker thread), new writes queue up; the next transaction
takes them all. With a database that syncs in ~1-5 ms this turns thousands of actions per
second into a few hundred commits.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from ginrummy.server.cluster.fencing import Fence, FencedOut, Fencer, NoFencer, fence_op
from ginrummy.storage import InsertTable, Repository, WriteOp

log = logging.getLogger("ginrummy.server.commit")


@dataclass
class CommitStats:
    """Counters for the load report."""

    batches: int = 0
    writes: int = 0
    ops: int = 0
    failures: int = 0
    largest_batch: int = 0
    batch_sizes: list[int] = field(default_factory=list, repr=False)


class CommitFailed(RuntimeError):
    """The database refused a write; nothing of it was committed."""


Pending = tuple[Sequence[WriteOp], tuple[Fence, ...], "asyncio.Future[None]"]
"""A write waiting for its batch: its operations, its tables' fences and its waiter."""


def tables_of(ops: Iterable[WriteOp], table_id: str | None = None) -> list[str]:
    """The tables a write belongs to: ``table_id`` and those its operations name (an
    ``Apply`` names none: it goes with the table of its write, so a write of a table made of
    ``Apply`` operations alone, such as a chat line, must give ``table_id`` to be fenced)."""
    found: dict[str, None] = {} if table_id is None else {table_id: None}
    for op in ops:
        if isinstance(op, InsertTable):
            found[op.table.id] = None
        else:
            name = getattr(op, "table_id", None)
            if isinstance(name, str):
                found[name] = None
    return list(found)


class GroupCommitter:
    """Runs every write of the server through one task and one database thread."""

    def __init__(self, repository: Repository, interval_ms: float = 0.0,
                 max_batch: int = 5000) -> None:
        self.repository = repository
        self.interval = interval_ms / 1000
        self.max_batch = max_batch
        self.stats = CommitStats()
        self.on_batch: Callable[[int, float], None] | None = None
        """Called after each committed transaction with its writes and its duration in
        seconds (the commit latency histogram of /metrics)."""
        self.fencer: Fencer = NoFencer()
        """The fences put on every write: a cluster member's leases (docs/cluster.md); one
        process without Redis: none."""
        self.on_fenced: Callable[[tuple[str, ...]], None] | None = None
        """Told the tables whose writes failed because this process no longer owns them
        (no lease held, or a newer owner's token stored): they must be unloaded."""
        self._pending: list[Pending] = []
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._closing = False
        self._executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="ginrummy-db")

    def start(self) -> None:
        """Start the writer task (inside the running loop)."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="committer")

    async def commit(self, ops: Sequence[WriteOp], table_id: str | None = None) -> None:
        """Wait until ``ops`` are committed; :class:`CommitFailed` if they could not be.

        ``ops`` belong to ``table_id`` and the tables they name: in a cluster each of them
        is fenced by this process's lease (its token checked in the commit's transaction),
        and a table this process does not own makes the write fail."""
        if self._closing:
            raise CommitFailed("the server is shutting down")
        fences: tuple[Fence, ...] = ()
        if not isinstance(self.fencer, NoFencer):
            try:
                fences = tuple(self.fencer.fences(tables_of(ops, table_id)))
            except FencedOut as exc:
                self.stats.failures += 1
                self._fenced(exc)
                raise CommitFailed(str(exc)) from None
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append((ops, fences, future))
        self._wake.set()
        await future

    async def close(self) -> None:
        """Commit what is pending, then stop."""
        self._closing = True
        self._wake.set()
        if self._task is not None:
            await self._task
            self._task = None
        release = getattr(self.repository, "close", None)
        if release is not None:  # the repository's write connection, from the thread using it
            await asyncio.get_running_loop().run_in_executor(self._executor, release)
        self._executor.shutdown(wait=True)

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await self._wake.wait()
            self._wake.clear()
            if self.interval > 0 and not self._closing:
                await asyncio.sleep(self.interval)
            while self._pending:
                batch = self._pending[: self.max_batch]
                del self._pending[: self.max_batch]
                await self._commit_batch(loop, batch)
            if self._closing and not self._pending:
                return

    def _fenced(self, exc: FencedOut) -> None:
        log.warning("%s", exc, extra={"event": "fenced_out"})
        if self.on_fenced is not None:
            self.on_fenced(exc.table_ids)

    async def _commit_batch(self, loop: asyncio.AbstractEventLoop, batch: list[Pending]) -> None:
        ops = [op for item, _, _ in batch for op in item]
        fences = {f: None for _, item_fences, _ in batch for f in item_fences}
        if fences:  # one check for the batch's tables, in the batch's transaction
            ops.insert(0, fence_op(fences))
        started = time.perf_counter()
        try:
            await loop.run_in_executor(self._executor, self.repository.write, ops)
        except FencedOut as exc:  # a stale table: its writes fail in the retry
            log.warning("group commit of %d writes fenced out (%s); retrying one by one",
                        len(batch), exc)
            await self._commit_one_by_one(loop, batch)
            return
        except Exception:
            log.exception("group commit of %d writes failed; retrying one by one", len(batch))
            await self._commit_one_by_one(loop, batch)
            return
        if self.on_batch is not None:
            self.on_batch(len(batch), time.perf_counter() - started)
        self._count(len(batch), len(ops))
        for _, _, future in batch:
            if not future.done():
                future.set_result(None)

    async def _commit_one_by_one(self, loop: asyncio.AbstractEventLoop,
                                 batch: list[Pending]) -> None:
        for ops, fences, future in batch:
            write = [fence_op(fences), *ops] if fences else ops
            try:
                await loop.run_in_executor(self._executor, self.repository.write, write)
            except Exception as exc:
                self.stats.failures += 1
                if isinstance(exc, FencedOut):
                    self._fenced(exc)
                    if not future.done():
                        future.set_exception(CommitFailed(str(exc)))
                    continue
                if not future.done():
                    future.set_exception(CommitFailed(f"the database refused the write: "
                                                      f"{type(exc).__name__}"))
                continue
            self._count(1, len(ops))
            if not future.done():
                future.set_result(None)

    def _count(self, writes: int, ops: int) -> None:
        stats = self.stats
        stats.batches += 1
        stats.writes += writes
        stats.ops += ops
        stats.largest_batch = max(stats.largest_batch, writes)
        if len(stats.batch_sizes) < 100_000:
            stats.batch_sizes.append(writes)
