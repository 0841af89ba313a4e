"""A table's timers: the one timer of what comes next, one hold per absent seat, and the
tasks they start (all cancelled when the table closes).

A timer's action gets the argument it was set with (the table version for the next-step timer,
the seat number for a hold) and runs as a task of its own; it must take the table's lock and
check that the table has not moved on. An action that fails is logged, never raised into the
event loop.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

log = logging.getLogger("ginrummy.server.table")

TimerAction = Callable[[int], Coroutine[Any, Any, None]]
"""What a timer runs: a coroutine function of one number (a version or a seat)."""


class TableTimers:
    """The timers of one table (``name`` is its id, for the log)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.closed = False
        self._next: asyncio.TimerHandle | None = None
        self._holds: dict[int, asyncio.TimerHandle] = {}
        self._idle: asyncio.TimerHandle | None = None
        self.idle_kind: str | None = None
        """What the idle timer is set for (``"abandon"``, ``"unload"``), or ``None``."""
        self._tasks: set[asyncio.Task[None]] = set()

    def arm(self, delay: float, action: TimerAction, version: int) -> None:
        """Run ``action(version)`` in ``delay`` seconds, instead of the timer set before."""
        self.cancel()
        loop = asyncio.get_running_loop()
        self._next = loop.call_later(max(0.0, delay), self._spawn, action, version)

    def cancel(self) -> None:
        """Cancel the next-step timer."""
        if self._next is not None:
            self._next.cancel()
            self._next = None

    def hold(self, seat: int, delay: float, action: TimerAction) -> None:
        """Run ``action(seat)`` in ``delay`` seconds (replacing that seat's hold, if any)."""
        self.release(seat)
        loop = asyncio.get_running_loop()
        self._holds[seat] = loop.call_later(delay, self._spawn, action, seat)

    def release(self, seat: int) -> None:
        """Cancel the hold of ``seat``, if any."""
        handle = self._holds.pop(seat, None)
        if handle is not None:
            handle.cancel()

    def fired(self, seat: int) -> None:
        """Forget the hold of ``seat`` (its action is running)."""
        self._holds.pop(seat, None)

    def idle(self, kind: str, delay: float, action: TimerAction) -> None:
        """Run ``action(0)`` in ``delay`` seconds unless the idle timer is already set for
        ``kind`` (a table nobody attends: it is abandoned, or unloaded)."""
        if self.idle_kind == kind:
            return
        self.cancel_idle()
        loop = asyncio.get_running_loop()
        self.idle_kind = kind
        self._idle = loop.call_later(max(0.0, delay), self._spawn, action, 0)

    def cancel_idle(self) -> None:
        """Cancel the idle timer (someone is back)."""
        if self._idle is not None:
            self._idle.cancel()
        self._idle = None
        self.idle_kind = None

    def close(self) -> None:
        """Cancel every timer and running task (server shutdown)."""
        self.closed = True
        self.cancel()
        self.cancel_idle()
        for handle in self._holds.values():
            handle.cancel()
        self._holds.clear()
        for task in list(self._tasks):
            task.cancel()

    def _spawn(self, action: TimerAction, arg: int) -> None:
        if self.closed:
            return
        task = asyncio.get_running_loop().create_task(self._guarded(action, arg))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _guarded(self, action: TimerAction, arg: int) -> None:
        try:
            await action(arg)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("table %s: timer failed", self.name)
