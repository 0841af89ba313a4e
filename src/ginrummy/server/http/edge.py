"""The HTTP edge: security headers, Origin checks, body limits (ASGI middleware).

Every HTTP response gets the security headers (:class:`SecurityHeaders`). Every request that
changes state (any method but GET, HEAD and OPTIONS) must carry an ``Origin`` that is one of
the server's public origins, and its body may not exceed ``max_body_bytes``: a declared
``Content-Length`` over the limit is refused before anything is read, and a body without one
(chunked) is counted as it streams and refused as soon as it passes the limit
(:class:`RequestGuard`). Origins are compared with the configured public origins, never with
the ``Host`` header (which a DNS-rebinding page controls).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ginrummy.server.core.settings import Settings
from ginrummy.server.http.common import error_response

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1", "0.0.0.0", "::", ""})
_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def normal_origin(origin: str) -> str | None:
    """``scheme://host[:port]`` in lower case without a default port, or None when
    ``origin`` is not an http(s) origin (``null``, garbage)."""
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if scheme not in ("http", "https") or not host:
        return None
    if ":" in host:
        host = f"[{host}]"
    if port is None or port == _DEFAULT_PORTS[scheme]:
        return f"{scheme}://{host}"
    return f"{scheme}://{host}:{port}"


def public_origins(settings: Settings) -> frozenset[str]:
    """The origins the web client is served from: ``public_origins`` when set, else the
    address the server listens on (on a loopback or wildcard address both
    ``http://127.0.0.1:PORT`` and ``http://localhost:PORT``), plus ``allowed_origins``.
    Worked out once per configuration: every upgrade and state-changing request asks."""
    return _public_origins(settings.public_origins, settings.allowed_origins, settings.host,
                           settings.port)


@functools.lru_cache(maxsize=16)
def _public_origins(configured: tuple[str, ...], allowed: tuple[str, ...], host: str,
                    port: int) -> frozenset[str]:
    listening: Iterable[str] = configured
    if not listening:
        if host.strip("[]") in LOOPBACK:
            listening = (f"http://127.0.0.1:{port}", f"http://localhost:{port}")
        else:
            listening = (f"http://{host}:{port}",)
    origins = {normal_origin(o) for o in (*listening, *allowed)}
    return frozenset(o for o in origins if o is not None)


def origin_allowed(origin: str | None, settings: Settings) -> bool:
    """True when ``origin`` is one of the public origins (``*`` in ``allowed_origins``
    accepts any). A missing ``Origin`` is refused: browsers always send it on WebSocket
    upgrades and on state-changing requests, and other clients can send it."""
    if origin is None:
        return False
    if "*" in settings.allowed_origins:
        return True
    normal = normal_origin(origin)
    return normal is not None and normal in public_origins(settings)


def content_security_policy(settings: Settings) -> str:
    """The CSP: everything from the server itself, no inline script or style, no framing."""
    sockets = sorted({o.replace("http", "ws", 1) for o in public_origins(settings)})
    return "; ".join([
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src " + " ".join(["'self'", *sockets]),
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ])


HSTS = b"max-age=31536000; includeSubDomains"


class SecurityHeaders:
    """Adds the security headers to every HTTP response: CSP, ``X-Frame-Options: DENY``,
    ``X-Content-Type-Options: nosniff``, ``Referrer-Policy: no-referrer``, and
    ``Strict-Transport-Security`` when the request came over HTTPS (directly, or through a
    trusted proxy's ``X-Forwarded-Proto``: uvicorn's ``--forwarded-allow-ips``) or the
    ``https`` setting says the server is only reached over HTTPS."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.always_hsts = settings.https
        self.headers: list[tuple[bytes, bytes]] = [
            (b"content-security-policy", content_security_policy(settings).encode()),
            (b"x-frame-options", b"DENY"),
            (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"no-referrer"),
            (b"cross-origin-opener-policy", b"same-origin"),
        ]
        self.headers_hsts = [*self.headers, (b"strict-transport-security", HSTS)]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        hsts = self.always_hsts or scope.get("scheme") == "https"
        extra = self.headers_hsts if hsts else self.headers

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", ())}
                message["headers"] = [*message.get("headers", ()),
                                      *(h for h in extra if h[0] not in present)]
            await send(message)

        await self.app(scope, receive, send_with_headers)


class BodyTooLarge(Exception):
    """A request body passed the limit while it was being read."""


class RequestGuard:
    """Refuses state-changing requests from a foreign or missing ``Origin`` (403) and bodies
    over ``max_body_bytes`` (413): by ``Content-Length`` before reading, and by counting the
    bytes of a streamed body as they arrive."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.settings = settings
        self.limit = settings.max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.lower(): v for k, v in scope.get("headers", ())}
        if scope["method"] not in SAFE_METHODS:
            raw = headers.get(b"origin")
            origin = raw.decode("latin-1") if raw is not None else None
            if not origin_allowed(origin, self.settings):
                await _send_error(scope, receive, send, 403, "bad_origin",
                                  "Origin missing or not one of this server's origins")
                return
        declared = headers.get(b"content-length")
        if declared is not None:
            try:
                too_big = int(declared) > self.limit
            except ValueError:
                await _send_error(scope, receive, send, 400, "bad_request", "bad Content-Length")
                return
            if too_big:
                await _send_error(scope, receive, send, 413, "too_large", self._too_large())
                return
        seen = 0
        started = False

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise BodyTooLarge
            return message

        async def watch(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted, watch)
        except BodyTooLarge:
            if started:
                raise
            await _send_error(scope, receive, send, 413, "too_large", self._too_large())

    def _too_large(self) -> str:
        return f"body over {self.limit} bytes"


async def _send_error(scope: Scope, receive: Receive, send: Send, status: int, code: str,
                      message: str) -> None:
    response = error_response(status, code, message)
    response.headers["connection"] = "close"
    await response(scope, receive, send)
