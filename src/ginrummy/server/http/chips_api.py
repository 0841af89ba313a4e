"""Chips: the wallet, the daily top-up, and leaving a table before the deal (docs/chips.md).

``GET /api/wallet`` and ``POST /api/wallet/topup`` need a logged-in account;
``POST /api/tables/{id}/leave`` gives a seat up before the first deal, found by the seat's
token in the body or by the account's session (a buy-in comes back with it). ``install``
registers the buy-in, refund and payout hooks of :mod:`ginrummy.server.players.chips`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from ginrummy.server.core.auth import seat_for_token
from ginrummy.server.http.common import (
    error_response,
    in_thread,
    read_account_body,
    read_body,
    server_of,
)
from ginrummy.server.http.forwarding import at_owner, owner_answer
from ginrummy.server.play.committer import CommitFailed
from ginrummy.server.players.chips import Chips
from ginrummy.server.players.sessions import current_account
from ginrummy.storage import Apply, ledger
from ginrummy.storage.repository import utcnow

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection

    from ginrummy.server.http.common import Server

log = logging.getLogger("ginrummy.server.chips")

STATEMENT_LINES = 50
"""Entries ``GET /api/wallet`` lists (newest first)."""

T = TypeVar("T")


class LeaveTable(BaseModel):
    """``POST /api/tables/{id}/leave``: the seat's token, or nothing (the session's seat)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    token: str | None = Field(default=None, min_length=1, max_length=128)


class NoFields(BaseModel):
    """An empty JSON object."""

    model_config = ConfigDict(extra="forbid", strict=True)


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat().replace("+00:00", "Z")


async def _read(server: Server, read: Callable[[Connection], T]) -> T:
    """Run a read on its own connection in a thread."""
    def run() -> T:
        with server.repository.engine.connect() as conn:
            return read(conn)
    return await in_thread(run)


async def _write(server: Server, write: Callable[[Connection], T]) -> T:
    """Run a write through the group committer (one writer for the database); its result."""
    results: list[T] = []
    await server.committer.commit([Apply(lambda conn: results.append(write(conn)))])
    return results[0]


def _wallet(conn: Connection, account_id: int) -> dict[str, Any]:
    topup = ledger.topup_status(conn, account_id, utcnow())
    return {
        "balance": ledger.spendable(conn, account_id),
        "parked": ledger.parked(conn, account_id),
        "topup": {"available": topup.available, "amount": topup.amount,
                  "next_at": _iso(topup.next_at)},
        "entries": [{"at": _iso(e.at), "kind": e.kind, "amount": e.amount,
                     "table_id": e.table_id, "table_name": e.table_name,
                     "table_host": e.table_host}
                    for e in ledger.statement(conn, account_id, STATEMENT_LINES)],
    }


async def wallet(request: Request) -> JSONResponse:
    """``GET /api/wallet`` → ``{"balance", "parked", "topup": {"available", "amount",
    "next_at"}, "entries": [{"at", "kind", "amount", "table_id", "table_name",
    "table_host"}]}`` (``parked``: the chips in open pools; ``table_name`` the table's name,
    "" when it has none, and ``table_host`` its first seat's name; 401 ``not_logged_in``)."""
    account = await current_account(request)
    if account is None:
        return error_response(401, "not_logged_in", "log in to see your chips")
    server = server_of(request)
    try:
        exists = await _read(server, lambda conn: ledger.balance(
            conn, ledger.account_wallet(account.id)) is not None)
        if not exists:  # the first look at it: the wallet opens with the sign-up grant
            await _write(server, lambda conn: ledger.open_account(conn, account.id))
        return JSONResponse(await _read(server, lambda conn: _wallet(conn, account.id)))
    except CommitFailed as exc:
        return error_response(503, "storage", str(exc))


async def topup(request: Request) -> JSONResponse:
    """``POST /api/wallet/topup {}`` → the wallet with ``"received"`` (the chips the top-up
    gave); 409 ``topup_unavailable`` when it was taken today or the balance is not below
    the top-up level."""
    found = await read_account_body(request, NoFields, "log in to take your chips")
    if isinstance(found, JSONResponse):
        return found
    _, account = found
    server = server_of(request)
    try:
        received = await _write(server, lambda conn: ledger.claim_topup(conn, account.id))
    except CommitFailed as exc:
        return error_response(503, "storage", str(exc))
    answer = await _read(server, lambda conn: _wallet(conn, account.id))
    if received == 0:
        when = answer["topup"]["next_at"]
        reason = (f"today's top-up was taken: the next one is at {when}" if when else
                  f"the top-up fills a balance below {ledger.TOPUP_LEVEL} chips, counting "
                  f"your chips in open pools; you have {answer['balance']} and "
                  f"{answer['parked']} in pools")
        return error_response(409, "topup_unavailable", reason)
    log.info("account %d: daily top-up of %d chips", account.id, received,
             extra={"event": "topup", "account": account.id, "chips": received})
    return JSONResponse({**answer, "received": received})


async def leave_table(request: Request) -> Response:
    """``POST /api/tables/{id}/leave {"token"?}`` → ``{"seat", "table"}``: the seat (of the
    token, else of the logged-in account) is given up before the first deal, its buy-in
    refunded. 403 ``not_seated`` when neither names a seat; 409 ``match_started``."""
    body = await read_body(request, LeaveTable)
    if isinstance(body, JSONResponse):
        return body
    table_id = request.path_params["table_id"]
    at_owner_answer = await owner_answer(request, table_id)
    if at_owner_answer is not None:
        return at_owner_answer
    lobby = server_of(request).lobby
    writer = await lobby.load(table_id)
    if writer is None:
        return error_response(404, "not_found", f"no table {table_id!r}")
    seats = writer.table.seats
    if body.token is not None:
        seat = seat_for_token(seats, body.token)
    else:
        account = await current_account(request)
        seat = None if account is None else next(
            (s for s in seats if s.account_id == account.id), None)
    if seat is None:
        field = "token" if body.token is not None else None
        return error_response(403, "not_seated", "you have no seat at this table (the seat "
                              "token, or a logged-in account sitting here)", field)
    seat_no = seat.seat
    try:
        await writer.leave(seat_no)
    except LookupError as exc:
        if exc.args and exc.args[0] == "match_started":
            return error_response(409, "match_started", "the match has begun: a seat can be "
                                  "left only before the first deal")
        return error_response(403, "not_seated", "nobody sits in that seat now")
    except CommitFailed as exc:
        return error_response(503, "storage", str(exc))
    log.info("table %s: seat %d left", table_id, seat_no,
             extra={"event": "table_left", "table": table_id, "seat": seat_no})
    return JSONResponse({"seat": seat_no, "table": writer.table.entry()})


ROUTES: list[BaseRoute] = [
    Route("/api/wallet", wallet, methods=["GET"]),
    Route("/api/wallet/topup", topup, methods=["POST"]),
    Route("/api/tables/{table_id}/leave", at_owner("chips.leave", leave_table),
          methods=["POST"]),
]


def install(server: Server) -> None:
    """Register the chips hooks (buy-in, refund, payout) on the server's tables."""
    chips = Chips(server.repository.engine)
    chips.install(server.lobby.hooks)
    server.extra["chips"] = chips
