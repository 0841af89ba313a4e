"""The tournaments' JSON routes (docs/tournaments.md), and the driver started with the server.

- ``GET /api/tournaments?status=upcoming|running|finished``: the list (default: all three);
- ``GET /api/tournaments/{id}``: one tournament, its players, its rounds' matches (each with
  its table and, once finished, its replay) and its bracket or standings;
- ``POST /api/tournaments``: create one (administrators; any account when the
  ``tournaments_by_anyone`` setting is on);
- ``POST /api/tournaments/{id}/register`` and ``.../withdraw``: the logged-in account, with
  its buy-in paid or refunded in the same transaction;
- ``POST /api/tournaments/{id}/cancel``: an administrator cancels it (every buy-in back).

Errors use the body of docs/protocol.md: 401 ``not_logged_in``, 403 ``forbidden``, 404
``not_found``, 409 for a change the tournament refuses (``wrong_status``, ``full``,
``already_registered``, ``not_registered``, ``not_enough_chips``), 422 for a bad field.
"""

from __future__ import annotations

import re
import secrets
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select
from sqlalchemy.engine import Connection
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from ginrummy.contest import ArenaSeries, ContestError, Knockout, Swiss, from_json
from ginrummy.rules import PRESETS, Format, Ruleset, RulesetError
from ginrummy.server.cluster.duty import TOURNAMENTS_DUTY, DutyLease
from ginrummy.server.http.common import (
    Server,
    error_response,
    in_thread,
    read_account_body,
    server_of,
)
from ginrummy.server.http.friends_api import HUB_KEY
from ginrummy.server.players.friends import FriendsHub
from ginrummy.server.players.tournamentpush import TournamentPush
from ginrummy.server.players.tournaments import LobbyTables, TournamentDriver
from ginrummy.storage import tournaments
from ginrummy.storage.ledger import Overdraft
from ginrummy.storage.models import AccountRow, MatchRow
from ginrummy.storage.models import TableRow as GameTableRow
from ginrummy.storage.repository import utcnow

TOURNAMENT_ID = re.compile(r"[A-Za-z0-9_-]{1,16}")
"""What a tournament id may look like (anything else is not looked up: 404)."""

LISTS = {"upcoming": ("open",), "running": ("running",), "finished": ("over", "cancelled")}
"""The lists of ``GET /api/tournaments`` and the statuses each holds."""

REFUSALS: dict[type[Exception], tuple[int, str]] = {
    tournaments.NoSuchTournament: (404, "not_found"),
    tournaments.WrongStatus: (409, "wrong_status"),
    tournaments.TournamentFull: (409, "full"),
    tournaments.AlreadyRegistered: (409, "already_registered"),
    tournaments.NotRegistered: (409, "not_registered"),
    Overdraft: (409, "not_enough_chips"),
}


class NewTournament(BaseModel):
    """The body of ``POST /api/tournaments``."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=80)
    format: Literal["knockout", "swiss", "arena"]
    preset: str
    options: dict[str, Any] = Field(default_factory=dict)
    starts_at: datetime
    min_players: int = Field(ge=2, le=512)
    max_players: int = Field(ge=2, le=512)
    clock_seconds: float = Field(gt=0)
    rounds: int | None = Field(default=None, ge=1, le=64)
    buy_in: int | None = Field(default=None, ge=1, le=1_000_000)


class NoFields(BaseModel):
    """An empty JSON object."""

    model_config = ConfigDict(extra="forbid", strict=True)


def _refusal(exc: Exception) -> JSONResponse:
    for kind, (status, code) in REFUSALS.items():
        if isinstance(exc, kind):
            return error_response(status, code, str(exc))
    return error_response(422, "bad_request", str(exc))


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat().replace("+00:00", "Z")


def _summary(t: tournaments.StoredTournament, players: int) -> dict[str, Any]:
    s = t.settings
    return {"id": t.id, "name": s.name, "format": s.format, "preset": s.preset,
            "status": t.status, "starts_at": _iso(s.starts_at), "players": players,
            "min_players": s.min_players, "max_players": s.max_players,
            "clock_seconds": s.clock_ms / 1000, "rounds": s.rounds, "buy_in": s.buy_in,
            "pool": t.pool}


def _listing(conn: Connection, statuses: tuple[str, ...]) -> list[dict[str, Any]]:
    return [_summary(t, len(tournaments.registrations(conn, t.id)))
            for t in tournaments.listing(conn, statuses)]


def _standings(state: Any) -> dict[str, Any]:
    """The bracket (knock-out) or the standings (Swiss, arena series) of a format's state."""
    try:
        contest = from_json(state)
    except ContestError:
        return {}
    if isinstance(contest, Knockout):
        return {"bracket": [[{"players": list(m.players), "winner": m.winner}
                             for m in contest.matches(r)] for r in range(contest.rounds)
                            if _known(contest, r)],
                "champion": contest.champion}
    if isinstance(contest, Swiss):
        return {"standings": [{"account_id": p, "score": contest.score(p),
                               "buchholz": contest.buchholz(p)}
                              for p in contest.standings()]}
    assert isinstance(contest, ArenaSeries)
    return {"standings": [{"account_id": p, "points": contest.points(p),
                           "wins": contest.wins(p)} for p in contest.standings()]}


