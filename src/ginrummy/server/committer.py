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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ginrummy.storage import Repository, WriteOp

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
        self._pending: list[tuple[Sequence[WriteOp], asyncio.Future[None]]] = []
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._closing = False
        self._executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="ginrummy-db")

    def start(self) -> None:
        """Start the writer task (inside the running loop)."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="committer")

    async def commit(self, ops: Sequence[WriteOp]) -> None:
        """Wait until ``ops`` are committed; :class:`CommitFailed` if they could not be."""
        if self._closing:
            raise CommitFailed("the server is shutting down")
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append((ops, future))
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

    async def _commit_batch(self, loop: asyncio.AbstractEventLoop,
                            batch: list[tuple[Sequence[WriteOp], asyncio.Future[None]]]) -> None:
        ops = [op for item, _ in batch for op in item]
        started = time.perf_counter()
        try:
            await loop.run_in_executor(self._executor, self.repository.write, ops)
        except Exception:
            log.exception("group commit of %d writes failed; retrying one by one", len(batch))
            await self._commit_one_by_one(loop, batch)
            return
        if self.on_batch is not None:
            self.on_batch(len(batch), time.perf_counter() - started)
        self._count(len(batch), len(ops))
        for _, future in batch:
            if not future.done():
                future.set_result(None)

    async def _commit_one_by_one(
        self, loop: asyncio.AbstractEventLoop,
        batch: list[tuple[Sequence[WriteOp], asyncio.Future[None]]],
    ) -> None:
        for ops, future in batch:
            try:
                await loop.run_in_executor(self._executor, self.repository.write, ops)
            except Exception as exc:
                self.stats.failures += 1
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
