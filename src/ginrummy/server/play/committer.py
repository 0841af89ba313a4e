"""Group commit: one database thread batches the pending writes of every table into one
transaction, then wakes each waiter. An action is acknowledged only after its batch commits.

While one transaction runs, new writes queue up; the next transaction takes them all. With a
database that syncs in ~1-5 ms this turns thousands of actions per second into a few hundred
commits. The thread takes the next batch as soon as a transaction ends, without waiting for
the event loop: the loop only hands writes over (once per loop pass, so the writes made in
one pass share a transaction) and is told each batch's outcome (stats, callbacks and waiters
are all handled on the loop).

Under load, commits are also *spaced* (``spacing_ms``; the server's setting
``commit_spacing_ms``, 10 by default):
while the last transaction carried more than one write, the next starts no sooner than the
spacing after it, so one transaction (one sync of the disk, one wake-up of the loop) carries
the writes of those milliseconds. At 1,000 live tables 10 ms made about 100 commits a second
of 10 writes instead of 570 of 1.8, and the server's CPU per action fell by a third
(docs/server-load.md). A lone write, or one table's writes one after another, never wait.

A batch whose transaction fails is written again at once as one transaction with a savepoint
for each write (:meth:`ginrummy.storage.Repository.write_each`): the write that failed is
rolled back alone and its waiter told (:class:`CommitFailed`, its cause the error), every
other write commits. One bad write never fails another table's.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from sqlalchemy.exc import SQLAlchemyError

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
    """The database refused a write; nothing of it was committed. Its ``__cause__`` is the
    write's own error when there was one (an overdraft of the chip ledger, a seat refused),
    so a caller may answer it for what it is."""


Pending = tuple[Sequence[WriteOp], tuple[Fence, ...], "asyncio.Future[None]"]
"""A write waiting for its batch: its operations, its tables' fences and its waiter."""

_STOP = None
"""Put on the thread's queue by :meth:`GroupCommitter.close`: commit what came before, then
stop."""


