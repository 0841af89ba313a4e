"""The application factory: storage, group committer, lobby, routes and static files."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Sequence

from sqlalchemy import Engine, text
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.types import ASGIApp, Receive, Scope, Send

from ginrummy.server.cluster.node import ClusterNode
from ginrummy.server.core.logs import AccessLog, quiet_chatty_loggers
from ginrummy.server.core.settings import Settings
from ginrummy.server.http import (
    account_api,
    account_relay,
    admin_api,
    chips_api,
    coach_api,
    friends_api,
    learn_api,
    pages,
    player_api,
    static,
    tournament_api,
)
from ginrummy.server.http.common import Server
from ginrummy.server.http.edge import RequestGuard, SecurityHeaders
from ginrummy.server.http.lobby_api import ROUTES
from ginrummy.server.http.metrics import ErrorCounter
from ginrummy.server.http.table_socket import table_socket
from ginrummy.server.play.committer import GroupCommitter
from ginrummy.server.play.lobby import Lobby
from ginrummy.storage import Checkpointer, Repository, migrate, open_engine
from ginrummy.storage.accounts import AccountStore

log = logging.getLogger("ginrummy.server")

EXTENSIONS = (account_api, player_api, chips_api, admin_api, coach_api, learn_api,
              friends_api, tournament_api)
"""The players' layer: each module's ``ROUTES`` are served and its ``install(server)``
registers its hooks when the server starts; its ``shutdown(server)``, if any, is awaited when
the server stops."""


def create_app(settings: Settings | None = None) -> Starlette:
    """A Starlette app serving the API, the WebSocket endpoint and the web client.

    The database is opened and migrated when the app starts (lifespan), then every unfinished
    table is restored from it.
    """
    settings = settings or Settings.from_env()
    quiet_chatty_loggers()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        engine = open_engine(settings.db, settings.sqlite_synchronous,
                             background_checkpoint=True)
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, migrate_once, engine)
        checkpointer = Checkpointer(engine) if Checkpointer.wanted(engine) else None
        if checkpointer is not None:
            checkpointer.start()
        repository = Repository(engine)
        committer = GroupCommitter(repository, settings.commit_interval_ms,
                                    spacing_ms=settings.commit_spacing_ms)
        node = ClusterNode(settings, engine) if settings.redis else None
        if node is not None:
            committer.fencer = node.fencer
            committer.on_fenced = node.fenced
        committer.start()
        lobby = Lobby(settings, repository, committer, node)
        server = Server(settings, repository, committer, lobby, AccountStore(engine), node)
        for extension in EXTENSIONS:
            extension.install(server)
        if node is not None:
            await node.open(lobby)
            # the relay's owner side follows the node's tables from the first sweep on, so a
            # client at another process reaches a table before any client connected here
            from ginrummy.server.http.bridge import bridge_of

            await bridge_of(server)
            # the account push sockets' news reaches the accounts' sockets at every process
            await account_relay.install(server)
        app.state.server = server
        server.restored = await lobby.restore()
        if node is not None:
            node.run()
            log.info("cluster member %s: %d table(s) taken over", node.owner,
                     server.restored, extra={"event": "node_started"})
        log.info("ginrummy server ready: %d table(s) restored", server.restored)
        try:
            yield
        finally:
            if node is not None:  # take no more tables; relayed clients told to reconnect
                await _step("the sweep's stop", node.stop_background())
                close = getattr(server.extra.get("bridge"), "close", None)
                if close is not None:
                    await _step("the relay's stop", close())
                shared = server.extra.get(account_relay.KEY)
                if isinstance(shared, account_relay.AccountRelay):
                    await _step("the account relay's stop", shared.close())
            lobby.close()
            for extension in EXTENSIONS:  # the coach's worker processes stop with us
                stop = getattr(extension, "shutdown", None)
                if stop is not None:
                    await _step(f"{extension.__name__}'s stop", stop(server))
            await committer.close()
            if node is not None:  # after the last commit: hand every table over
                await _step("the hand-over of the tables", node.close())
            if checkpointer is not None:
                await loop.run_in_executor(None, checkpointer.stop)
            engine.dispose()

    routes: list[BaseRoute] = [
        *ROUTES,
        *(route for extension in EXTENSIONS for route in extension.ROUTES),
        *pages.ROUTES,
        Route("/api/health", health, methods=["GET"]),
        Route("/healthz", healthz, methods=["GET", "HEAD"]),
        Route("/readyz", readyz, methods=["GET", "HEAD"]),
        WebSocketRoute("/ws/tables/{table_id}", table_socket),
    ]
    if settings.static_dir.is_dir():
        routes.extend(static.routes(settings.static_dir))  # versioned, cache headers
    else:
        routes.append(Route("/", no_client, methods=["GET"]))
    http_only = [Middleware(static.Compression),  # gzip on text
                 Middleware(ErrorCounter),  # /metrics: HTTP errors
                 Middleware(SecurityHeaders, settings=settings),
                 Middleware(RequestGuard, settings=settings)]
    middleware = [Middleware(AccessLog), Middleware(HttpOnly, layers=http_only)]
    return Starlette(routes=routes, lifespan=lifespan, middleware=middleware)


class HttpOnly:
    """The one dispatch point of the middlewares that act on HTTP alone (``layers``, outermost
    first): an HTTP request (and the lifespan) goes through them, a WebSocket straight to the
    app. Each of them lets a WebSocket pass untouched anyway; skipping them here spares every
    WebSocket message the resumption of their pass-through frames (the session's coroutine
    chain is resumed at each frame received). Not a coroutine itself, for the same reason: it
    hands back the awaitable of the path taken."""

    def __init__(self, app: ASGIApp, layers: Sequence[Middleware]) -> None:
        self.websocket = app
        http = app
        for cls, args, kwargs in reversed(layers):
            http = cls(http, *args, **kwargs)
        self.http = http

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        if scope["type"] == "websocket":
            return self.websocket(scope, receive, send)
        return self.http(scope, receive, send)


SHUTDOWN_STEP_SECONDS = 10.0
"""Longest wait for one step of a cluster member's shutdown (the next steps still run: the
leases are released even when the relay does not stop in time)."""


async def _step(what: str, work: Awaitable[object]) -> None:
    """One step of the shutdown: a failure or a step that hangs is logged and the next steps
    still run."""
    try:
        async with asyncio.timeout(SHUTDOWN_STEP_SECONDS):
            await work
    except Exception:
        log.exception("shutdown: %s failed", what)


async def health(_request: Request) -> JSONResponse:
    """``GET /api/health``: the status alone (the counts are in ``/metrics``, behind its
    token: how busy the server is is not the public's business)."""
    return JSONResponse({"ok": True})


async def healthz(_request: Request) -> JSONResponse:
    """``GET /healthz``: liveness (the process answers HTTP)."""
    return JSONResponse({"ok": True})


READY_TIMEOUT_SECONDS = 2.0
MIGRATION_LOCK = 0x67696E72756D6D79 % 2**63
"""The PostgreSQL advisory lock held while a process migrates the schema."""


def migrate_once(engine: Engine) -> None:
    """Migrate the schema; on PostgreSQL under an advisory lock, so that processes started
    together (``serve --workers N``, a cluster) migrate one after the other (the later ones
    find the schema at its head) instead of racing to create the same tables."""
    if engine.dialect.name != "postgresql":
        migrate(engine)
        return
    with engine.connect() as conn:
        conn.execute(text("SELECT pg_advisory_lock(:key)"), {"key": MIGRATION_LOCK})
        try:
            migrate(engine)
        finally:
            conn.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": MIGRATION_LOCK})
            conn.commit()


async def readyz(request: Request) -> JSONResponse:
    """``GET /readyz``: readiness: the tables are restored and the database (and Redis, in a
    cluster) answers within 2 s (503 naming which does not, otherwise)."""
    server: Server | None = getattr(request.app.state, "server", None)
    if server is None:
        return JSONResponse({"ok": False, "reason": "starting"}, status_code=503)
    loop = asyncio.get_running_loop()
    try:
        async with asyncio.timeout(READY_TIMEOUT_SECONDS):
            await loop.run_in_executor(None, _ping, server.repository)
    except Exception as exc:  # any failure means not ready
        log.warning("readiness check failed: %s", type(exc).__name__,
                    extra={"event": "not_ready"})
        return JSONResponse({"ok": False, "reason": "database unreachable"},
                            status_code=503)
    if server.cluster is not None:
        try:
            async with asyncio.timeout(READY_TIMEOUT_SECONDS):
                await server.cluster.ping()
        except Exception as exc:
            log.warning("readiness check failed: Redis: %s", type(exc).__name__,
                        extra={"event": "not_ready"})
            return JSONResponse({"ok": False, "reason": "redis unreachable"},
                                status_code=503)
    return JSONResponse({"ok": True})


def _ping(repository: Repository) -> None:
    with repository.engine.connect() as conn:
        conn.execute(text("SELECT 1"))


async def no_client(_request: Request) -> Response:
    """The page shown when the web client is not installed."""
    return PlainTextResponse("ginrummy server: the web client (src/ginrummy/web/static) is "
                             "missing; the API is at /api/tables\n")
