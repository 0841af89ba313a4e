"""The account push sockets across processes (``/ws/account``; docs/friends.md, "Across
processes"): the friends hub's news goes on the relay's account channel, and what the other
processes send there comes to this process's hub.

One channel for the whole cluster, every process listening: a push message (an invitation's
answer, ``match_ready``, a tournament's change) is delivered by each
process to the account's sockets it holds; a presence report replaces the sender's last one;
an invitation made or gone is kept or dropped everywhere, so that it can be answered at any
process; a change of friend lists makes each process's sockets of those accounts read theirs.
A process ignores its own envelopes (it delivered them already).

While Redis is away nothing is lost for good: what this process could not send waits in its
outbox, in order, and goes as soon as Redis answers (a presence report replaces the one
waiting); and when this process's subscription comes back after a break, the news it may
have missed meanwhile is read again from the database for every push socket here (the
hub's :meth:`~ginrummy.server.players.friends.FriendsHub.regreet`: the undecided tournament
matches as ``match_ready``, the friends lists, the chat filters of blocks).

A block made at another process comes as its ``friends`` envelope: the chat filters of both
accounts held here are read again from the database (:meth:`~ginrummy.server.play.chat.
ChatBlocks.reload`), so the blocked account's lines stop reaching the blocker's connections
at the tables this process owns.
"""

from __future__ import annotations

import asyncio
import contextlib
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
from ginrummy.server.http.bridge import _stop_listening, _Tasks
from ginrummy.server.http.friends_api import HUB_KEY
from ginrummy.server.play.chat import ChatBlocks
from ginrummy.server.players.friends import FriendsHub

log = logging.getLogger("ginrummy.server.account_relay")

KEY = "account_relay"
"""The server's ``extra`` key of this process's :class:`AccountRelay`."""
RETRY_SECONDS = 1.0
"""How often the outbox is tried again while Redis does not answer."""
OUTBOX_LIMIT = 10_000
"""The most envelopes kept waiting for Redis (the oldest dropped beyond, logged)."""


class AccountRelay:
    """Shares one process's friends hub with the other processes over the relay."""

    def __init__(self, relay: Relay, hub: FriendsHub, blocks: ChatBlocks | None = None
                 ) -> None:
        self.relay = relay
        self.hub = hub
        self.blocks = blocks
        """This process's chat filters of blocks, read again when friend lists change at
        another process (a block made there)."""
        self._subscription = relay.subscribe()
        self._tasks = _Tasks()
        self._reader: asyncio.Task[None] | None = None
        self._outbox: list[tuple[str, str]] = []
        """(kind, frame) not sent yet, in order."""
        self._sender: asyncio.Task[None] | None = None
        self.away = False
        """The last publish failed: Redis is away (the outbox waits)."""
        self.failed = 0
        """Publishes that failed and went back to the outbox (since the start)."""
        self.regreets = 0
        """Times the subscription came back after a break (and the sockets were told
        again)."""

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
            await asyncio.sleep(RETRY_SECONDS)
            listening = await self._listen(first=False)
        broken = False
        while True:
            try:
                envelope = await self._subscription.get(timeout=0.5)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Redis away: redis-py subscribes again when it is back
                if not broken:
                    log.warning("the account channel is lost (%s: %s): listening again "
                                "every second", type(exc).__name__, exc)
                broken = True
                await asyncio.sleep(RETRY_SECONDS)
                continue
            if broken:  # back: what was missed meanwhile is read again from the database
                broken = False
                self.regreets += 1
                self._tasks.spawn(self._regreet())
            if envelope is not None:
                try:
                    self._handle(envelope)
                except Exception:
                    log.exception("an account envelope could not be handled")

    async def _regreet(self) -> None:
        await self._reload_blocks(None)  # every filter held here: a block may be missed
        told = await self.hub.regreet()
        log.info("the account channel is back: %d account(s) told again", told)

    def share(self, kind: str, payload: dict[str, Any]) -> None:
        """Publish ``payload`` as a ``kind`` envelope, in the callers' order (queued in the
        outbox and sent by one task, which keeps them while Redis is away)."""
        if kind == PRESENCE:  # a report replaces the one still waiting
            self._outbox = [item for item in self._outbox if item[0] != PRESENCE]
        self._outbox.append((kind, orjson.dumps(payload).decode()))
        if len(self._outbox) > OUTBOX_LIMIT:
            dropped = len(self._outbox) - OUTBOX_LIMIT
            del self._outbox[:dropped]
            log.warning("the account outbox is full: %d oldest envelope(s) dropped", dropped)
        if self._sender is None or self._sender.done():
            self._sender = asyncio.get_running_loop().create_task(self._send(),
                                                                  name="account-outbox")

    async def _send(self) -> None:
        """Send the outbox, batch after batch (the relay numbers each envelope when its
        task starts, and tasks start in creation order); what failed goes back to its head
        and is tried again every second."""
        while self._outbox:
            batch, self._outbox = self._outbox, []
            results = await asyncio.gather(
                *(self.relay.to_accounts(kind, frame) for kind, frame in batch),
                return_exceptions=True)
            failed = [item for item, result in zip(batch, results, strict=True)
                      if isinstance(result, BaseException)]
            if not failed:
                if self.away:
                    self.away = False
                    log.info("Redis answers again: the account outbox is sent")
                continue
            if not self.away:
                self.away = True
                error = next(r for r in results if isinstance(r, BaseException))
                log.warning("the account channel cannot be published to (%s: %s): the "
                            "outbox waits for Redis", type(error).__name__, error)
            if any(kind == PRESENCE for kind, _ in self._outbox):  # a newer report came
                failed = [item for item in failed if item[0] != PRESENCE]
            self.failed += len(failed)
            self._outbox = failed + self._outbox
            await asyncio.sleep(RETRY_SECONDS)

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
            ids = [int(a) for a in data["ids"]]
            self._tasks.spawn(self.hub.changed(*ids, shared=False))
            if self.blocks is not None:  # a block made there hides chat here at once
                self._tasks.spawn(self._reload_blocks(ids))

    async def _reload_blocks(self, account_ids: list[int] | None) -> None:
        if self.blocks is not None:
            await self.blocks.reload(account_ids)

    async def close(self) -> None:
        """Tell the others this process's accounts are gone from here, stop listening."""
        self.hub.share = None
        try:
            async with asyncio.timeout(1.0):
                await self.relay.to_accounts(PRESENCE, orjson.dumps({"p": {}}).decode())
        except Exception as exc:  # they drop the report when it gets old
            log.warning("the last presence report failed: %s: %s", type(exc).__name__, exc)
        reader, self._reader = self._reader, None
        sender, self._sender = self._sender, None
        if sender is not None:
            sender.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await sender
        await _stop_listening(reader, self._tasks, self._subscription)


async def install(server: Any) -> AccountRelay | None:
    """Share the server's friends hub over its cluster node's relay (``None``: no hub)."""
    hub = server.extra.get(HUB_KEY)
    if not isinstance(hub, FriendsHub) or server.cluster is None:
        return None
    found = server.extra[KEY] = AccountRelay(server.cluster.relay, hub, server.lobby.blocks)
    await found.start()
    return found