def _known(contest: Knockout, round: int) -> bool:
    try:
        return bool(contest.matches(round))
    except ContestError:
        return False


def _detail(conn: Connection, tournament_id: str) -> dict[str, Any] | None:
    t = tournaments.get(conn, tournament_id)
    if t is None:
        return None
    regs = tournaments.registrations(conn, tournament_id, ("registered", "refunded"))
    accounts = AccountRow.__table__
    ids = {r.account_id for r in regs}
    names = {r.id: r.name for r in conn.execute(
        select(accounts.c.id, accounts.c.name).where(accounts.c.id.in_(list(ids))))}
    matches = tournaments.matches(conn, tournament_id)
    table_ids = [m.table_id for m in matches if m.table_id]
    records = MatchRow.__table__
    replays = {r.table_id: r.id for r in conn.execute(
        select(records.c.table_id, records.c.id).where(records.c.table_id.in_(table_ids))
        .order_by(records.c.id))}
    stored_tables = GameTableRow.__table__
    opened = set(conn.execute(select(stored_tables.c.id).where(
        stored_tables.c.id.in_(table_ids))).scalars())
    rounds: dict[int, list[dict[str, Any]]] = {}
    for m in matches:
        finished = m.status in ("done", "forfeit")
        replay = replays.get(m.table_id) if finished and m.table_id else None
        rounds.setdefault(m.round, []).append({
            "slot": m.slot, "players": list(m.players), "status": m.status,
            # named once it is open: a match is linked to its table just before it opens
            "table_id": m.table_id if m.table_id in opened else None,
            "winner": m.winner if finished else None,
            "result": m.result, "replay": None if replay is None else f"/replay/{replay}"})
    return {**_summary(t, sum(r.status == "registered" for r in regs)),
            "registrations": [{"account_id": r.account_id,
                               "name": names.get(r.account_id, ""), "status": r.status,
                               "rating": r.rating, "place": r.place, "prize": r.prize}
                              for r in regs],
            "rounds": [{"round": n, "matches": rounds[n]} for n in sorted(rounds)],
            **(_standings(t.state) if t.state is not None else {})}


async def list_tournaments(request: Request) -> JSONResponse:
    """``GET /api/tournaments?status=...`` → ``{"upcoming": [...], "running": [...],
    "finished": [...]}`` (only the asked list with ``status``)."""
    asked = request.query_params.get("status")
    if asked is not None and asked not in LISTS:
        return error_response(400, "bad_request", f"status: one of {', '.join(LISTS)}",
                              "status")
    server = server_of(request)
    wanted = [asked] if asked else list(LISTS)

    def read() -> dict[str, Any]:
        with server.repository.engine.connect() as conn:
            return {name: _listing(conn, LISTS[name]) for name in wanted}
    return JSONResponse(await in_thread(read))


async def get_tournament(request: Request) -> JSONResponse:
    """``GET /api/tournaments/{id}``: the tournament in full (404 ``not_found``)."""
    server = server_of(request)
    tournament_id = request.path_params["tournament_id"]
    if not TOURNAMENT_ID.fullmatch(tournament_id):
        return error_response(404, "not_found", "no such tournament")

    def read() -> dict[str, Any] | None:
        with server.repository.engine.connect() as conn:
            return _detail(conn, tournament_id)
    found = await in_thread(read)
    if found is None:
        return error_response(404, "not_found", f"no tournament {tournament_id!r}")
    return JSONResponse(found)


