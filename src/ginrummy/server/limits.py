"""Sliding-window rate limits (per connection)."""

from __future__ import annotations

import time
from collections import deque


class RateLimit:
    """At most ``limit`` events in any ``window`` seconds."""

    def __init__(self, limit: int, window: float) -> None:
        self.limit = limit
        self.window = window
        self._times: deque[float] = deque()

    def allow(self, now: float | None = None) -> bool:
        """Record an event; False when it is one too many (it is then not counted)."""
        moment = time.monotonic() if now is None else now
        times = self._times
        while times and times[0] <= moment - self.window:
            times.popleft()
        if len(times) >= self.limit:
            return False
        times.append(moment)
        return True
