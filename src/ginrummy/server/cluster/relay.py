"""Frames between processes over Redis pub/sub (docs/cluster.md): a process that holds a
client's WebSocket but not its table sends the client's messages to the table's owner on the
table's inbox channel, and the owner sends the frames for that table's clients on the
table's outbox channel, each addressed to one connection or to all. The account channel,
one for the whole cluster, carries the account push sockets' news (``/ws/account``: a
message for an account's sockets wherever they are, each process's presence of its accounts,
the invitations made and gone; docs/friends.md, "Across processes").

Pub/sub, not streams: a frame matters only to the processes connected at that moment, Redis
keeps nothing on disk here anyway, and a subscription costs no memory or trimming. What it
does not do, deliver to a subscriber that was away, the protocol does: every envelope carries
its sender's sequence number, a subscriber sees a gap (:attr:`Envelope.gap`) and asks for a
fresh ``state``, and a client resends an action that was not acknowledged.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from typing import Any

import orjson
from redis.asyncio import Redis
from redis.asyncio.client import PubSub

from ginrummy.server.cluster.lease import PREFIX, table_key

INBOX = "in"
OUTBOX = "out"

TEXT = "text"
"""Inbox: a client's message; outbox: a frame for the client."""
OPEN = "open"
"""Inbox: a client connected at an edge (the frame: its address, account, origin, JSON)."""
CLOSED = "closed"
"""Inbox: the client's socket closed."""
RESYNC = "resync"
"""Inbox: the edge missed frames; the owner answers with a fresh ``state``."""
CLOSE = "close"
"""Outbox: close the client's socket (the frame: ``{"code": ..., "reason": ...}``)."""
ACCOUNTS = "acct"
"""The direction of the account channel (every process listens; ``table_id`` is empty)."""
PUSH = "push"
"""Accounts: a message for an account's push sockets (the frame: ``{"a": id, "m": message}``)."""
PRESENCE = "presence"
"""Accounts: the sender's presence of its accounts, all of them (replaces the last one)."""
INVITED = "invited"
"""Accounts: an invitation was made (the frame: its fields)."""
DROPPED = "dropped"
"""Accounts: invitations are gone (answered, or between accounts no longer friends)."""
FRIENDS = "friends"
"""Accounts: these accounts' friend lists changed (the frame: ``{"ids": [...]}``)."""
KINDS = {INBOX: frozenset({TEXT, OPEN, CLOSED, RESYNC}), OUTBOX: frozenset({TEXT, CLOSE}),
         ACCOUNTS: frozenset({PUSH, PRESENCE, INVITED, DROPPED, FRIENDS})}
"""The envelope kinds of each direction (docs/cluster.md, "The relay, wired")."""


class RelayError(ValueError):
    """A relayed message that is not an envelope; the message says what is wrong."""


@dataclass(frozen=True)
class Envelope:
    """One relayed frame."""

    table_id: str
    direction: str
    """``in`` (a client's message, to the owner) or ``out`` (a frame, to the clients)."""
    sender: str
    """The sending process's owner id."""
    token: int
    """Outbox: the owner's lease token (a larger one means a new owner); inbox: 0."""
    seq: int
    """The sender's number for this table and direction, from 1, without gaps."""
    connection: str | None
    """Inbox: the client's connection; outbox: the one it is for (``None``: every one)."""
    frame: str
    gap: bool = False
    """Set by a subscription: envelopes of this sender were missed just before this one."""
    kind: str = TEXT
    """What the envelope is (:data:`KINDS`); a plain frame unless said otherwise."""

    def encode(self) -> bytes:
        """The message published (JSON)."""
        return orjson.dumps({"t": self.table_id, "d": self.direction, "s": self.sender,
                             "k": self.token, "n": self.seq, "c": self.connection,
                             "f": self.frame, "y": self.kind})

    @classmethod
    def decode(cls, data: bytes | str) -> Envelope:
        """An envelope from a published message (:class:`RelayError` if it is not one)."""
        try:
            raw: Any = orjson.loads(data)
            envelope = cls(raw["t"], raw["d"], raw["s"], raw["k"], raw["n"], raw["c"],
                           raw["f"], kind=raw.get("y", TEXT))
        except (orjson.JSONDecodeError, KeyError, TypeError) as exc:
            raise RelayError(f"not a relay envelope ({exc}): {str(data)[:80]!r}") from None
        if envelope.direction not in KINDS or not isinstance(envelope.seq, int) \
                or not isinstance(envelope.token, int) or not isinstance(envelope.frame, str) \
                or envelope.kind not in KINDS[envelope.direction]:
            raise RelayError(f"bad relay envelope fields: {str(data)[:80]!r}")
        return envelope


