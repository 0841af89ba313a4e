"""A WebSocket connection at a table: its seat, outbound queue, limits and mutes.

Messages to a client go through a bounded queue drained by the connection's own sender task,
so a slow client never holds up a table's writer; one that falls too far behind is closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from starlette.websockets import WebSocket, WebSocketState

from ginrummy.server.jsontext import dumps
from ginrummy.server.limits import RateLimit
from ginrummy.server.settings import Settings

log = logging.getLogger("ginrummy.server.connections")

_CLOSE = object()


class Connection:
    """One client of a table (a seat, or a spectator when ``seat`` is ``None``)."""

    def __init__(self, websocket: WebSocket, settings: Settings) -> None:
        self.websocket = websocket
        self.seat: int | None = None
        self.name = "spectator"
        self.muted: set[int | None] = set()
        self.messages = RateLimit(settings.messages_per_window, settings.message_window_seconds)
        self.chats = RateLimit(settings.chats_per_window, settings.chat_window_seconds)
        self._queue: asyncio.Queue[object] = asyncio.Queue(settings.send_queue_limit)
        self._sender: asyncio.Task[None] | None = None
        self.closed = False
        self.close_code: int | None = None

    def start(self) -> None:
        """Start the sender task."""
        self._sender = asyncio.get_running_loop().create_task(self._send_loop())

    def send(self, message: dict[str, Any] | str) -> None:
        """Queue a message (a dict or JSON text); a connection too far behind is closed."""
        if self.closed:
            return
        text = message if isinstance(message, str) else dumps(message)
        try:
            self._queue.put_nowait(text)
        except asyncio.QueueFull:
            log.warning("closing a connection too slow to read its messages")
            self.close(1008, "too slow: messages not read")

    def close(self, code: int, reason: str) -> None:
        """Send what is queued, then close with ``code`` and ``reason``."""
        if self.closed:
            return
        self.closed = True
        self.close_code = code
        with contextlib.suppress(asyncio.QueueFull):
            self._queue.put_nowait((_CLOSE, code, reason))
        if self._queue.full():  # no room for the close: drop the backlog
            while not self._queue.empty():
                self._queue.get_nowait()
            self._queue.put_nowait((_CLOSE, code, reason))

    async def flush(self, timeout: float) -> None:
        """Wait (at most ``timeout`` seconds) until a pending close has been sent."""
        sender = self._sender
        if sender is None or self.close_code is None:
            return
        with contextlib.suppress(TimeoutError, asyncio.CancelledError, Exception):
            await asyncio.wait_for(asyncio.shield(sender), timeout)

    async def finish(self) -> None:
        """Stop the sender task (the socket is gone)."""
        self.closed = True
        if self._sender is not None:
            self._sender.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._sender

    async def _send_loop(self) -> None:
        ws = self.websocket
        while True:
            item = await self._queue.get()
            try:
                if isinstance(item, tuple) and item[0] is _CLOSE:
                    if ws.application_state is WebSocketState.CONNECTED:
                        await ws.close(code=item[1], reason=item[2])
                    return
                assert isinstance(item, str)
                await ws.send_text(item)
            except Exception:  # the peer went away: the receive loop ends the connection
                return
