"""Moderation and operations: the admin routes, chat reports and /metrics (docs/moderation.md).

Every ``/api/admin/...`` route needs an administrator's session: a guest gets 401
``not_logged_in``, another account 403 ``forbidden``, before the body is read. Every action
writes a moderation log row, in the same transaction as what it changes where it changes a
table. What an action does to live tables and connections is
:mod:`ginrummy.server.players.moderation`.

In a cluster (docs/cluster.md) any member answers: an action on one table (kick, close, a
report) is run by the table's owner (:mod:`ginrummy.server.http.forwarding`), and what concerns
every table (the list of tables, an account's seats, a mute, a ban, a notice) is done here
and asked of every other member (:meth:`ClusterNode.broadcast`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from ginrummy.server.core.auth import seat_for_token
from ginrummy.server.core.jsontext import MAX_INT
from ginrummy.server.core.limits import KeyedLimits
from ginrummy.server.core.protocol import MessageError
from ginrummy.server.http import forwarding, metrics
from ginrummy.server.http.common import (
    client_address,
    error_response,
    in_thread,
    read_body,
    server_of,
    too_many,
    wait_seconds,
)
from ginrummy.server.http.forwarding import at_owner, owner_answer
from ginrummy.server.play.chat import clean_text
from ginrummy.server.play.committer import CommitFailed
from ginrummy.server.play.messages import notice_message
from ginrummy.server.play.tablewriter import REVOKED_TOKEN
from ginrummy.server.players import moderation
from ginrummy.server.players.names import name_key
from ginrummy.server.players.sessions import Account, current_account
from ginrummy.storage import WriteOp
from ginrummy.storage.accounts import StoredAccount
from ginrummy.storage.repository import as_utc, utcnow

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from ginrummy.server.http.common import Server
    from ginrummy.server.play.lobby import Lobby
    from ginrummy.server.play.tablewriter import TableWriter

log = logging.getLogger("ginrummy.server.admin")

MAX_MUTE_MINUTES = 525_600
"""A year: the longest mute."""
NOTICE_MAX_CHARS = 500
REPORTS_PER_WINDOW, REPORT_WINDOW_SECONDS = 10, 600.0
"""Reports one reporter (an account, a seat or an address) may send in the window."""
PAGE = 100
"""Rows of the log and of the reports in one answer."""
CATCH_UP_SECONDS = 30.0
"""How often a cluster member reads the stored mutes and bans again, in case it missed an
administrator's broadcast (it did not answer in time: the answer's ``unanswered``)."""



# ---------------------------------------------------------------------- bodies
class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class NameBody(_Body):
    """``POST /api/admin/unmute``, ``/ban``, ``/unban``: the account named."""

    name: str = Field(min_length=1, max_length=40)


class MuteBody(NameBody):
    """``POST /api/admin/mute``."""

    minutes: int = Field(ge=1, le=MAX_MUTE_MINUTES)


class TableBody(_Body):
    """``POST /api/admin/close``: the table named."""

    table_id: str = Field(min_length=1, max_length=32)


class KickBody(TableBody):
    """``POST /api/admin/kick``."""

    seat: int = Field(ge=0, le=3)


Named = TypeVar("Named", bound=NameBody)
Tabled = TypeVar("Tabled", bound=TableBody)


class NoticeBody(_Body):
    """``POST /api/admin/notice``."""

    text: str = Field(max_length=4 * NOTICE_MAX_CHARS)


class HandledBody(_Body):
    """``POST /api/admin/reports/handled``."""

    id: int = Field(ge=1, le=MAX_INT)


class ReportBody(_Body):
    """``POST /api/reports``: a chat line (its author's name and text as chat showed them);
    a guest names its seat by its token."""

    table_id: str = Field(min_length=1, max_length=32)
    author: str = Field(min_length=1, max_length=40)
    text: str = Field(min_length=1, max_length=1000)
    token: str | None = Field(default=None, max_length=128)


# ---------------------------------------------------------------------- helpers
AdminHandler = Callable[[Request, Account], Awaitable[Response]]


def admin_only(handler: AdminHandler) -> Callable[[Request], Awaitable[Response]]:
    """The route: 401 for a guest, 403 for an account that is not an administrator, else
    ``handler`` with the administrator's account."""
    async def route(request: Request) -> Response:
        account = await current_account(request)
        if account is None:
            return error_response(401, "not_logged_in", "log in as an administrator first")
        if not account.admin:
            return error_response(403, "forbidden", "only administrators may do this")
        return await handler(request, account)
    route.__name__ = handler.__name__
    route.__doc__ = handler.__doc__
    return route


async def _account_named(request: Request, name: str) -> StoredAccount | JSONResponse:
    server = server_of(request)
    key = name_key(name)
    found = await in_thread(lambda: server.accounts.by_key(key))
    if found is None:
        return error_response(404, "not_found", f"no account is called {name!r}", "name")
    return found


async def _named_account(request: Request, model: type[Named]
                         ) -> tuple[Named, StoredAccount] | JSONResponse:
    """The request's body and the account it names, or the error answer."""
    body = await read_body(request, model)
    if isinstance(body, JSONResponse):
        return body
    target = await _account_named(request, body.name)
    if isinstance(target, JSONResponse):
        return target
    return body, target


async def _named_table(request: Request, model: type[Tabled]
                       ) -> tuple[Tabled, TableWriter] | Response:
    """The request's body and the table it names, or the error answer; the answer of the
    table's owner when another process plays it."""
    body = await read_body(request, model)
    if isinstance(body, JSONResponse):
        return body
    at_owner_answer = await owner_answer(request, body.table_id)
    if at_owner_answer is not None:
        return at_owner_answer
    writer = await server_of(request).lobby.load(body.table_id)
    if writer is None:
        return error_response(404, "not_found", f"no table {body.table_id!r}", "table_id")
    return body, writer


async def _commit(request: Request, ops: list[WriteOp],
                  table_id: str | None = None) -> JSONResponse | None:
    """Commit ``ops`` (of ``table_id``'s, fenced by its lease in a cluster, if given)."""
    try:
        await server_of(request).committer.commit(ops, table_id)
    except CommitFailed as exc:
        return error_response(503, "storage", str(exc))
    return None


async def _everywhere(server: Server, method: str, args: dict[str, Any]
                      ) -> tuple[list[dict[str, Any]], dict[str, int | None]]:
    """The other cluster members' answers to ``method``, and how many processes answered:
    ``{"processes": this one and those that answered, "unanswered": those asked that did not
    answer in time}`` (``None`` when Redis could not be asked); one process: none, ``{}``."""
    node = server.cluster
    if node is None:
        return [], {}
    try:
        answers, asked = await node.broadcast(method, args)
    except Exception as exc:  # Redis away: this process's part is done all the same
        log.warning("admin %s: the other server processes could not be asked (%s: %s)",
                    method, type(exc).__name__, exc)
        return [], {"processes": 1, "unanswered": None}
    found = [a["ok"] for a in answers if isinstance(a.get("ok"), dict)]
    return found, {"processes": 1 + len(found), "unanswered": asked - len(found)}


def _limit(request: Request) -> tuple[int, int | None] | JSONResponse:
    try:
        limit = int(request.query_params.get("limit", PAGE))
        before_text = request.query_params.get("before")
        before = None if before_text is None else int(before_text)
    except ValueError:
        return error_response(400, "bad_request", "limit and before are whole numbers")
    if not 1 <= limit <= PAGE:
        return error_response(400, "bad_request", f"limit: 1 to {PAGE}", "limit")
    if before is not None and not 1 <= before <= MAX_INT:
        return error_response(400, "bad_request", f"before: 1 to {MAX_INT}", "before")
    return limit, before


# ---------------------------------------------------------------------- admin routes
async def tables(request: Request, _admin: Account) -> Response:
    """``GET /api/admin/tables``: every table in memory, seats with their accounts."""
    server = server_of(request)
    found = await _tables_here(server)
    others, processes = await _everywhere(server, "admin.tables", {})
    seen = {entry["id"] for entry in found}
    for answer in others:
        for entry in answer.get("tables") or []:
            if isinstance(entry, dict) and entry.get("id") not in seen:
                seen.add(entry.get("id"))
                found.append(entry)
    if others:  # newest first across the processes (the ISO times sort as text)
        found.sort(key=lambda e: str(e.get("created_at", "")), reverse=True)
    return JSONResponse({"tables": found, **processes})


async def _tables_here(server: Server) -> list[dict[str, Any]]:
    ids = moderation.seated_accounts(server.lobby)
    names = await in_thread(lambda: moderation.account_names(server.accounts.engine, ids))
    return moderation.live_tables(server.lobby, names)


async def account(request: Request, _admin: Account) -> Response:
    """``GET /api/admin/accounts/{name}``: an account's standing and its seats at live
    tables."""
    target = await _account_named(request, request.path_params["name"])
    if isinstance(target, JSONResponse):
        return target
    server = server_of(request)
    lobby = server.lobby
    seats = _seats_here(lobby, target.id)
    others, processes = await _everywhere(server, "admin.seats", {"account_id": target.id})
    for answer in others:
        seats.extend(s for s in answer.get("seats") or [] if isinstance(s, dict))
    muted_until = lobby.mutes.until(target.id)
    return JSONResponse({
        "name": target.name, "role": target.role, "created_at": _iso(target.created_at),
        "banned_at": None if target.banned_at is None else _iso(target.banned_at),
        "muted_until": None if muted_until is None else _iso(muted_until), "seats": seats,
        **processes})


def _seats_here(lobby: Lobby, account_id: int) -> list[dict[str, Any]]:
    return [{"table_id": w.table.id, "seat": s.seat, "status": w.table.status,
             "kicked": s.token_hash == REVOKED_TOKEN}
            for w in lobby.writers.values() for s in w.table.seats
            if s.account_id == account_id]


async def kick(request: Request, admin: Account) -> Response:
    """``POST /api/admin/kick {table_id, seat}``: take a seat from its player."""
    found = await _named_table(request, KickBody)
    if isinstance(found, Response):
        return found
    body, writer = found
    seats = writer.table.seats
    if body.seat >= len(seats):
        return error_response(400, "bad_request", f"seat: this table has seats 0 to "
                              f"{len(seats) - 1}", "seat")
    seat = seats[body.seat]
    entry = moderation.log_row(admin.id, "kick", seat.account_id, body.table_id,
                               f"seat {body.seat} ({seat.name})")
    try:
        emptied = await writer.kick(body.seat, moderation.KICK_REASON, [entry])
    except LookupError as exc:
        if exc.args[0] == "table_stopped":
            return error_response(409, "table_stopped", "the table was stopped already",
                                  "table_id")
        return error_response(409, "not_seated", f"no player sits in seat {body.seat}",
                              "seat")
    except CommitFailed as exc:
        return error_response(503, "storage", str(exc))
    log.info("admin %d kicked seat %d of table %s", admin.id, body.seat, body.table_id,
             extra={"event": "admin_kick", "table": body.table_id, "seat": body.seat})
    return JSONResponse({"table_id": body.table_id, "seat": body.seat, "emptied": emptied})


async def mute(request: Request, admin: Account) -> Response:
    """``POST /api/admin/mute {name, minutes}``: the account's chat lines are refused."""
    found = await _named_account(request, MuteBody)
    if isinstance(found, JSONResponse):
        return found
    body, target = found
    until = utcnow() + timedelta(minutes=body.minutes)
    failed = await _commit(request, [*moderation.mute_ops(admin.id, target.id, until,
                                                          f"{body.minutes} min")])
    if failed is not None:
        return failed
    processes = await _mute_everywhere(server_of(request), target.id, until)
    return JSONResponse({"name": target.name, "muted_until": _iso(until), **processes})


async def unmute(request: Request, admin: Account) -> Response:
    """``POST /api/admin/unmute {name}``."""
    found = await _named_account(request, NameBody)
    if isinstance(found, JSONResponse):
        return found
    _, target = found
    failed = await _commit(request, [*moderation.mute_ops(admin.id, target.id, None, "")])
    if failed is not None:
        return failed
    processes = await _mute_everywhere(server_of(request), target.id, None)
    return JSONResponse({"name": target.name, "muted_until": None, **processes})


async def _mute_everywhere(server: Server, account_id: int, until: datetime | None
                           ) -> dict[str, int | None]:
    """The chat of every process's tables refuses the account's lines until ``until``."""
    server.lobby.mutes.set(account_id, until)
    _, processes = await _everywhere(server, "admin.mute", {
        "account_id": account_id, "until": None if until is None else until.isoformat()})
    return processes


async def ban(request: Request, admin: Account) -> Response:
    """``POST /api/admin/ban {name}``: sessions ended, sockets closed, seats played by the
    computer, at once."""
    found = await _named_account(request, NameBody)
    if isinstance(found, JSONResponse):
        return found
    _, target = found
    if target.id == admin.id:
        return error_response(400, "bad_request", "you cannot ban yourself", "name")
    if target.banned:
        return error_response(409, "already_banned", f"{target.name} is banned already",
                              "name")
    failed = await _commit(request, [*moderation.ban_ops(admin.id, target.id, True)])
    if failed is not None:
        return failed
    server = server_of(request)
    closed = await moderation.remove_account(server.lobby, target.id, moderation.BAN_REASON)
    others, processes = await _everywhere(server, "admin.remove", {"account_id": target.id})
    closed += sum(int(answer.get("closed", 0)) for answer in others)
    log.info("admin %d banned account %d", admin.id, target.id,
             extra={"event": "admin_ban", "account": target.id})
    return JSONResponse({"name": target.name, "banned": True, "connections_closed": closed,
                         **processes})


async def unban(request: Request, admin: Account) -> Response:
    """``POST /api/admin/unban {name}``."""
    found = await _named_account(request, NameBody)
    if isinstance(found, JSONResponse):
        return found
    _, target = found
    if not target.banned:
        return error_response(409, "not_banned", f"{target.name} is not banned", "name")
    failed = await _commit(request, [*moderation.ban_ops(admin.id, target.id, False)])
    if failed is not None:
        return failed
    server = server_of(request)
    moderation.unban_here(server.lobby, target.id)
    _, processes = await _everywhere(server, "admin.unban", {"account_id": target.id})
    return JSONResponse({"name": target.name, "banned": False, **processes})


async def close_account_everywhere(server: Server, account_id: int, reason: str,
                                   keep_session: str | None = None) -> int:
    """Close the account's sockets on every process (but those of the session of hash
    ``keep_session``): a log-out everywhere, a password change. How many were closed."""
    closed = moderation.close_account_sockets(server.lobby, account_id, reason, keep_session)
    others, _ = await _everywhere(server, "account.close", {
        "account_id": account_id, "reason": reason, "keep_session": keep_session})
    return closed + sum(int(answer.get("closed", 0)) for answer in others)


async def close(request: Request, admin: Account) -> Response:
    """``POST /api/admin/close {table_id}``: the table stops for good (pool refunded)."""
    found = await _named_table(request, TableBody)
    if isinstance(found, Response):
        return found
    body, writer = found
    try:
        await writer.close_for_good([moderation.log_row(admin.id, "close", None,
                                                        body.table_id)])
    except LookupError:
        return error_response(409, "table_stopped", "the table was stopped already",
                              "table_id")
    except CommitFailed as exc:
        return error_response(503, "storage", str(exc))
    message = notice_message("an administrator closed this table")
    for conn in list(writer.connections):
        conn.send(message)
    log.info("admin %d closed table %s", admin.id, body.table_id,
             extra={"event": "admin_close", "table": body.table_id})
    return JSONResponse({"table_id": body.table_id, "status": writer.table.status})


async def notice(request: Request, admin: Account) -> Response:
    """``POST /api/admin/notice {text}``: a notice to every connection of every table."""
    body = await read_body(request, NoticeBody)
    if isinstance(body, JSONResponse):
        return body
    try:
        text = clean_text(body.text, NOTICE_MAX_CHARS)
    except MessageError as exc:
        return error_response(400, "bad_request",
                              "text: " + str(exc).replace("chat message", "notice"), "text")
    failed = await _commit(request, [moderation.log_row(admin.id, "notice", detail=text)])
    if failed is not None:
        return failed
    server = server_of(request)
    sent = moderation.send_notice(server.lobby, text)
    others, processes = await _everywhere(server, "admin.notice", {"text": text})
    sent += sum(int(answer.get("sent", 0)) for answer in others)
    return JSONResponse({"sent": sent, **processes})


async def _page(request: Request, key: str,
                read: Callable[[Engine, int, int | None], list[dict[str, Any]]]) -> Response:
    """A page of rows, newest first: ``{key: rows}`` (``?limit=N&before=ID``)."""
    page = _limit(request)
    if isinstance(page, JSONResponse):
        return page
    engine = server_of(request).accounts.engine
    return JSONResponse({key: await in_thread(read, engine, *page)})


async def moderation_log(request: Request, _admin: Account) -> Response:
    """``GET /api/admin/log[?limit=N&before=ID]``: newest first."""
    return await _page(request, "log", moderation.read_log)


async def reports(request: Request, _admin: Account) -> Response:
    """``GET /api/admin/reports[?limit=N&before=ID]``: newest first."""
    return await _page(request, "reports", moderation.read_reports)


async def handled(request: Request, admin: Account) -> Response:
    """``POST /api/admin/reports/handled {id}``: a report was dealt with."""
    body = await read_body(request, HandledBody)
    if isinstance(body, JSONResponse):
        return body
    engine = server_of(request).accounts.engine
    if not await in_thread(lambda: moderation.report_exists(engine, body.id)):
        return error_response(404, "not_found", f"no report {body.id}", "id")
    failed = await _commit(request, [moderation.mark_handled(body.id), moderation.log_row(
        admin.id, "handled", detail=f"report {body.id}")])
    if failed is not None:
        return failed
    return JSONResponse({"id": body.id, "handled": True})


# ---------------------------------------------------------------------- players' reports
async def report(request: Request) -> Response:
    """``POST /api/reports {table_id, author, text[, token]}``: report a chat line said at
    that table recently, as a logged-in account or as the seat of ``token``."""
    body = await read_body(request, ReportBody)
    if isinstance(body, JSONResponse):
        return body
    at_owner_answer = await owner_answer(request, body.table_id)
    if at_owner_answer is not None:
        return at_owner_answer
    server = server_of(request)
    writer = server.lobby.get(body.table_id)
    if writer is None:
        return error_response(404, "not_found", f"no table {body.table_id!r}", "table_id")
    account = await current_account(request)
    seat = None if body.token is None else seat_for_token(writer.table.seats, body.token)
    reporter_id: int | None
    engine = server.accounts.engine
    if seat is not None and seat.account_id is not None:  # an account's seat: the account
        reporter_id, reporter_name = seat.account_id, seat.name or f"seat {seat.seat}"
        once = key = f"a{seat.account_id}"
    elif account is not None:
        reporter_id, reporter_name, key = account.id, account.name, f"a{account.id}"
        once = key
        sits = any(s.account_id == account.id for s in writer.table.seats)
        if not sits and not await in_thread(moderation.sat_at, engine, body.table_id,
                                            account.id):
            return error_response(403, "forbidden", "only the table's players report its "
                                  "chat: you never sat at this table", "table_id")
    elif seat is not None:
        reporter_id, reporter_name = None, seat.name or f"seat {seat.seat}"
        key, once = f"s{body.table_id}/{seat.seat}", f"s{seat.seat}"
    else:
        return error_response(401, "not_logged_in", "log in, or report from your seat "
                              "(its token), to report a chat message")
    quota = _report_quota(server)
    for limit in (quota.get(key), quota.get(client_address(request))):
        if not limit.allow():
            return too_many("rate_limited", f"at most {REPORTS_PER_WINDOW} reports in "
                            f"{REPORT_WINDOW_SECONDS / 60:g} minutes", wait_seconds(limit))
    line = writer.recent_chat.find(body.author, body.text)
    if line is None:
        return error_response(404, "not_found", f"{body.author!r} said no such line at this "
                              "table recently", "text")
    if await in_thread(moderation.reported_before, engine, body.table_id, line.seq, once):
        return _already_reported()
    failed = await _commit(request, [*moderation.report_ops(moderation.Report(
        reporter_id, reporter_name, body.table_id, line.name, line.account_id, line.text,
        line.seq, once))], body.table_id)
    if failed is not None:  # reported meanwhile by the same reporter (another request)?
        if await in_thread(moderation.reported_before, engine, body.table_id, line.seq, once):
            return _already_reported()
        return failed
    return JSONResponse({"reported": True}, status_code=201)


def _already_reported() -> JSONResponse:
    return error_response(409, "already_reported", "you reported this chat message already",
                          "text")


def _report_quota(server: Server) -> KeyedLimits:
    quota = server.extra.get("report_quota")
    if not isinstance(quota, KeyedLimits):
        quota = server.extra["report_quota"] = KeyedLimits(REPORTS_PER_WINDOW,
                                                           REPORT_WINDOW_SECONDS)
    return quota


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")


ADMIN_ROUTES: list[BaseRoute] = [
    Route("/api/admin/tables", admin_only(tables), methods=["GET"]),
    Route("/api/admin/accounts/{name}", admin_only(account), methods=["GET"]),
    Route("/api/admin/kick", at_owner("admin.kick", admin_only(kick)), methods=["POST"]),
    Route("/api/admin/mute", admin_only(mute), methods=["POST"]),
    Route("/api/admin/unmute", admin_only(unmute), methods=["POST"]),
    Route("/api/admin/ban", admin_only(ban), methods=["POST"]),
    Route("/api/admin/unban", admin_only(unban), methods=["POST"]),
    Route("/api/admin/close", at_owner("admin.close", admin_only(close)), methods=["POST"]),
    Route("/api/admin/notice", admin_only(notice), methods=["POST"]),
    Route("/api/admin/log", admin_only(moderation_log), methods=["GET"]),
    Route("/api/admin/reports", admin_only(reports), methods=["GET"]),
    Route("/api/admin/reports/handled", admin_only(handled), methods=["POST"]),
]
"""Every route under ``/api/admin/``: an administrator's only."""

ROUTES: list[BaseRoute] = [
    *ADMIN_ROUTES,
    Route("/api/reports", at_owner("report", report), methods=["POST"]),
    *metrics.ROUTES,
]


def install(server: Server) -> None:
    """Start the metrics and load the accounts muted now into the chat's mutes; in a cluster,
    answer the other members' requests (forwarded routes, and the admin actions on every
    process's tables)."""
    metrics.install(server)
    for account_id, until in moderation.muted_accounts(server.accounts.engine).items():
        server.lobby.mutes.set(account_id, until)
    server.lobby.restrictions.replace_bans(moderation.all_banned(server.accounts.engine))
    forwarding.install(server)
    node = server.cluster
    if node is None:
        return
    lobby = server.lobby

    async def tables_here(_args: dict[str, Any]) -> dict[str, Any]:
        return {"ok": {"tables": await _tables_here(server)}}

    async def seats_here(args: dict[str, Any]) -> dict[str, Any]:
        return {"ok": {"seats": _seats_here(lobby, int(args["account_id"]))}}

    async def mute_here(args: dict[str, Any]) -> dict[str, Any]:
        until = args.get("until")
        lobby.mutes.set(int(args["account_id"]),
                        None if until is None else as_utc(datetime.fromisoformat(str(until))))
        return {"ok": {}}

    async def remove_here(args: dict[str, Any]) -> dict[str, Any]:
        closed = await moderation.remove_account(lobby, int(args["account_id"]),
                                                 moderation.BAN_REASON)
        return {"ok": {"closed": closed}}

    async def notice_here(args: dict[str, Any]) -> dict[str, Any]:
        return {"ok": {"sent": moderation.send_notice(lobby, str(args["text"]))}}

    async def unban_here(args: dict[str, Any]) -> dict[str, Any]:
        moderation.unban_here(lobby, int(args["account_id"]))
        return {"ok": {}}

    async def close_here(args: dict[str, Any]) -> dict[str, Any]:
        keep = args.get("keep_session")
        return {"ok": {"closed": moderation.close_account_sockets(
            lobby, int(args["account_id"]), str(args["reason"]),
            None if keep is None else str(keep))}}

    node.handlers.update({"admin.tables": tables_here, "admin.seats": seats_here,
                          "admin.mute": mute_here, "admin.remove": remove_here,
                          "admin.notice": notice_here, "admin.unban": unban_here,
                          "account.close": close_here})
    engine = server.accounts.engine
    node.every(CATCH_UP_SECONDS, lambda: moderation.catch_up(lobby, engine),
               "moderation catch-up")
