"""Answers that cost much to build and never change once built (a finished match's replay and
record): each built once, in a thread off the event loop, and kept in a cache bounded in
bytes, the least recently asked dropped first.

A finished match's events are final, so its replay (0.6 MB and 110 ms for a 2,330-step match
before this cache, on every request) is the same for every viewer: requests for it while it is
being built wait for that one build, and later ones are served from memory. Each body is kept
as it is and gzip-compressed (compressed once, in the same thread), so serving it costs the
event loop no more than sending its bytes.
"""

from __future__ import annotations

import asyncio
import gzip
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar

V = TypeVar("V")


@dataclass(frozen=True)
class Built:
    """One built answer: its bytes, plain and gzip-compressed."""

    body: bytes
    gzipped: bytes

    @property
    def size(self) -> int:
        """The bytes it holds in the cache."""
        return len(self.body) + len(self.gzipped)


def _build(make: Callable[[], bytes]) -> Built:
    body = make()
    return Built(body, gzip.compress(body, compresslevel=6))


class BuiltCache:
    """Built answers by key, at most ``max_bytes`` of them (an answer larger than that is
    served but not kept)."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.bytes = 0
        self.builds = 0
        """Answers built so far (a hit builds nothing)."""
        self._done: OrderedDict[Hashable, Built] = OrderedDict()
        self._building: dict[Hashable, asyncio.Future[Built]] = {}

    def __len__(self) -> int:
        return len(self._done)

    async def get(self, key: Hashable, make: Callable[[], bytes]) -> Built:
        """The answer of ``key``: from the cache, from the build already running for it, or
        built now by ``make`` in the default thread pool. ``make``'s exception reaches every
        request waiting for that build, and nothing is kept."""
        found = self._done.get(key)
        if found is not None:
            self._done.move_to_end(key)
            return found
        building = self._building.get(key)
        if building is None:
            loop = asyncio.get_running_loop()
            building = loop.run_in_executor(None, _build, make)
            self._building[key] = building
            self.builds += 1
            building.add_done_callback(lambda done: self._settle(key, done))
        return await asyncio.shield(building)

    def _settle(self, key: Hashable, done: asyncio.Future[Built]) -> None:
        del self._building[key]
        if done.cancelled() or done.exception() is not None:
            return
        built = done.result()
        if built.size > self.max_bytes:
            return
        self._done[key] = built
        self.bytes += built.size
        while self.bytes > self.max_bytes:
            _key, dropped = self._done.popitem(last=False)
            self.bytes -= dropped.size


class RecentRows(Generic[V]):
    """Rows read lately, each served for ``seconds`` after it was read, at most ``entries``
    of them (the oldest read dropped first): a request for a row just read needs no thread
    and no query. For rows that hardly change (a finished match's): a change shows within
    ``seconds``."""

    def __init__(self, entries: int, seconds: float) -> None:
        self.entries = entries
        self.seconds = seconds
        self._rows: OrderedDict[Hashable, tuple[float, V]] = OrderedDict()

    def get(self, key: Hashable) -> V | None:
        """The row of ``key`` if it was read less than ``seconds`` ago."""
        found = self._rows.get(key)
        if found is None:
            return None
        if time.monotonic() - found[0] >= self.seconds:
            del self._rows[key]
            return None
        return found[1]

    def put(self, key: Hashable, row: V) -> None:
        """Keep ``row``, read now."""
        self._rows.pop(key, None)
        self._rows[key] = (time.monotonic(), row)
        while len(self._rows) > self.entries:
            self._rows.popitem(last=False)