@dataclass
class _Outcome:
    """What the database thread did with one batch, for the event loop to settle."""

    batch: list[Pending]
    ops: int = 0
    """Operations written in the batch's one transaction (0: it failed, see ``one_by_one``)."""
    seconds: float = 0.0
    one_by_one: list[tuple[int, BaseException | None]] = field(default_factory=list)
    """After a failed transaction: each write's operation count and error (None: stored in
    the retry's one transaction, where each write had a savepoint of its own)."""


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
    """Runs every write of the server through one database thread."""

    def __init__(self, repository: Repository, interval_ms: float = 0.0,
                 max_batch: int = 5000, spacing_ms: float = 0.0) -> None:
        self.repository = repository
        self.interval = interval_ms / 1000
        self.spacing = spacing_ms / 1000
        """While the server is busy (its last transaction carried more than one write), the
        least time between the starts of two transactions: the writes of that time share the
        next one (fewer and larger commits). A write after a quiet spell, or the writes of
        one table one after another, commit at once."""
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
        self._staged: list[Pending] = []
        """Writes of this loop pass, handed to the thread together at its end."""
        self._queue: queue.SimpleQueue[list[Pending] | None] = queue.SimpleQueue()
        self._stopped: asyncio.Future[None] | None = None
        """Set by the database thread when it has stopped (None: not started)."""
        self._closing = False

    def start(self) -> None:
        """Start the database thread (inside the running loop)."""
        if self._stopped is None:
            loop = asyncio.get_running_loop()
            self._stopped = loop.create_future()
            threading.Thread(target=self._work, args=(loop, self._stopped),
                             name="ginrummy-db_0", daemon=True).start()

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
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        if not self._staged:
            loop.call_soon(self._hand_over)
        self._staged.append((ops, fences, future))
        await future

    def _hand_over(self) -> None:
        staged, self._staged = self._staged, []
        self._queue.put(staged)

    async def close(self) -> None:
        """Commit what is pending, then stop."""
        self._closing = True
        if self._staged:
            self._hand_over()
        if self._stopped is not None:
            self._queue.put(_STOP)
            await self._stopped
        else:  # never started: release the repository's write connection all the same
            self._release()

    # ------------------------------------------------------------- the database thread
    def _work(self, loop: asyncio.AbstractEventLoop, stopped: asyncio.Future[None]) -> None:
        try:
            self._commit_until_stopped(loop)
        except RuntimeError:  # the loop was closed under us: nobody is waiting any more
            pass
        except Exception:  # a bug here: say so, and still let close() return
            log.exception("the database thread stopped")
        finally:
            self._release()
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(_finish, stopped)

    def _commit_until_stopped(self, loop: asyncio.AbstractEventLoop) -> None:
        carry: list[Pending] = []
        stop = False
        started = 0.0
        busy = False  # spacing on, and the last transaction carried more than one write
        while not stop:
            if not carry:
                first = self._queue.get()
                if first is _STOP:
                    return
                carry = first
                if self.interval > 0 and not self._closing:
                    time.sleep(self.interval)
            if busy and not self._closing:
                wait = started + self.spacing - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
            batch, carry, stop = self._take(carry)
            if batch:
                busy = self.spacing > 0 and len(batch) > 1
                if busy:
                    started = time.monotonic()
                outcome = self._write(batch)
                loop.call_soon_threadsafe(self._settle, outcome)

    def _take(self, carry: list[Pending]) -> tuple[list[Pending], list[Pending], bool]:
        """The next batch (at most ``max_batch`` writes), what is left over, and whether the
        stop came."""
        batch = carry[: self.max_batch]
        rest = carry[self.max_batch:]
        while not rest and len(batch) < self.max_batch:
            try:
                more = self._queue.get_nowait()
            except queue.Empty:
                break
            if more is _STOP:
                return batch, rest, True
            room = self.max_batch - len(batch)
            batch.extend(more[:room])
            rest = more[room:]
        return batch, rest, False

    def _write(self, batch: list[Pending]) -> _Outcome:
        ops = [op for item, _, _ in batch for op in item]
        fences = {f: None for _, item_fences, _ in batch for f in item_fences}
        if fences:  # one check for the batch's tables, in the batch's transaction
            ops.insert(0, fence_op(fences))
        started = time.perf_counter()
        try:
            self.repository.write(ops)
        except Exception as exc:  # a stale table, a refused write: found and isolated below
            log.warning("group commit of %d writes failed (%s); each write again in a "
                        "savepoint of one transaction", len(batch), brief(exc),
                        extra={"event": "commit_isolated"})
        else:
            return _Outcome(batch, len(ops), time.perf_counter() - started)
        outcome = _Outcome(batch)
        writes = [[fence_op(item_fences), *item_ops] if item_fences else list(item_ops)
                  for item_ops, item_fences, _ in batch]
        try:
            errors = self.repository.write_each(writes)
        except Exception as exc:  # the transaction itself failed: nothing was stored
            log.error("the isolated retry of %d writes failed as a whole (%s)", len(batch),
                      brief(exc), exc_info=exc)
            errors = [exc] * len(batch)
        for (item_ops, _, _), error in zip(batch, errors, strict=True):
            if error is not None and not isinstance(error, FencedOut):
                _log_refused(tables_of(item_ops), error)
            outcome.one_by_one.append((len(item_ops), error))
        return outcome

    def _release(self) -> None:
        release = getattr(self.repository, "close", None)
        if release is not None:  # the repository's write connection, from the thread using it
            try:
                release()
            except Exception:
                log.exception("closing the repository's write connection failed")

    # -------------------------------------------------------------------- the event loop
    def _settle(self, outcome: _Outcome) -> None:
        batch = outcome.batch
        if not outcome.one_by_one:
            if self.on_batch is not None:
                self.on_batch(len(batch), outcome.seconds)
            self._count(len(batch), outcome.ops)
            for _, _, future in batch:
                if not future.done():
                    future.set_result(None)
            return
        for (_, _, future), (ops, error) in zip(batch, outcome.one_by_one, strict=True):
            if error is None:
                self._count(1, ops)
                if not future.done():
                    future.set_result(None)
                continue
            self.stats.failures += 1
            if isinstance(error, FencedOut):
                self._fenced(error)
                failure = CommitFailed(str(error))
            else:
                failure = CommitFailed(f"the database refused the write: "
                                       f"{type(error).__name__}")
                failure.__cause__ = error
            if not future.done():
                future.set_exception(failure)

    def _fenced(self, exc: FencedOut) -> None:
        log.warning("%s", exc, extra={"event": "fenced_out"})
        if self.on_fenced is not None:
            self.on_fenced(exc.table_ids)

    def _count(self, writes: int, ops: int) -> None:
        stats = self.stats
        stats.batches += 1
        stats.writes += writes
        stats.ops += ops
        stats.largest_batch = max(stats.largest_batch, writes)
        if len(stats.batch_sizes) < 100_000:
            stats.batch_sizes.append(writes)


EXPECTED_REFUSALS = (ValueError, LookupError)
"""Refusals of a write's own checks (an overdraft of the chip ledger, a seat refused): logged
in one line; anything else is a fault, logged with its traceback (statement parameters are
never in it: ``hide_parameters``, :func:`ginrummy.storage.open_engine`)."""


def brief(exc: BaseException) -> str:
    """An exception in one short line: its class and the first line of its message."""
    first = str(exc).strip().split("\n", 1)[0][:200]
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def is_refusal(error: BaseException | None) -> bool:
    """True when ``error`` is a write's own check refusing it (:data:`EXPECTED_REFUSALS`),
    not a fault (a SQLAlchemy error is one, though ``NoSuchColumnError`` is a ``KeyError``)."""
    return isinstance(error, EXPECTED_REFUSALS) and not isinstance(error, SQLAlchemyError)


def _log_refused(tables: list[str], error: BaseException) -> None:
    where = ", ".join(tables[:5]) or "no table"
    if is_refusal(error):
        log.warning("a write of %s was refused (%s)", where, brief(error),
                    extra={"event": "write_refused"})
    else:
        log.error("a write of %s failed (%s)", where, brief(error), exc_info=error,
                  extra={"event": "write_failed"})


def _finish(stopped: asyncio.Future[None]) -> None:
    if not stopped.done():
        stopped.set_result(None)
