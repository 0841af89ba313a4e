"""HTTP requests about a table another cluster member owns, answered by that owner
(docs/cluster.md, *Requests at the table's owner*).

A route that needs its table in memory (an administrator's kick or close, a chat report, a
guest turned into an account, leaving a seat, the coach of a table) calls
:func:`owner_answer` once it knows the table's id. In one process, or when the table is
played here, that is ``None`` and the route goes on. When another process owns the table, the
request is sent to it over Redis (:meth:`ClusterNode.call`, ``http``) and its answer (status,
headers, body: a refusal as much as a success) is this process's answer; no answer within the
call's timeout is 503 ``unavailable``.

Who is asking is checked here, by the process answering the client: the session cookie is
read against the database (:func:`~ginrummy.server.players.sessions.current_account`) and only the
account's id goes to the owner, never the cookie. The owner does not take the sender's word
for more than that id, which only a cluster member can send (the request channel is on the
cluster's Redis, part of its trusted side): it reads the account again (a deleted or banned
one is a guest) and runs the same route, whose checks (an administrator's role, a seat's
token, a rate limit) run there as for a local request.
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Awaitable, Callable
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response

from ginrummy.server.core.auth import secret_hash
from ginrummy.server.http.common import error_response, in_thread, server_of
from ginrummy.server.play.lobby import TABLE_ID, LobbyError
from ginrummy.server.players.sessions import (
    FORWARDED_ACCOUNT,
    Account,
    account_store,
    cookie_name,
    current_account,
    session_token,
)

if TYPE_CHECKING:
    from ginrummy.server.http.common import Server

log = logging.getLogger("ginrummy.server.forwarding")

RouteFunction = Callable[[Request], Awaitable[Response]]
AT_OWNER: dict[str, RouteFunction] = {}
"""The routes an owner runs for another member, by name (:func:`at_owner`)."""
_DROPPED_HEADERS = frozenset({"cookie", "authorization", "content-length"})
"""Request headers that never cross Redis (the session cookie, a bearer token) or that the
owner computes again."""


ROUTE_NAME = "ginrummy.owner_route"
"""The scope key of the name a route is registered under (:func:`at_owner`)."""


def at_owner(name: str, route: RouteFunction) -> RouteFunction:
    """Register ``route`` (the whole route, its checks included) as one an owner runs for
    another member under ``name``; returns it with its name in every request's scope, where
    :func:`owner_answer` reads it (the name is written once, here)."""
    async def named(request: Request) -> Response:
        request.scope[ROUTE_NAME] = name
        return await route(request)

    AT_OWNER[name] = named
    return named


def forwarded(request: Request) -> bool:
    """True for a request another member forwarded to this process (the table's owner)."""
    return FORWARDED_ACCOUNT in request.scope


async def owner_answer(request: Request, table_id: str) -> Response | None:
    """The answer of the table's owner when another process owns ``table_id``, else ``None``
    (the route goes on here: one process, a table played here, or no such table). The route
    is one of :func:`at_owner`'s."""
    server = server_of(request)
    node = server.cluster
    if node is None or not TABLE_ID.fullmatch(table_id):
        return None
    try:
        where = await server.lobby.locate(table_id)
    except LobbyError as exc:  # Redis away
        return error_response(exc.status, exc.code, str(exc), exc.field)
    if where != "remote":
        return None
    if forwarded(request):  # sent here as the owner, which it is no more: no second hop
        return error_response(503, "unavailable", f"table {table_id} is moving to another "
                              "server process; try again in a few seconds")
    account = await current_account(request)
    body = await request.body()
    client = request.client
    args = {
        "route": request.scope[ROUTE_NAME], "method": request.method,
        "scheme": request.url.scheme,
        "path": request.url.path, "query": request.url.query,
        "path_params": dict(request.path_params),
        "headers": [[k, v] for k, v in request.headers.items()
                    if k.lower() not in _DROPPED_HEADERS],
        "client": None if client is None else [client.host, client.port],
        "server": list(request.scope["server"]) if request.scope.get("server") else None,
        "account": None if account is None else account.id,
        "body": base64.b64encode(body).decode("ascii")}
    from ginrummy.server.cluster.node import OwnerUnreachable

    try:
        answer = await node.call(table_id, "http", args)
    except OwnerUnreachable as exc:
        return error_response(503, "unavailable", f"{exc}; try again in a few seconds")
    except Exception as exc:  # Redis failed under the call
        log.warning("table %s: a request to its owner failed (%s: %s)", table_id,
                    type(exc).__name__, exc)
        return error_response(503, "unavailable", "the server cannot reach its cluster "
                              "(Redis); try again in a few seconds")
    response = _response(answer)
    await _end_replaced_session(request, response)
    return response


async def _end_replaced_session(request: Request, response: Response) -> None:
    """A forwarded route that started a new session (log-in by upgrade: its answer sets the
    session cookie) replaces the session the request came with, as a local one does
    (docs/accounts.md): the owner never saw that cookie, so it is deleted here."""
    old = session_token(request)
    if old is None or response.status_code >= 300:
        return
    prefix = f"{cookie_name(request)}=".encode("latin-1")
    if any(key == b"set-cookie" and value.startswith(prefix)
           for key, value in response.raw_headers):
        await in_thread(account_store(request).end_session, secret_hash(old))


def _response(answer: dict[str, Any]) -> Response:
    """The client's answer from the owner's (``{"status", "headers", "body"}``, or the
    node's ``{"error"}`` when the owner failed)."""
    error = answer.get("error")
    if isinstance(error, dict):
        return error_response(int(error.get("status", 500)), str(error.get("code", "internal")),
                              str(error.get("message", "")), error.get("field"))
    try:
        response = Response(base64.b64decode(str(answer["body"])), int(answer["status"]))
        response.raw_headers = [(str(k).encode("latin-1"), str(v).encode("latin-1"))
                                for k, v in answer["headers"]]
    except (KeyError, TypeError, ValueError) as exc:
        log.warning("a malformed answer of a table's owner (%s)", type(exc).__name__)
        return error_response(502, "internal", "the table's owner process answered "
                              "something malformed")
    return response


def install(server: Server) -> None:
    """Answer the ``http`` requests of the other members (a cluster member only)."""
    node = server.cluster
    if node is None:
        return

    async def answer(args: dict[str, Any]) -> dict[str, Any]:
        return await run_forwarded(server, args)

    node.handlers["http"] = answer


async def run_forwarded(server: Server, args: dict[str, Any]) -> dict[str, Any]:
    """The owner's side: run the named route on the forwarded request; its answer as
    ``{"status", "headers", "body"}``."""
    route = AT_OWNER.get(str(args.get("route")))
    if route is None:
        return _serialised(error_response(404, "not_found", "no such forwarded route"))
    account: Account | None = None
    account_id = args.get("account")
    if account_id is not None:  # read again: a deleted or banned account is a guest here
        stored = await in_thread(server.accounts.by_id, int(account_id))
        account = None if stored is None or stored.banned else Account.of(stored)
    body = base64.b64decode(str(args.get("body") or ""))
    client = args.get("client")
    address = args.get("server")
    scope: dict[str, Any] = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
        "method": str(args["method"]), "scheme": str(args.get("scheme") or "http"),
        "path": str(args["path"]), "raw_path": str(args["path"]).encode(),
        "root_path": "", "query_string": str(args.get("query") or "").encode("latin-1"),
        "headers": [(str(k).lower().encode("latin-1"), str(v).encode("latin-1"))
                    for k, v in args.get("headers") or []],
        "client": None if not client else (str(client[0]), int(client[1])),
        "server": None if not address else (str(address[0]), int(address[1])),
        "path_params": {str(k): str(v) for k, v in dict(args.get("path_params") or {}).items()},
        "app": SimpleNamespace(state=SimpleNamespace(server=server)),
        "state": {}, FORWARDED_ACCOUNT: account}
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return _serialised(await route(Request(scope, receive)))


def _serialised(response: Response) -> dict[str, Any]:
    return {"status": response.status_code,
            "headers": [[k.decode("latin-1"), v.decode("latin-1")]
                        for k, v in response.raw_headers],
            "body": base64.b64encode(bytes(getattr(response, "body", b""))).decode("ascii")}
