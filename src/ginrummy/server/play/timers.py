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


class _Armed:
    """The next-step timer: its handle, action, argument and key (:meth:`TableTimers.arm`)."""

    __slots__ = ("action", "arg", "handle", "key")

    def __init__(self, action: TimerAction, arg: int, key: float | None) -> None:
        self.action = action
        self.arg = arg
        self.key = key
        self.handle: asyncio.TimerHandle | None = None

    def cancel(self) -> None:
        if self.handle is not None:
            self.handle.cancel()


class TableTimers:
    """The timers of one table (``name`` is its id, for the log)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.closed = False
        self._next: _Armed | None = None
        self._aside: _Armed | None = None
        """The next-step timer :meth:`set_aside` took off, until :meth:`arm` takes it back or
        :meth:`drop_aside` cancels it."""
        self._holds: dict[int, asyncio.TimerHandle] = {}
        self._idle: asyncio.TimerHandle | None = None
        self.idle_kind: str | None = None
        """What the idle timer is set for (``"abandon"``, ``"unload"``), or ``None``."""
        self._tasks: set[asyncio.Task[None]] = set()
        self._aside_block = _Aside(self)

    def arm(self, delay: float, action: TimerAction, version: int,
            key: float | None = None) -> None:
        """Run ``action(version)`` in ``delay`` seconds, instead of the timer set before.
        ``key``: the moment the timer stands for (a turn clock's deadline); the timer put aside
        (:meth:`set_aside`) for the same action and key is then taken back, to run with
        ``version``, instead of a new one (a player's draw leaves his turn's clock as it was)."""
        self.cancel()
        aside = self._aside
        if aside is not None and key is not None and aside.key == key \
                and aside.action == action:
            self._aside = None
            aside.arg = version
            self._next = aside
            return
        armed = _Armed(action, version, key)
        armed.handle = asyncio.get_running_loop().call_later(max(0.0, delay), self._fire,
                                                             armed)
        self._next = armed

    @property
    def next_step(self) -> tuple[str, int] | None:
        """The armed next-step timer as (its action's name, its argument), for a diagnosis."""
        armed = self._next
        return None if armed is None else (armed.action.__name__, armed.arg)

    def cancel(self) -> None:
        """Cancel the next-step timer."""
        if self._next is not None:
            self._next.cancel()
            self._next = None

    def set_aside(self) -> None:
        """Take off the next-step timer but keep it, if it has a key, for :meth:`arm` to take
        back (cancel it otherwise); :meth:`drop_aside` cancels it if it was not. Put aside it
        may still fire: its action runs, with its argument, and checks as always that the
        table has not moved on."""
        self.drop_aside()
        armed = self._next
        if armed is not None and armed.key is not None:
            self._aside, self._next = armed, None
        else:
            self.cancel()

    def aside(self) -> _Aside:
        """A ``with`` block: :meth:`set_aside` on entry, :meth:`drop_aside` on exit (a table
        writer's step: whatever it arms again for the same key keeps its timer)."""
        return self._aside_block

    def drop_aside(self) -> None:
        """Cancel the timer put aside, unless :meth:`arm` took it back."""
        if self._aside is not None:
            self._aside.cancel()
            self._aside = None

    def _fire(self, armed: _Armed) -> None:
        if self._next is armed:
            self._next = None
        if self._aside is armed:
            self._aside = None
        self._spawn(armed.action, armed.arg)

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
        self.drop_aside()
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


class _Aside:
    """:meth:`TableTimers.aside` (no generator: one per step of a table)."""

    __slots__ = ("timers",)

    def __init__(self, timers: TableTimers) -> None:
        self.timers = timers

    def __enter__(self) -> None:
        self.timers.set_aside()

    def __exit__(self, *_exc: object) -> None:
        self.timers.drop_aside()
