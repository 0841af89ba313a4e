"""The next-step timer of a table: a timer put aside and armed again for the same key is
kept (with its new argument), any other is cancelled (ginrummy.server.play.timers)."""

from __future__ import annotations

import asyncio

from ginrummy.server.play.timers import TableTimers


def run(body: object) -> None:
    asyncio.run(body)  # type: ignore[arg-type]


def test_a_timer_armed_again_for_its_key_is_kept_and_runs_once_with_the_new_argument() -> None:
    calls: list[tuple[str, int]] = []

    async def clock(arg: int) -> None:
        calls.append(("clock", arg))

    async def body() -> None:
        timers = TableTimers("t")
        timers.arm(0.05, clock, 7, key=123.0)
        first = timers._next
        with timers.aside():
            timers.arm(0.05, clock, 8, key=123.0)
        assert timers._next is first  # the same timer, not a new one
        await asyncio.sleep(0.15)
        assert calls == [("clock", 8)]

    run(body())


def test_a_timer_put_aside_and_not_taken_back_is_cancelled() -> None:
    calls: list[tuple[str, int]] = []

    async def clock(arg: int) -> None:
        calls.append(("clock", arg))

    async def other(arg: int) -> None:
        calls.append(("other", arg))

    async def body() -> None:
        timers = TableTimers("t")
        timers.arm(0.03, clock, 1, key=5.0)
        with timers.aside():
            timers.arm(0.03, clock, 2, key=6.0)  # another deadline: a new timer
        timers.arm(0.03, clock, 3, key=7.0)
        with timers.aside():
            timers.arm(0.03, other, 4, key=7.0)  # another action: a new timer
        timers.arm(0.03, clock, 5)
        with timers.aside():  # no key: cancelled at once
            assert timers._aside is None
        with timers.aside():  # nothing armed again
            pass
        await asyncio.sleep(0.1)
        assert calls == []
        timers.arm(0.01, other, 6, key=8.0)
        with timers.aside():
            timers.arm(0.01, other, 9, key=8.0)
        timers.close()
        await asyncio.sleep(0.05)
        assert calls == []

    run(body())