class Relay:
    """Publishes a process's envelopes, numbered per table and direction.

    Redis delivers one connection's messages in the order it received them, but a client's
    pool may publish concurrent calls on different connections. So every envelope is
    numbered and queued at once, in the caller's order, and one flushing task publishes the
    queue: all that waits in one pipeline (one write and one read for the whole batch, the
    per-command costs of the client paid once), the next batch only after Redis answered
    the last. Envelopes arrive in their numbers' order whichever tasks send them, and the
    busier the process, the larger the batches.
    """

    def __init__(self, redis: Redis, process: str, prefix: str = PREFIX) -> None:
        self.redis = redis
        self.process = process
        self.prefix = prefix
        self._seq: dict[tuple[str, str], int] = {}
        self._queue: list[tuple[str, bytes, asyncio.Future[int]]] = []
        self._flusher: asyncio.Task[None] | None = None
        self.batches = 0
        """Pipelines (or single publishes) sent; with :attr:`published`, the batching."""
        self.published = 0

    def channel(self, table_id: str, direction: str) -> str:
        """A table's inbox or outbox channel, or the account channel (``ACCOUNTS``)."""
        if direction == ACCOUNTS:
            return f"{self.prefix}:accounts"
        if direction not in (INBOX, OUTBOX):
            raise ValueError(f"relay direction must be {INBOX!r} or {OUTBOX!r}, not "
                             f"{direction!r}")
        return table_key(table_id, direction, self.prefix)

    async def to_owner(self, table_id: str, connection: str, frame: str,
                       kind: str = TEXT) -> int:
        """Send a client's message (or another inbox ``kind``) to the table's owner; how many
        processes got it (0: no owner listens, so find or become the owner)."""
        return await self._publish(table_id, INBOX, 0, connection, frame, kind)

    async def to_clients(self, table_id: str, token: int, frame: str,
                         connection: str | None = None, kind: str = TEXT) -> int:
        """Send a frame of the table (owner only) to one connection, or to every one; how many
        processes got it."""
        return await self._publish(table_id, OUTBOX, token, connection, frame, kind)

    async def to_accounts(self, kind: str, frame: str) -> int:
        """Send account news (a kind of ``KINDS[ACCOUNTS]``) to every process; how many
        processes got it (this one included, when it listens)."""
        return await self._publish("", ACCOUNTS, 0, None, frame, kind)

    async def _publish(self, table_id: str, direction: str, token: int,
                       connection: str | None, frame: str, kind: str = TEXT) -> int:
        if kind not in KINDS[direction]:
            raise ValueError(f"no {kind!r} envelopes go {direction!r}: the kinds are "
                             f"{sorted(KINDS[direction])}")
        key = (table_id, direction)
        channel = self.channel(table_id, direction)
        seq = self._seq[key] = self._seq.get(key, 0) + 1
        envelope = Envelope(table_id, direction, self.process, token, seq, connection,
                            frame, kind=kind)
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._queue.append((channel, envelope.encode(), future))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.get_running_loop().create_task(self._flush(),
                                                                   name="relay-publish")
        return await future

    async def _flush(self) -> None:
        """Publish the queue, batch after batch, until it is empty."""
        batch: list[tuple[str, bytes, asyncio.Future[int]]] = []
        try:
            while self._queue:
                batch, self._queue = self._queue, []
                try:
                    if len(batch) == 1:
                        results: list[Any] = [await self.redis.publish(batch[0][0],
                                                                       batch[0][1])]
                    else:
                        async with self.redis.pipeline(transaction=False) as pipe:
                            for channel, data, _ in batch:
                                pipe.publish(channel, data)
                            results = await pipe.execute()
                except Exception as exc:
                    for _, _, future in batch:
                        if not future.done():
                            future.set_exception(exc)
                    continue
                self.batches += 1
                self.published += len(batch)
                for (_, _, future), received in zip(batch, results, strict=True):
                    if not future.done():
                        future.set_result(int(received))
                batch = []
        except BaseException:  # cancelled (the loop stops): nobody waits forever
            for _, _, future in [*batch, *self._queue]:
                future.cancel()
            self._queue = []
            raise

    def forget(self, table_id: str) -> None:
        """Drop a table's numbering (it was unloaded here; a subscriber sees the next
        envelope from this process as a fresh start only with a new token)."""
        for direction in (INBOX, OUTBOX):
            self._seq.pop((table_id, direction), None)

    def subscribe(self) -> Subscription:
        """A new subscription (its own Redis connection), listening to nothing yet."""
        return Subscription(self)


class Subscription:
    """The inboxes and outboxes a process listens to, and the envelopes that arrive, in each
    sender's order, marked where some were missed."""

    def __init__(self, relay: Relay) -> None:
        self.relay = relay
        self._pubsub: PubSub = relay.redis.pubsub(ignore_subscribe_messages=True)
        self._last: dict[tuple[str, str, str, int], int] = {}
        self.channels: set[str] = set()

    async def listen(self, table_id: str, direction: str) -> None:
        """Receive a table's inbox (its owner) or outbox (a process with its clients)."""
        channel = self.relay.channel(table_id, direction)
        await self._pubsub.subscribe(channel)
        self.channels.add(channel)

    async def leave(self, table_id: str, direction: str) -> None:
        """Stop receiving a table's inbox or outbox."""
        channel = self.relay.channel(table_id, direction)
        await self._pubsub.unsubscribe(channel)
        self.channels.discard(channel)
        for key in [k for k in self._last if k[0] == table_id and k[1] == direction]:
            del self._last[key]

    async def get(self, timeout: float = 1.0) -> Envelope | None:
        """The next envelope, or ``None`` when none came within ``timeout`` seconds."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            left = deadline - loop.time()
            if left <= 0:
                return None
            if not self.channels:
                await asyncio.sleep(left)
                return None
            message = await self._pubsub.get_message(ignore_subscribe_messages=True,
                                                     timeout=left)
            if message is not None and message.get("type") == "message":
                return self._ordered(Envelope.decode(message["data"]))

    async def __aiter__(self) -> AsyncIterator[Envelope]:
        while True:
            envelope = await self.get(timeout=3600.0)
            if envelope is not None:
                yield envelope

    def _ordered(self, envelope: Envelope) -> Envelope:
        key = (envelope.table_id, envelope.direction, envelope.sender, envelope.token)
        last = self._last.get(key)
        self._last[key] = envelope.seq
        if last is not None and envelope.seq != last + 1:
            return replace(envelope, gap=True)
        return envelope

    async def close(self) -> None:
        """Unsubscribe from everything and give the connection back."""
        with contextlib.suppress(Exception):
            await self._pubsub.unsubscribe()
        await self._pubsub.aclose()  # type: ignore[no-untyped-call, unused-ignore]
        self.channels.clear()
