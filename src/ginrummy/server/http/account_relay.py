"""The account push sockets across processes (``/ws/account``; docs/friends.md, "Across
processes"): the friends hub's news goes on the relay's account channel, and what the other
processes send there comes to this process's hub.

One channel for the whole cluster, every process listening: a push message (an invitation's
answer, ``match_ready``, a tournament's change) is delivered by each
process to the account's sockets it holds; a presence report replaces the sender's last one;
an invitation made or gone is kept or dropped everywhere, so that it can be answered at any
process; a change of friend lists makes each process's sockets of those accounts read theirs.
A process ignores its own envelopes (it delivered them already).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import orjson

from ginrummy.server.cluster.relay import (
    ACCOUNTS,
    DROPPED,
    FRIENDS,
    INVITED,
    PRESENCE,
    PUSH,
    Envelope,
    Relay,
)
from ginrummy.server.http.bridge import _envelopes, _stop_listening, _Tasks
from ginrummy.server.http.friends_api import HUB_KEY
from ginrummy.server.players.friends import FriendsHub

log = logging.getLogger("ginrummy.server.account_relay")

KEY = "account_relay"
"""The server's ``extra`` key of this process's :class:`AccountRelay`."""


class AccountRelay:
    """Shares one process's friends hub with the other processes over the relay."""

    def __init__(self, relay: Relay, hub: FriendsHub) -> None:
        self.relay = relay
        self.hub = hub
        self._subscription = relay.subscribe()
        self._tasks = _Tasks()
        self._reader: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Listen to the account channel, send the hub's news there, run its presence loop
        (this process's presence is reported even while nobody here watches it).

        A Redis that does not answer does not stop the server (its tables wait for Redis
        the same way, docs/cluster.md): the channel is then subscribed in the background,
        tried again every second, and the news of the meantime is not heard."""
        listening = await self._listen(first=True)
        self._reader = asyncio.get_running_loop().create_task(
            self._read(listening), name="account-relay")
        self.hub.share = self.share
        self.hub.start()

    async def _listen(self, first: bool) -> bool:
        """Subscribe to the account channel; False (logged) when Redis refused."""
        try:
            await self._subscription.listen("", ACCOUNTS)
        except Exception as exc:  # redis-py's ConnectionError, a timeout...
            (log.warning if first else log.debug)(
                "the account channel cannot be subscribed (%s: %s): trying again every second",
                type(exc).__name__, exc)
            return False
        return True

    async def _read(self, listening: bool) -> None:
        while not listening:
            await asyncio.sleep(1.0)
            listening = await self._listen(first=False)
        await _envelopes(self._subscription, self._handle)

    def share(self, kind: str, payload: dict[str, Any]) -> None:
        """Publish ``payload`` as a ``kind`` envelope (in the callers' order: the relay
        numbers each envelope when its task starts, and tasks start in creation order)."""
        self._tasks.spawn(self._send(kind, orjson.dumps(payload).decode()))

    async def _send(self, kind: str, frame: str) -> None:
        await self.relay.to_accounts(kind, frame)

    def _handle(self, envelope: Envelope) -> None:
        if envelope.sender == self.relay.process:
            return
        data = orjson.loads(envelope.frame)
        if envelope.kind == PUSH:
            self.hub.deliver(int(data["a"]), data["m"])
        elif envelope.kind == PRESENCE:
            self.hub.heard_presence(envelope.sender, data["p"])
        elif envelope.kind == INVITED:
            self.hub.heard_invitation(data)
        elif envelope.kind == DROPPED:
            self.hub.heard_dropped(str(key) for key in data["ids"])
        elif envelope.kind == FRIENDS:
            self._tasks.spawn(self.hub.changed(*(int(a) for a in data["ids"]), shared=False))

    async def close(self) -> None:
        """Tell the others this process's accounts are gone from here, stop listening."""
        self.hub.share = None
        try:
            async with asyncio.timeout(1.0):
                await self.relay.to_accounts(PRESENCE, orjson.dumps({"p": {}}).decode())
        except Exception as exc:  # they drop the report when it gets old
            log.warning("the last presence report failed: %s: %s", type(exc).__name__, exc)
        reader, self._reader = self._reader, None
        await _stop_listening(reader, self._tasks, self._subscription)


async def install(server: Any) -> AccountRelay | None:
    """Share the server's friends hub over its cluster node's relay (``None``: no hub)."""
    hub = server.extra.get(HUB_KEY)
    if not isinstance(hub, FriendsHub) or server.cluster is None:
        return None
    found = server.extra[KEY] = AccountRelay(server.cluster.relay, hub)
    await found.start()
    return found
