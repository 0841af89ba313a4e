"""What every route shares: the :class:`Server` of ``app.state``, the error body, the JSON
body reader and the thread pool for blocking calls."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse

from ginrummy.server.cluster.node import ClusterNode
from ginrummy.server.core import jsontext
from ginrummy.server.core.settings import Settings
from ginrummy.server.play.committer import GroupCommitter
from ginrummy.server.play.lobby import Lobby
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


M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")


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


async def read_body(request: Request, model: type[M]) -> M | JSONResponse:
    """The request's JSON body as ``model``, or the error answer (415, 400, 422)."""
    # A body of another type (text/plain, a form) is what a cross-site page can send without
    # a preflight: it is refused before it is read.
    if not is_json(request.headers.get("content-type")):
        return error_response(415, "bad_request",
                              "the body must be JSON with Content-Type: application/json")
    raw = await request.body()  # at most max_body_bytes: the edge (RequestGuard) saw to it
    try:
        data = jsontext.loads(raw or b"null")  # bounded: no 4,300-digit int, no deep nesting
    except jsontext.JSONTextError:
        return error_response(400, "bad_request", "the body is not valid JSON")
    if not isinstance(data, dict):
        return error_response(400, "bad_request", "the body must be a JSON object")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or None
        return error_response(422, "bad_request", f"{field}: {first['msg']}", field)
