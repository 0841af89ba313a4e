"""uvicorn's HTTP protocol with a deadline for each request's head, and a socket budget.

uvicorn closes an idle keep-alive connection, but a socket that sends nothing, or half a
request line, stays open until the client leaves: a few hundred of them take every file
descriptor of the process. Here every request head (request line and headers) must arrive
within ``head_timeout`` seconds of the connection, or of the first byte of the next request
on a kept-alive connection, or the socket is closed. And the process keeps at most
``max_sockets`` sockets: a new connection past that closes the oldest one still waiting for
its head (then a new one is refused), so an idle flood never starves real requests.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol


def head_timeout_protocol(head_timeout: float, max_sockets: int) -> type[HttpToolsProtocol]:
    """A protocol class (uvicorn's ``http=`` option) with these two limits."""
    waiting: OrderedDict[HeadTimeoutProtocol, None] = OrderedDict()
    """Connections waiting for a request head, oldest first."""

    class HeadTimeoutProtocol(HttpToolsProtocol):
        """uvicorn's httptools protocol, with a deadline for the request head."""

        _head_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            if len(self.connections) > max_sockets:
                oldest = next(iter(waiting), None)
                if oldest is None:  # every socket is busy: refuse this one
                    transport.close()
                    return
                oldest._close()
            self._await_head()

        def data_received(self, data: bytes) -> None:
            if self._head_timer is None and (self.cycle is None or self.cycle.response_complete):
                self._await_head()  # the first bytes of a further request on this socket
            super().data_received(data)

        def on_headers_complete(self) -> None:
            self._head_done()
            super().on_headers_complete()

        def connection_lost(self, exc: Exception | None) -> None:
            self._head_done()
            super().connection_lost(exc)

        def _await_head(self) -> None:
            self._head_timer = self.loop.call_later(head_timeout, self._close)
            waiting[self] = None

        def _head_done(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None
            waiting.pop(self, None)

        def _close(self) -> None:
            self._head_done()
            if not self.transport.is_closing():
                self.transport.close()

    return HeadTimeoutProtocol


def protocol_options(head_timeout: float, max_sockets: int) -> dict[str, Any]:
    """uvicorn options: the protocol above (httptools, which ``uvicorn[standard]`` brings)."""
    return {"http": head_timeout_protocol(head_timeout, max_sockets)}