async def create_tournament(request: Request) -> JSONResponse:
    """``POST /api/tournaments`` (body :class:`NewTournament`) → 201 and the tournament."""
    found = await read_account_body(request, NewTournament, "log in to create a tournament")
    if isinstance(found, JSONResponse):
        return found
    body, account = found
    server = server_of(request)
    if not account.admin and not server.settings.tournaments_by_anyone:
        return error_response(403, "forbidden", "only administrators create tournaments")
    if body.preset.lower() not in PRESETS:
        return error_response(422, "bad_request", f"preset: unknown preset {body.preset!r}; "
                              f"known: {', '.join(PRESETS)}", "preset")
    try:
        rules = Ruleset.preset(body.preset.lower(), **body.options)
    except (RulesetError, TypeError, ValueError) as exc:
        return error_response(422, "bad_request", f"options: {exc}", "options")
    if body.format != "arena" and rules.players != 2:
        return error_response(422, "bad_request", "options: knock-out and Swiss matches are "
                              "for 2 players", "options")
    if body.format == "arena":  # tables of 3 and 4 playing single hands (R6)
        try:
            seated = [Ruleset.preset(body.preset.lower(), **{**body.options, "players": n})
                      for n in (3, 4)]
        except (RulesetError, TypeError, ValueError) as exc:
            return error_response(422, "bad_request", f"options: {exc}", "options")
        if any(r.format is not Format.SINGLE_HAND for r in seated):
            return error_response(422, "bad_request", "preset: an arena series plays single "
                                  "hands at tables of 3 and 4 (the arena preset)", "preset")
    clock = body.clock_seconds
    if not server.settings.min_clock_seconds <= clock <= server.settings.max_clock_seconds:
        return error_response(422, "bad_request", f"clock_seconds: {clock:g}; a tournament "
                              f"needs a turn clock of {server.settings.min_clock_seconds:g} "
                              f"to {server.settings.max_clock_seconds:g}", "clock_seconds")
    starts_at = body.starts_at if body.starts_at.tzinfo else body.starts_at.replace(tzinfo=UTC)
    if starts_at <= utcnow():
        return error_response(422, "bad_request", "starts_at: the start must be in the future",
                              "starts_at")
    settings = tournaments.TournamentSettings(
        name=body.name, format=body.format, preset=body.preset.lower(),
        rules=rules.to_dict(), starts_at=starts_at, min_players=body.min_players,
        max_players=body.max_players, clock_ms=round(clock * 1000), rounds=body.rounds,
        buy_in=body.buy_in, created_by=account.id)
    try:
        settings.check()
    except tournaments.TournamentError as exc:
        return error_response(422, "bad_request", str(exc))
    tournament_id = secrets.token_urlsafe(6)
    store = tournaments.TournamentStore(server.repository.engine)
    await in_thread(store.create, tournament_id, settings)

    def read() -> dict[str, Any] | None:
        with server.repository.engine.connect() as conn:
            return _detail(conn, tournament_id)
    return JSONResponse(await in_thread(read), status_code=201)


async def _change(request: Request, admin: bool, change: str) -> JSONResponse:
    found = await read_account_body(request, NoFields, "log in first")
    if isinstance(found, JSONResponse):
        return found
    _, account = found
    if admin and not account.admin:
        return error_response(403, "forbidden", "only administrators cancel tournaments")
    server = server_of(request)
    store = tournaments.TournamentStore(server.repository.engine)
    tournament_id = request.path_params["tournament_id"]
    if not TOURNAMENT_ID.fullmatch(tournament_id):
        return error_response(404, "not_found", "no such tournament")
    try:
        if change == "register":
            await in_thread(store.register, tournament_id, account.id)
            answer: dict[str, Any] = {"registered": True}
        elif change == "withdraw":
            answer = {"registered": False,
                      "refunded": await in_thread(store.withdraw, tournament_id, account.id)}
        else:
            refunds = await in_thread(store.cancel, tournament_id)
            answer = {"cancelled": True, "refunded": sum(refunds.values())}
            tables = LobbyTables(server.lobby)  # its matches' tables held here close
            for m in await in_thread(store.matches, tournament_id):
                if m.table_id and m.status in tournaments.OPEN_MATCH:
                    await tables.close(m.table_id)
    except (tournaments.TournamentError, Overdraft) as exc:
        return _refusal(exc)
    return JSONResponse(answer)


async def register(request: Request) -> JSONResponse:
    """``POST /api/tournaments/{id}/register {}``: the buy-in paid (409 when it cannot)."""
    return await _change(request, False, "register")


async def withdraw(request: Request) -> JSONResponse:
    """``POST /api/tournaments/{id}/withdraw {}`` → ``{"refunded": chips}``."""
    return await _change(request, False, "withdraw")


async def cancel(request: Request) -> JSONResponse:
    """``POST /api/tournaments/{id}/cancel {}`` (administrators): every buy-in back."""
    return await _change(request, True, "cancel")


ROUTES: list[BaseRoute] = [
    Route("/api/tournaments", list_tournaments, methods=["GET"]),
    Route("/api/tournaments", create_tournament, methods=["POST"]),
    Route("/api/tournaments/{tournament_id}", get_tournament, methods=["GET"]),
    Route("/api/tournaments/{tournament_id}/register", register, methods=["POST"]),
    Route("/api/tournaments/{tournament_id}/withdraw", withdraw, methods=["POST"]),
    Route("/api/tournaments/{tournament_id}/cancel", cancel, methods=["POST"]),
]


def install(server: Server) -> None:
    """Hook the driver into every table's end, its news into the account push sockets (the
    friends hub's, when installed), and start it ticking."""
    engine = server.repository.engine
    lease = None if server.cluster is None else DutyLease(
        server.cluster.leases, engine, TOURNAMENTS_DUTY, server.settings.lease_ttl_ms)
    driver = TournamentDriver(engine, LobbyTables(server.lobby),
                              server.settings.tournament_grace_seconds, lease=lease)
    driver.install(server.lobby.hooks)
    hub = server.extra.get(HUB_KEY)
    if isinstance(hub, FriendsHub):
        push = TournamentPush(hub, server.repository.engine)
        driver.on_ready.append(push.ready)
        driver.on_change.append(push.changed)
        hub.greeters.append(push.greet)
    server.extra["tournaments"] = driver
    driver.start(server.settings.tournament_tick_seconds)


async def shutdown(server: Server) -> None:
    """Stop the driver (its lease given back)."""
    driver = server.extra.get("tournaments")
    if isinstance(driver, TournamentDriver):
        await driver.stop()
