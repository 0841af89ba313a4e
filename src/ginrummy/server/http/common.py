"""What every route shares: the :class:`Server` of ``app.state``, the error body, the JSON
body reader, the client address of quotas and their 429 answer, and the thread pool for
blocking calls."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse

from ginrummy.server.cluster.node import ClusterNode
from ginrummy.server.core import jsontext
from ginrummy.server.core.clienttext import BadText, check_strings
from ginrummy.server.core.limits import RateLimit, address_key
from ginrummy.server.core.settings import Settings
from ginrummy.server.play.committer import GroupCommitter
from ginrummy.server.play.lobby import Lobby
from ginrummy.server.players.sessions import Account, current_account
from ginrummy.storage import Repository
from ginrummy.storage.accounts import AccountStore


@dataclass
class Server:
    """What the routes share (``app.state.server``)."""

    settings: Settings
    repository: Repository
    committer: GroupCommitter
    lobby: Lobby
    accounts: AccountStore
    cluster: ClusterNode | None = None
    """This process as a member of a cluster (``settings.redis`` set), else ``None``."""
    restored: int = 0
    extra: dict[str, object] = field(default_factory=dict)


def error_response(status: int, code: str, message: str, field: str | None = None) -> JSONResponse:
    """The error body of docs/protocol.md."""
    return JSONResponse({"error": {"code": code, "message": message, "field": field}},
                        status_code=status)


def wait_seconds(limit: RateLimit) -> int:
    """Whole seconds (at least 1) until ``limit`` allows one more: a 429's ``Retry-After``."""
    return max(1, math.ceil(limit.retry_after()))


def too_many(code: str, message: str, retry_after: int) -> JSONResponse:
    """A 429 error answer, with ``Retry-After`` (whole seconds)."""
    answer = error_response(429, code, message)
    answer.headers["Retry-After"] = str(retry_after)
    return answer


M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")


def client_address(conn: HTTPConnection) -> str:
    """Whom the request's client address stands for in quotas (:func:`address_key`:
    an IPv6 client's /64)."""
    return address_key(conn.client.host if conn.client else "unknown")


def server_of(request: Request) -> Server:
    """What the routes share (``app.state.server``)."""
    server: Server = request.app.state.server
    return server


async def in_thread(call: Callable[..., T], *args: Any) -> T:
    """``call(*args)`` in the default thread pool, off the event loop (database reads and
    writes, password hashing)."""
    return await asyncio.get_running_loop().run_in_executor(None, call, *args)


def is_json(content_type: str | None) -> bool:
    """True for ``application/json`` (parameters such as ``charset`` allowed)."""
    if not content_type:
        return False
    return content_type.split(";", 1)[0].strip().lower() == "application/json"


TextRefusal = Callable[[BadText], JSONResponse]
"""The answer a route gives to a body holding a control character (default: 400 naming the
field)."""


def refuse_text(exc: BadText) -> JSONResponse:
    """400 ``bad_request`` naming the field whose string holds a refused character."""
    return error_response(400, "bad_request", str(exc), exc.field)


async def read_body(request: Request, model: type[M],
                    refused_text: TextRefusal = refuse_text) -> M | JSONResponse:
    """The request's JSON body as ``model``, or the error answer (415; 400 for text that is
    not JSON, a number too big to read, or a string with a control character or a lone
    surrogate in any field, :mod:`ginrummy.server.core.clienttext`; 422 for the model's
    checks)."""
    # A body of another type (text/plain, a form) is what a cross-site page can send without
    # a preflight: it is refused before it is read.
    if not is_json(request.headers.get("content-type")):
        return error_response(415, "bad_request",
                              "the body must be JSON with Content-Type: application/json")
    raw = await request.body()  # at most max_body_bytes: the edge (RequestGuard) saw to it
    try:
        data = jsontext.loads(raw or b"null")  # bounded: no 4,300-digit int, no deep nesting
    except jsontext.JSONTextError as exc:  # what is wrong: a syntax error, a huge number...
        return error_response(400, "bad_request", f"the body: {exc}")
    if not isinstance(data, dict):
        return error_response(400, "bad_request", "the body must be a JSON object")
    try:
        check_strings(data)  # every string, at any depth, before the model sees it
    except BadText as exc:
        return refused_text(exc)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or None
        return error_response(422, "bad_request", f"{field}: {first['msg']}", field)


async def read_account_body(request: Request, model: type[M], refusal: str
                            ) -> tuple[M, Account] | JSONResponse:
    """The request's JSON body as ``model`` (:func:`read_body`) and its logged-in account, or
    the error answer: 401 ``not_logged_in`` with ``refusal`` for a guest."""
    body = await read_body(request, model)
    if isinstance(body, JSONResponse):
        return body
    account = await current_account(request)
    if account is None:
        return error_response(401, "not_logged_in", refusal)
    return body, account
