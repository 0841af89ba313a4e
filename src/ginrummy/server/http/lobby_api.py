"""The lobby's HTTP API (JSON): presets, computer levels, tables, create and join."""

from __future__ import annotations

import functools
import logging
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from ginrummy.rules import OPTIONS, PRESETS, Format, Ruleset
from ginrummy.server.core.protocol import CreateTable, JoinTable
from ginrummy.server.http.common import client_address, error_response, in_thread, read_body
from ginrummy.server.play.computer import default_bot_level
from ginrummy.server.play.lobby import Lobby, LobbyError, known_levels
from ginrummy.server.players.names import BadName, guest_name_key
from ginrummy.server.players.sessions import Account, account_store, current_account

log = logging.getLogger("ginrummy.server.api")


def _lobby(request: Request) -> Lobby:
    lobby: Lobby = request.app.state.server.lobby
    return lobby


_COMPACT = ("type", "values", "min", "max", "nullable")


def option_schema() -> dict[str, dict[str, Any]]:
    """Every ruleset option's type and allowed values by name (``/api/presets``' short form of
    :meth:`Ruleset.schema`)."""
    return {entry["name"]: {k: entry[k] for k in _COMPACT if k in entry}
            for entry in Ruleset.schema()}


def usual_hand_sizes() -> dict[str, int]:
    """The hand size an automatic ``hand_size`` resolves to for each player count (R2.1), so
    the create form shows the rules' own number (``/api/presets``' ``hand_sizes``)."""
    players = OPTIONS["players"]
    assert players.minimum is not None and players.maximum is not None
    return {str(n): Ruleset(players=n, format=Format.SINGLE_HAND).cards_per_hand
            for n in range(players.minimum, players.maximum + 1)}


@functools.cache
def presets_answer() -> dict[str, Any]:
    """The body of ``GET /api/presets`` (the same for every visitor and request: the code's)."""
    return {
        "presets": {name: Ruleset.preset(name).to_dict() for name in PRESETS},
        "options": option_schema(),
        "default": "classic",
        "hand_sizes": usual_hand_sizes(),
    }


@functools.cache
def schema_answer() -> dict[str, Any]:
    """The body of ``GET /api/rules/schema`` (the code's, like :func:`presets_answer`)."""
    return {"options": Ruleset.schema()}


async def presets(_request: Request) -> JSONResponse:
    """``GET /api/presets``."""
    return JSONResponse(presets_answer())


async def rules_schema(_request: Request) -> JSONResponse:
    """``GET /api/rules/schema``: :meth:`Ruleset.schema`, in the create form's order."""
    return JSONResponse(schema_answer())


async def bots(request: Request) -> JSONResponse:
    """``GET /api/bots``."""
    return JSONResponse({"levels": known_levels(),
                         "default": default_bot_level(request.app.state.server.settings)})


async def list_tables(request: Request) -> JSONResponse:
    """``GET /api/tables``: the open public tables (of every process, in a cluster)."""
    return JSONResponse({"tables": await _lobby(request).listing()})


async def get_table(request: Request) -> JSONResponse:
    """``GET /api/tables/{id}``; a private table's invite code in the ``X-Invite`` header (never
    in the URL, which logs and proxies keep)."""
    account = await current_account(request)
    try:  # a logged-in account learns its seat here, so another device or tab can take it
        found = await _lobby(request).describe(request.path_params["table_id"],
                                               request.headers.get("x-invite"),
                                               None if account is None else account.id)
    except LobbyError as exc:
        return error_response(exc.status, exc.code, str(exc), exc.field)
    return JSONResponse(found)


async def _guest_refusal(request: Request, account: Account | None,
                         nickname: str) -> JSONResponse | None:
    """Why a request may not seat its maker, or ``None``: a guest from an address where a
    banned account was seen (403 ``banned``), or a guest nickname that is (or looks like)
    an account's name or a staff name, or is made of invisible characters (409 or 400,
    ``nickname``). An account's use of the address is remembered (docs/moderation.md)."""
    lobby = _lobby(request)
    address = client_address(request)
    if account is not None:
        lobby.restrictions.seen(account.id, address)
        return None
    if lobby.restrictions.address_banned(address):
        return error_response(403, "banned", "an account banned from this server was used "
                              "from this address: no guest play from it while the ban lasts")
    try:
        key = guest_name_key(nickname)
    except BadName as exc:
        return error_response(400, "bad_request", f"nickname: {exc}", "nickname")
    store = account_store(request)
    if await in_thread(store.by_key, key) is not None:
        return error_response(409, "name_taken", "nickname: an account is called that (or "
                              "something that looks like it); log in to play under it, or "
                              "choose another nickname", "nickname")
    return None


async def create_table(request: Request) -> JSONResponse:
    """``POST /api/tables``."""
    body = await read_body(request, CreateTable)
    if isinstance(body, JSONResponse):
        return body
    account = await current_account(request)  # an account's seat follows it everywhere
    refused = await _guest_refusal(request, account, body.nickname)
    if refused is not None:
        return refused
    try:
        created = await _lobby(request).create(
            body, request.client.host if request.client else "unknown",
            None if account is None else (account.id, account.name))
    except LobbyError as exc:
        response = error_response(exc.status, exc.code, str(exc), exc.field)
        response.headers.update(exc.headers)  # Retry-After of a 429
        return response
    # a table event: never the token or the invite code
    log.info("table %s: created", created["table_id"],
             extra={"event": "table_created", "table": created["table_id"],
                    "public": body.public, "seat": created.get("seat")})
    return JSONResponse(created, status_code=201)


async def join_table(request: Request) -> JSONResponse:
    """``POST /api/tables/{id}/join``."""
    body = await read_body(request, JoinTable)
    if isinstance(body, JSONResponse):
        return body
    account = await current_account(request)
    refused = await _guest_refusal(request, account, body.nickname)
    if refused is not None:
        return refused
    try:
        joined = await _lobby(request).join(
            request.path_params["table_id"], body,
            None if account is None else (account.id, account.name))
    except LobbyError as exc:
        return error_response(exc.status, exc.code, str(exc), exc.field)
    log.info("table %s: seat %s joined", request.path_params["table_id"], joined.get("seat"),
             extra={"event": "table_joined", "table": request.path_params["table_id"],
                    "seat": joined.get("seat")})
    return JSONResponse(joined)


ROUTES = [
    Route("/api/presets", presets, methods=["GET"]),
    Route("/api/rules/schema", rules_schema, methods=["GET"]),
    Route("/api/bots", bots, methods=["GET"]),
    Route("/api/tables", list_tables, methods=["GET"]),
    Route("/api/tables", create_table, methods=["POST"]),
    Route("/api/tables/{table_id}", get_table, methods=["GET"]),
    Route("/api/tables/{table_id}/join", join_table, methods=["POST"]),
]
