"""A WebSocket connection at a table: its seat, outbound queue, limits and mutes.

Messages to a client go through a bounded queue drained by the connection's own sender task,
so a slow client never holds up a table's writer; one that falls too far behind is closed.
The sender hands each text to :meth:`Connection.deliver` (the socket here; a subclass sends it
elsewhere, e.g. over Redis to the process holding the client's socket: http/bridge.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Callable, Container, Hashable, Mapping
from typing import Any

from starlette.websockets import WebSocket, WebSocketState

from ginrummy.server.core.jsontext import dumps
from ginrummy.server.core.limits import KeyedLimits, RateLimit, address_key
from ginrummy.server.core.protocol import PROTOCOL
from ginrummy.server.core.settings import Settings

log = logging.getLogger("ginrummy.server.connections")

_CLOSE = object()

TRY_AGAIN_LATER = 1013
"""Close code of a connection over the per-address or per-process cap (RFC 6455's "try
again later")."""


class SharedLimits:
    """The flood and chat budgets of every seat and spectator address of the process."""

    def __init__(self, settings: Settings) -> None:
        self.messages = KeyedLimits(settings.messages_per_window,
                                    settings.message_window_seconds)
        self.chats = KeyedLimits(settings.chats_per_window, settings.chat_window_seconds)


class ConnectionCounts:
    """Open WebSocket connections per process and per client address, under their caps."""

    def __init__(self, settings: Settings) -> None:
        self.max_total = settings.max_connections
        self.max_per_address = settings.connections_per_address
        self.total = 0
        self.by_address: dict[str, int] = {}
        self._refusals_logged = KeyedLimits(1, 60.0)

    def admit(self, address: str) -> str | None:
        """Count a new connection from ``address``; the close reason when it is one too
        many (it is then not counted)."""
        address = address_key(address)
        reason = None
        held = self.by_address.get(address, 0)
        if self.total >= self.max_total:
            reason = f"server full: {self.max_total} connections"
        elif held >= self.max_per_address:
            reason = f"too many connections from this address (at most {self.max_per_address})"
        if reason is not None:
            if self._refusals_logged.get(address).allow():  # a line a minute per address
                log.warning("refused WebSocket connections: %s", reason)
            return reason
        self.total += 1
        self.by_address[address] = held + 1
        return None

    def release(self, address: str) -> None:
        """A counted connection from ``address`` closed."""
        address = address_key(address)
        self.total = max(0, self.total - 1)
        held = self.by_address.get(address, 0) - 1
        if held > 0:
            self.by_address[address] = held
        else:
            self.by_address.pop(address, None)


class Connection:
    """One client of a table (a seat, or a spectator when ``seat`` is ``None``).

    ``websocket`` is the client's socket; a subclass that delivers elsewhere passes ``None``
    and overrides :meth:`deliver`, :meth:`deliver_close` and :meth:`hang_up`.
    """

    def __init__(self, websocket: WebSocket | None, settings: Settings) -> None:
        self.websocket = websocket
        self.seat: int | None = None
        self.name = "spectator"
        self.account_id: int | None = None
        """The account behind this connection (its seat's, or the handshake's session
        cookie's), ``None`` for a guest."""
        self.session_hash: str | None = None
        """The hash of the handshake's session token (the cookie), if it had one: a password
        change closes the account's sockets but those of the session that made it."""
        self.address = "unknown"
        """The client's address (bans and mutes extend to it: play/restrictions.py)."""
        self.on_error: Callable[[str], None] | None = None
        """Called with the code of every ``error`` message sent (the error counter)."""
        self.protocol = PROTOCOL
        """The protocol asked for in ``hello`` (1: acknowledgements in a frame of their own)."""
        self.synced: int | None = None
        """The number of the last state this connection got (a broadcast's, or one sent to it
        alone: :class:`~ginrummy.server.play.messages.StateMessages`); protocol 3: the next
        broadcast is a ``delta`` from it while the table keeps it as a base."""
        self.muted: set[int | None] = set()
        self.blocked: Container[int | None] = frozenset()
        """Accounts whose chat lines this connection does not hear (its account's blocks,
        :class:`~ginrummy.server.play.chat.ChatBlocks`: the set shared by its connections)."""
        self._messages = RateLimit(settings.messages_per_window,
                                   settings.message_window_seconds)
        self._chats = RateLimit(settings.chats_per_window, settings.chat_window_seconds)
        self._shared: tuple[SharedLimits, Hashable] | None = None
        self._queue: deque[str | tuple[object, int, str]] = deque()
        self._limit = settings.send_queue_limit
        self._wake: asyncio.Future[None] | None = None
        """Set while the sender task waits for something to send."""
        self._sender: asyncio.Task[None] | None = None
        self.closed = False
        self.close_code: int | None = None

    def share_limits(self, shared: SharedLimits, key: Hashable) -> None:
        """From now on count this connection's messages and chat lines against ``key``'s
        budgets (a seat's, or a spectator address's), shared with its other connections."""
        self._shared = (shared, key)
        self.messages.absorb(self._messages)  # the hello counts too
        self.chats.absorb(self._chats)

    @property
    def messages(self) -> RateLimit:
        """The flood budget this connection draws on."""
        if self._shared is None:
            return self._messages
        return self._shared[0].messages.get(self._shared[1])

    @property
    def chats(self) -> RateLimit:
        """The chat budget this connection draws on."""
        if self._shared is None:
            return self._chats
        return self._shared[0].chats.get(self._shared[1])

    def start(self) -> None:
        """Start the sender task."""
        self._sender = asyncio.get_running_loop().create_task(self._send_loop())

    def send(self, message: Mapping[str, Any] | str) -> None:
        """Queue a message (one of :mod:`ginrummy.server.play.messages`, or its JSON text); a
        connection too far behind is closed."""
        if self.closed:
            return
        if len(self._queue) >= self._limit:
            log.warning("closing a connection too slow to read its messages")
            self.close(1008, "too slow: messages not read")
            return
        if self.on_error is not None and not isinstance(message, str) \
                and message.get("type") == "error":
            self.on_error(str(message.get("code")))
        self._queue.append(message if isinstance(message, str) else dumps(message))
        self._wake_sender()

    def close(self, code: int, reason: str) -> None:
        """Send what is queued, then close with ``code`` and ``reason``."""
        if self.closed:
            return
        self.closed = True
        self.close_code = code
        if len(self._queue) >= self._limit:  # no room for the close: drop the backlog
            self._queue.clear()
        self._queue.append((_CLOSE, code, reason))
        self._wake_sender()

    def _wake_sender(self) -> None:
        wake = self._wake
        if wake is not None:
            self._wake = None
            if not wake.done():
                wake.set_result(None)

    async def flush(self, timeout: float) -> None:
        """Wait (at most ``timeout`` seconds) until a pending close has been sent."""
        sender = self._sender
        if sender is None or self.close_code is None:
            return
        with contextlib.suppress(TimeoutError, asyncio.CancelledError, Exception):
            async with asyncio.timeout(timeout):
                await asyncio.shield(sender)

    async def finish(self) -> None:
        """Stop the sender task (the socket is gone)."""
        self.closed = True
        if self._sender is not None:
            self._sender.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._sender

    async def deliver(self, text: str) -> None:
        """Send one text to the client (called by the sender task, in queue order)."""
        if self.websocket is None:
            raise RuntimeError("a connection without a socket must override deliver()")
        await self.websocket.send_text(text)

    async def deliver_close(self, code: int, reason: str) -> None:
        """Close the client's connection with ``code`` and ``reason`` (sender task)."""
        ws = self.websocket
        if ws is not None and ws.application_state is WebSocketState.CONNECTED:
            await ws.close(code=code, reason=reason)

    async def hang_up(self) -> None:
        """After :meth:`finish`: close a client still connected that was never given a close
        (code 1000)."""
        ws = self.websocket
        if ws is not None and ws.application_state is WebSocketState.CONNECTED \
                and self.close_code is None:
            with contextlib.suppress(Exception):
                await ws.close(code=1000)

    async def _send_loop(self) -> None:
        queue = self._queue
        loop = asyncio.get_running_loop()
        while True:
            if not queue:
                self._wake = loop.create_future()
                await self._wake
                continue
            item = queue.popleft()
            try:
                if isinstance(item, tuple):
                    await self.deliver_close(item[1], item[2])
                    return
                await self.deliver(item)
            except Exception:  # the peer went away: the receive loop ends the connection
                return
