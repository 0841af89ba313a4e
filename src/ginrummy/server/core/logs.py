"""Structured logs: one JSON object a line, one line per request or table event, no secrets.

The server logs nothing that is a secret: seat tokens and invite codes travel only in
request bodies and in the WebSocket ``hello``, never in a URL; :class:`AccessLog` logs a
request's path without its query string, and :class:`StripQueries` cuts the query from
uvicorn's handshake lines anyway. The ``websockets`` library logs every frame at DEBUG (a
``hello`` carries a token): those lines are dropped (:class:`DropFrames`, :data:`CHATTY`).
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import time
from collections.abc import Awaitable
from datetime import UTC, datetime
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

access = logging.getLogger("ginrummy.access")

_STANDARD = frozenset(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {
    "message", "asctime", "color_message"}
CHATTY = ("websockets", "uvicorn.protocols", "wsproto", "h11")
"""Libraries that log frames or raw protocol data at DEBUG."""
QUIET = ("sqlalchemy.engine", "sqlalchemy.pool")
"""Libraries kept at WARNING or above: SQLAlchemy logs every statement at INFO and every
row it reads at DEBUG (decks, hands: a ``--log-level debug`` must not print them)."""


ROW_DETAIL = re.compile(r"(DETAIL:\s+(?:Failing row contains|Key))[^\n]*")
"""PostgreSQL's detail of a refused row (a NOT NULL or CHECK violation: ``Failing row
contains (...)``, every column of the row, a deck among them; a unique one: ``Key (...)=(...)``).
SQLAlchemy's ``hide_parameters`` does not reach it: it is the database's own message."""


def redact(text: str) -> str:
    """``text`` without the values of a row PostgreSQL refused."""
    return ROW_DETAIL.sub(r"\1 ... (values hidden)", text) if "DETAIL:" in text else text


class JsonFormatter(logging.Formatter):
    """``{"time", "level", "logger", "message", ...extra fields}`` on one line (the values of
    a refused row hidden: :func:`redact`)."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(
                timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": redact(record.getMessage()),
        }
        for key, value in record.__dict__.items():
            if key not in _STANDARD and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["exception"] = redact(self.formatException(record.exc_info))
        return json.dumps(entry, default=str, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    """``--log-format text``: one line for people (tracebacks below it), the values of a
    refused row hidden (:func:`redact`)."""

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


class StripQueries(logging.Filter):
    """Cuts the query string off every path in a record's arguments: uvicorn logs each
    WebSocket handshake (``"WebSocket /ws/tables/x?..." [accepted]``) with its whole URL,
    whatever a client put in it."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple) and any(
                isinstance(a, str) and a.startswith("/") and "?" in a for a in record.args):
            record.args = tuple(a.split("?", 1)[0] if isinstance(a, str) and a.startswith("/")
                                else a for a in record.args)
        return True


class DropFrames(logging.Filter):
    """Drops the ``websockets`` library's DEBUG lines (every frame in and out, a ``hello``
    with its token among them), which uvicorn sends to its ``uvicorn.error`` logger."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.levelno < logging.INFO
                    and f"{os.sep}websockets{os.sep}" in record.pathname)


_STRIP = StripQueries()
_FRAMES = DropFrames()


def quiet_chatty_loggers() -> None:
    """Keep the libraries that log WebSocket frames at DEBUG at INFO or above and
    SQLAlchemy's statements and rows out of the log (:data:`QUIET`), and strip query strings
    from uvicorn's handshake lines."""
    for name in CHATTY:
        logger = logging.getLogger(name)
        if logger.level < logging.INFO:  # NOTSET included: never DEBUG through the root
            logger.setLevel(logging.INFO)
    for name in QUIET:
        logger = logging.getLogger(name)
        if logger.level < logging.WARNING:
            logger.setLevel(logging.WARNING)
    for name in ("uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        for guard in (_STRIP, _FRAMES):
            if guard not in logger.filters:
                logger.addFilter(guard)


def configure_logging(level: str = "info", fmt: str = "json", file: str = "") -> None:
    """The root logger of ``ginrummy serve``: stderr (and ``file``), JSON lines or text.
    uvicorn's own loggers propagate to it (``uvicorn_config`` passes ``log_config=None``)."""
    formatter: logging.Formatter = (
        JsonFormatter() if fmt == "json"
        else TextFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if file:
        handlers.append(logging.FileHandler(file, encoding="utf-8"))
    for handler in handlers:
        handler.setFormatter(formatter)
    logging.basicConfig(level=level.upper(), handlers=handlers, force=True)
    quiet_chatty_loggers()


class AccessLog:
    """One ``ginrummy.access`` line per HTTP request (method, path without the query string,
    status, duration, client) and per WebSocket (path, close code, duration): uvicorn's
    access log, which prints the whole URL, stays off."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status: int | None = None

        def watch(message: Message) -> Awaitable[None]:
            # not a coroutine: it hands back send's own awaitable (no frame of its own for
            # each WebSocket message)
            nonlocal status
            kind = message["type"]
            if kind == "http.response.start":
                status = int(message["status"])
            elif kind == "websocket.accept":
                status = 101
            elif kind == "websocket.close":
                code = int(message.get("code", 1000))
                status = 403 if status is None else code
            return send(message)

        try:
            await self.app(scope, receive, watch)
        except BaseException:
            status = 500 if status is None else status
            raise
        finally:
            client = scope.get("client")
            access.info(
                "%s %s %s", "WS" if scope["type"] == "websocket" else scope.get("method"),
                scope.get("path"), status,
                extra={"event": "request",
                       "method": scope.get("method", "WS"),
                       "path": scope.get("path"),
                       "status": status,
                       "ms": round((time.perf_counter() - started) * 1000, 1),
                       "client": client[0] if client else None})
