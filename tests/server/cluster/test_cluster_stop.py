"""A cluster member's background loops stop when they are told to, even when the thing they
wait for arrives in the same moment as the stop.

On Python 3.11, ``asyncio.wait_for`` returns the inner result instead of raising when a
cancellation and the inner future's completion meet in one turn of the loop: the cancellation
is lost and a ``while True`` loop goes on, so ``stop()`` waits on it for ever (a test of the
bridge hung 30 s on this once). The server waits with ``asyncio.timeout`` instead, which
counts cancellations; these tests make the two events meet on purpose.
"""

from __future__ import annotations

import ast
import asyncio
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from ginrummy.server.cluster import Lease, LeaseKeeper, LeaseStore
from ginrummy.server.cluster.node import ClusterNode
from ginrummy.server.core.settings import Settings
from ginrummy.storage import open_engine

SRC = Path(__file__).resolve().parents[3] / "src" / "ginrummy"


async def stops_within(stop: Coroutine[Any, Any, None], seconds: float) -> bool:
    """Whether ``stop`` returns within ``seconds``. It runs as a task of its own and is not
    cancelled by the wait: a stop that swallows a cancellation would otherwise hide a hang."""
    task = asyncio.get_running_loop().create_task(stop)
    done, _ = await asyncio.wait({task}, timeout=seconds)
    if not done:
        task.cancel()
    return bool(done)


def test_the_publish_loop_stops_when_a_change_comes_with_the_stop(tmp_path: Path) -> None:
    async def scenario() -> None:
        engine = open_engine(f"sqlite:///{tmp_path / 'stop.db'}")
        node = ClusterNode(Settings(redis="redis://127.0.0.1:1/0", lobby_publish_seconds=30),
                           engine)
        published: list[int] = []

        async def publish() -> None:  # no Redis: the loop's own logic is what is tested
            published.append(1)

        node.publish = publish  # type: ignore[method-assign]
        task = asyncio.get_running_loop().create_task(node._publish_loop())
        node._loops = [task]
        for _ in range(5):
            await asyncio.sleep(0)  # the loop is waiting for a change
        node._changed.set()  # a change and the stop in the same turn of the event loop
        assert await stops_within(node.stop_background(), 5)
        assert task.cancelled()
        engine.dispose()

    asyncio.run(scenario())


class _HeldStore(LeaseStore):
    """A lease store whose renewal answers when the test says."""

    def __init__(self) -> None:
        self.answer: asyncio.Future[list[Lease | None]] | None = None
        self.asked = asyncio.Event()

    async def renew_many(self, leases: Any) -> list[Lease | None]:
        self.answer = asyncio.get_running_loop().create_future()
        self.asked.set()
        return await self.answer


def test_the_lease_keeper_stops_when_a_renewal_answers_with_the_stop() -> None:
    async def scenario() -> None:
        store = _HeldStore()
        keeper = LeaseKeeper(store, lambda lease: None, ttl_ms=30)
        lease = Lease("t1", "me", 1, 30, time.monotonic() + 60)
        keeper.leases["t1"] = lease
        keeper.start()
        async with asyncio.timeout(5):
            await store.asked.wait()
        assert store.answer is not None
        store.answer.set_result([lease])  # the renewal answers and the stop comes at once
        assert await stops_within(keeper.stop(), 5)

    asyncio.run(scenario())


def test_no_server_module_waits_with_wait_for() -> None:
    """``asyncio.wait_for`` can lose a cancellation on Python 3.11 (above): the package waits
    with ``asyncio.timeout``."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if (isinstance(node, ast.Attribute) and node.attr == "wait_for"
                    and isinstance(node.value, ast.Name) and node.value.id == "asyncio"):
                found.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert found == []
