"""Sliding-window rate limits, alone or shared by key (a seat, an address).

A connection's flood and chat budgets are shared by every connection of the same seat (and,
for spectators, of the same address): opening more connections does not buy more messages.
The lobby's table quota is a :class:`RateLimit` per creating address.
"""

from __future__ import annotations

import ipaddress
import time
from collections import deque
from collections.abc import Hashable


def address_key(address: str) -> str:
    """Whom a client address stands for in quotas: an IPv4 address itself, an IPv6 address
    its /64 network (one host usually holds a whole /64), anything else as it is."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if ip.version == 6 and ip.ipv4_mapped is None:
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip if ip.version == 4 else ip.ipv4_mapped)


class RateLimit:
    """At most ``limit`` events in any ``window`` seconds."""

    def __init__(self, limit: int, window: float) -> None:
        self.limit = limit
        self.window = window
        self._times: deque[float] = deque()

    def _expire(self, moment: float) -> None:
        times = self._times
        while times and times[0] <= moment - self.window:
            times.popleft()

    def allow(self, now: float | None = None) -> bool:
        """Record an event; False when it is one too many (it is then not counted)."""
        moment = time.monotonic() if now is None else now
        self._expire(moment)
        if len(self._times) >= self.limit:
            return False
        self._times.append(moment)
        return True

    def retry_after(self, now: float | None = None) -> float:
        """Seconds until one more event would be allowed (0 when it would be now)."""
        moment = time.monotonic() if now is None else now
        self._expire(moment)
        if len(self._times) < self.limit:
            return 0.0
        return max(0.0, self._times[0] + self.window - moment)

    def absorb(self, other: RateLimit) -> None:
        """Count ``other``'s events here too (a connection's first messages, once it is known
        whose budget it draws on)."""
        self._times = deque(sorted((*self._times, *other._times)))

    def idle(self, now: float) -> bool:
        """True when no event counts any more (the limit can be forgotten)."""
        self._expire(now)
        return not self._times


class KeyedLimits:
    """One :class:`RateLimit` per key, made on first use; limits with nothing left to count
    are forgotten now and then, so the map stays as small as the recent traffic."""

    def __init__(self, limit: int, window: float) -> None:
        self.limit = limit
        self.window = window
        self._limits: dict[Hashable, RateLimit] = {}
        self._pruned = time.monotonic()

    def __len__(self) -> int:
        return len(self._limits)

    def get(self, key: Hashable) -> RateLimit:
        """The limit of ``key`` (shared by everyone who asks with that key)."""
        found = self._limits.get(key)
        if found is None:
            now = time.monotonic()
            if now - self._pruned >= self.window:
                self._pruned = now
                self._limits = {k: v for k, v in self._limits.items() if not v.idle(now)}
            found = self._limits[key] = RateLimit(self.limit, self.window)
        return found
