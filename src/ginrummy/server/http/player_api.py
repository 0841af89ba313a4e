"""Players: ratings, leaderboards, profiles, match history, replays and records
(docs/players.md).

``GET /api/leaderboard/{category}``, ``GET /api/players/{name}``,
``GET /api/players/{name}/matches?before=ID``, ``POST /api/seats/open`` (the games in
progress of a browser's seat tokens and of the logged-in account), ``GET /api/matches/{id}/replay``,
``GET /api/matches/{id}/record`` and the page ``GET /players/{name}``. Only finished matches
are stored, so none of these shows a card of a match being played. A replay or record is
built once, off the event loop, then served from a bounded cache; those two routes are
rate-limited per client address (docs/security.md, *Heavy routes*).
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from ginrummy.rules import Ruleset
from ginrummy.server.core.auth import secret_hash
from ginrummy.server.core.kinds import OPEN_STATUSES
from ginrummy.server.core.limits import KeyedLimits
from ginrummy.server.http import pages
from ginrummy.server.http.common import (
    client_address,
    error_response,
    in_thread,
    read_body,
    too_many,
    wait_seconds,
)
from ginrummy.server.http.static import accepts_gzip
from ginrummy.server.players.builtcache import BuiltCache, RecentRows
from ginrummy.server.players.matchrecord import match_end_writes
from ginrummy.server.players.names import name_key
from ginrummy.server.players.ratings import CATEGORIES
from ginrummy.server.players.replay import ReplayError, fair_entries, match_record, replay_match
from ginrummy.server.players.sessions import Account, account_store, current_account
from ginrummy.storage import players, tournaments
from ginrummy.storage.accounts import StoredAccount
from ginrummy.storage.fairseeds import StoredSeeds, load_match

if TYPE_CHECKING:
    from ginrummy.server.http.common import Server

LEADERBOARD_SIZE = 100
RECENT_MATCHES = 10
RECENT_TOURNAMENTS = 10
PAGE_SIZE = 50
MAX_NAME_CHARS = 64
PUBLIC_ID = re.compile(r"[A-Za-z0-9_-]{8,24}")
"""What a match's public id looks like (anything else is not looked up)."""





def _engine(request: Request) -> Any:
    return request.app.state.server.repository.engine


async def _account_named(request: Request, name: str) -> StoredAccount | None:
    if not name or len(name) > MAX_NAME_CHARS:
        return None
    key = name_key(name)
    store = account_store(request)
    return await in_thread(lambda: store.by_key(key))


def _not_found(what: str, field: str | None = None) -> JSONResponse:
    return error_response(404, "not_found", what, field)


# ----------------------------------------------------------------------------- leaderboards
async def leaderboard(request: Request) -> JSONResponse:
    """``GET /api/leaderboard/{category}``: the top 100 and the viewer's own line."""
    category = request.path_params["category"]
    if category not in CATEGORIES:
        return _not_found(f"no leaderboard {category!r}; known: {', '.join(CATEGORIES)}",
                          "category")
    engine = _engine(request)
    viewer = await current_account(request)
    viewer_id = None if viewer is None else viewer.id

    def read() -> tuple[list[players.BoardEntry], players.BoardEntry | None]:
        with engine.connect() as conn:
            top = players.leaderboard(conn, category, LEADERBOARD_SIZE)
            me = None if viewer_id is None else players.board_entry(conn, category, viewer_id)
        return top, me

    top, me = await in_thread(read)
    return JSONResponse({"category": category, "top": [e.to_json() for e in top],
                         "me": None if me is None else me.to_json()})


# ----------------------------------------------------------------------------- profiles
def _rate(part: int, whole: int) -> float | None:
    return None if whole == 0 else round(part / whole, 4)


def _stats(totals: dict[str, int]) -> dict[str, Any]:
    hands = totals["hands"]
    return {
        "matches": totals["matches"], "won": totals["won"], "hands": hands,
        "points_per_hand": _rate(totals["points"], hands),
        "gin_rate": _rate(totals["gins"], hands),
        "knock_rate": _rate(totals["knocks"], hands),
        "undercut_rate": _rate(totals["undercuts"], hands),
        "void_rate": _rate(totals["voids"], hands),
        "caught": totals["caught"],
        "average_deadwood_caught": (None if totals["caught"] == 0 else
                                    round(totals["caught_deadwood"] / totals["caught"], 2)),
    }


def _match_json(match: players.StoredMatch, account_id: int | None = None) -> dict[str, Any]:
    mine = next((s for s in match.seats if account_id is not None
                 and s.account_id == account_id), None)
    return {
        "id": match.public_id, "preset": match.preset, "category": match.category,
        "ending": match.ending, "finished_at": match.finished_at.isoformat(),
        "players": [{"seat": s.seat, "name": s.name, "account": s.account_id is not None,
                     "level": s.level, "score": s.score, "place": s.place,
                     "abandoned": s.abandoned,
                     "rating_before": _rounded(s.rating_before),
                     "rating_after": _rounded(s.rating_after)} for s in match.seats],
        "seat": None if mine is None else mine.seat,
        "place": None if mine is None else mine.place,
        "won": None if mine is None else (mine.place == 1 and not mine.abandoned),
    }


def _played_json(t: tournaments.PlayedTournament) -> dict[str, Any]:
    return {"id": t.id, "name": t.name, "format": t.format, "status": t.status,
            "starts_at": t.starts_at.isoformat().replace("+00:00", "Z"),
            "players": t.players, "place": t.place, "prize": t.prize}


def _tournaments_json(found: tournaments.AccountTournaments) -> dict[str, Any]:
    """A profile's ``tournaments``: how many played, the best finish, the latest ones."""
    return {"played": found.played,
            "best": None if found.best is None else _played_json(found.best),
            "recent": [_played_json(t) for t in found.recent]}


def _rounded(value: float | None) -> int | None:
    return None if value is None else round(value)


async def profile(request: Request) -> JSONResponse:
    """``GET /api/players/{name}``: ratings and ranks, rating history, statistics, recent
    matches, tournaments played and the best finish (404 for an unknown name)."""
    account = await _account_named(request, request.path_params["name"])
    if account is None:
        return _not_found("no player by that name", "name")
    engine = _engine(request)
    account_id = account.id

    viewer = await current_account(request)
    viewer_id, sees_all = _viewer(viewer, account_id)

    def read() -> tuple[Any, ...]:
        with engine.connect() as conn:
            return (players.account_ratings(conn, account_id),
                    players.rating_history(conn, account_id),
                    players.account_totals(conn, account_id),
                    players.account_matches(conn, account_id, limit=RECENT_MATCHES,
                                            viewer_id=viewer_id, sees_all=sees_all),
                    tournaments.account_tournaments(conn, account_id, RECENT_TOURNAMENTS))

    ratings, history, totals, recent, played = await in_thread(read)
    return JSONResponse({
        "name": account.name,
        "joined": account.created_at.isoformat(),
        "ratings": {c: {"rating": round(e.rating), "deviation": round(e.deviation),
                        "games": e.games, "rank": e.rank} for c, e in ratings.items()},
        "history": {c: [{"time": t.isoformat(), "rating": round(r)} for t, r in points]
                    for c, points in history.items()},
        "stats": _stats(totals),
        "recent": [_match_json(m, account_id) for m in recent],
        "tournaments": _tournaments_json(played),
    })


async def player_matches(request: Request) -> JSONResponse:
    """``GET /api/players/{name}/matches?before=ID``: every stored match of an account, newest
    first, 50 a page; ``next`` is the ``before`` of the next page (``null`` at the end)."""
    before_text = request.query_params.get("before")
    engine = _engine(request)
    before: int | None = None
    if before_text is not None:
        if before_text.isdigit() and len(before_text) <= 18:  # an older client's cursor
            before = int(before_text)
        elif PUBLIC_ID.fullmatch(before_text):
            cursor = await in_thread(players.match_by_public_id, engine, before_text)
            before = None if cursor is None else cursor.id
        if before is None:
            return error_response(400, "bad_request", "before must be a match id",
                                  "before")
    account = await _account_named(request, request.path_params["name"])
    if account is None:
        return _not_found("no player by that name", "name")
    account_id = account.id
    viewer_id, sees_all = _viewer(await current_account(request), account_id)
    found = await in_thread(lambda: players.account_matches(
        engine, account_id, before, PAGE_SIZE + 1, viewer_id, sees_all))
    page = found[:PAGE_SIZE]
    return JSONResponse({"name": account.name,
                         "matches": [_match_json(m, account_id) for m in page],
                         "next": page[-1].public_id if len(found) > PAGE_SIZE else None})


MAX_SEAT_TOKENS = 20


class _SeatToken(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    table_id: str = Field(min_length=1, max_length=32)
    token: str = Field(min_length=1, max_length=128)


class OpenSeatsQuery(BaseModel):
    """``POST /api/seats/open``: the seat tokens a browser keeps (at most 20)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    tokens: list[_SeatToken] = Field(default_factory=list, max_length=MAX_SEAT_TOKENS)


async def open_seats(request: Request) -> JSONResponse:
    """``POST /api/seats/open``: the seats at tables not over that the body's seat tokens
    and the logged-in account hold (every process's, from the database), newest first, so a
    game in progress is found again (the lobby's and the header's "Continue your game",
    *My matches*). A token proves its seat, so a private table is listed without its invite;
    a token that holds nothing is left out, never refused (a table gone, a game over). Only
    what the lobby shows of a table: its name, rules preset, status and who sits where."""
    body = await read_body(request, OpenSeatsQuery)
    if isinstance(body, JSONResponse):
        return body
    account = await current_account(request)
    engine = _engine(request)
    account_id = None if account is None else account.id
    tokens = [(t.table_id, secret_hash(t.token)) for t in body.tokens]
    found = await in_thread(lambda: players.open_seats(engine, account_id, tokens,
                                                       OPEN_STATUSES))
    return JSONResponse({"seats": [{
        "table_id": s.table_id, "seat": s.seat, "name": s.table_name, "preset": s.preset,
        "status": s.status, "public": s.public,
        "created_at": s.created_at.isoformat().replace("+00:00", "Z"),
        "seats": s.seats} for s in found]})


def _viewer(viewer: Account | None, account_id: int) -> tuple[int | None, bool]:
    """Who looks at ``account_id``'s matches: their account id, and whether they see its
    private tables' matches too (the account itself, an administrator)."""
    if viewer is None:
        return None, False
    return viewer.id, viewer.admin or viewer.id == account_id


async def replay_page(request: Request) -> Response:
    """``GET /replay/{id}``: the client's page; 404 for an unknown match, 403 for a private
    table's match the viewer did not play."""
    match = await find_match(request, request.path_params["match_id"])
    status = match.status_code if isinstance(match, Response) else 200
    return pages.index_page(request, status)


async def player_page(request: Request) -> Response:
    """``GET /players/{name}``: the client's page, 404 for an unknown name."""
    account = await _account_named(request, request.path_params["name"])
    return pages.index_page(request, 200 if account is not None else 404)


# ----------------------------------------------------------------------------- replays
REPLAY_LIMITS = "replay_limits"
"""Where :func:`install` keeps the per-address limit of the replay routes (``Server.extra``)."""
BUILT = "built_answers"
"""Where :func:`install` keeps the :class:`BuiltCache` of replays and records."""
MATCH_ROWS = "match_rows"
"""Where :func:`install` keeps the stored matches read lately (:class:`RecentRows`)."""
MATCH_ROW_SECONDS = 10.0
"""How long a finished match's row read for a replay serves other requests (its seats'
accounts change only when a guest's seat becomes an account's)."""


def _over_the_limit(request: Request) -> Response | None:
    """429 ``too_many_requests`` (with ``Retry-After``) when the client's address has asked
    for its replays and records of the window; else the request is counted, ``None``."""
    limits: KeyedLimits = request.app.state.server.extra[REPLAY_LIMITS]
    limit = limits.get(client_address(request))
    if limit.allow():
        return None
    wait = wait_seconds(limit)
    return too_many("too_many_requests", f"at most {limit.limit} replays and records in "
                    f"{limit.window:g} s from one address; try again in {wait} s", wait)


async def _match_row(request: Request, text: str) -> players.StoredMatch | None:
    """The stored match of a route's id (read lately, or from the database): its public id,
    or an older link's integer id, which opens a public table's match only."""
    rows: RecentRows[players.StoredMatch] = request.app.state.server.extra[MATCH_ROWS]
    match = rows.get(text)
    if match is not None:
        return match
    engine = _engine(request)
    if text.isdigit() and len(text) <= 18:
        match = await in_thread(players.match_by_id, engine, int(text))
        if match is not None and not match.public:
            match = None  # counting ids finds no private match
    elif PUBLIC_ID.fullmatch(text):
        match = await in_thread(players.match_by_public_id, engine, text)
    if match is not None:
        rows.put(text, match)
    return match


async def find_match(request: Request, text: str) -> players.StoredMatch | Response:
    """The stored match of a route's id, if the request may see it; else the answer (404
    for an unknown id, 403 for a private table's match asked by someone who did not play
    it). The id is the match's public id; an older link's integer id still opens a public
    table's match, never a private one's (404, as an unknown id: counting finds nothing)."""
    match = await _match_row(request, text)
    if match is None:
        return _not_found("no match with that id", "match_id")
    if not match.public:
        viewer = await current_account(request)
        if viewer is None or not (viewer.admin or any(
                s.account_id == viewer.id for s in match.seats)):
            return error_response(403, "forbidden", "this match was played at a private "
                                  "table: only its players see it (log in as one of them)",
                                  "match_id")
    return match


class _Gone(LookupError):
    """A stored match whose table is gone (404)."""


def replayed_match(engine: Any, match: players.StoredMatch
                   ) -> tuple[Any, list[Any], list[dict[str, Any] | None]]:
    """The match replayed from its stored events (in a thread, one connection for its events
    and its seeds): the final match, its steps and each hand's fair-deal seeds (docs/fair.md)
    by hand index; :class:`ReplayError` when they do not replay, ``LookupError`` when its
    table is gone."""
    with engine.connect() as conn:
        source = players.match_source(conn, match)
        if source is None:
            raise _Gone(match.id)
        stored: list[StoredSeeds] = load_match(conn, match.table_id, match.first_version,
                                               match.last_version)
    rules_dict, pool_chips, events = source
    try:
        rules = Ruleset.from_dict(rules_dict, name=match.preset)
    except ValueError as exc:
        raise ReplayError(str(exc)) from None
    replayed, steps = replay_match(rules, pool_chips, events)
    return replayed, steps, fair_entries(stored)


def _replay_body(engine: Any, match: players.StoredMatch) -> bytes:
    replayed, steps, fair = replayed_match(engine, match)
    return json.dumps({**_match_json(match), "rules": replayed.rules.to_dict(),
                       "first_dealer": replayed.first_dealer, "steps": steps,
                       "fair": fair},
                      ensure_ascii=False, separators=(",", ":")).encode()


def _record_body(engine: Any, match: players.StoredMatch) -> bytes:
    replayed, _steps, fair = replayed_match(engine, match)
    record_ = match_record(replayed, [s.name for s in match.seats], fair)
    return (record_.dumps() + "\n").encode()


async def _built(request: Request, kind: str) -> Response:
    """The replay or record answer of the path's match: rate-limited per address, built once
    off the event loop (:class:`BuiltCache`), gzipped when the client takes it."""
    refused = _over_the_limit(request)
    if refused is not None:
        return refused
    found = await find_match(request, request.path_params["match_id"])
    if isinstance(found, Response):
        return found
    match = found
    engine = _engine(request)
    make = _replay_body if kind == "replay" else _record_body
    cache: BuiltCache = request.app.state.server.extra[BUILT]
    try:
        # the seats' accounts in the key: a guest seat made an account's later (upgrade)
        # shows in a new body, the old one ages out
        key = (kind, match.id, tuple(s.account_id for s in match.seats))
        built = await cache.get(key, lambda: make(engine, match))
    except _Gone:
        return _not_found("no match with that id", "match_id")
    except ReplayError as exc:
        return error_response(500, "damaged_record", f"match {match.public_id} does not replay: "
                              f"{exc}")
    filename = f"ginrummy-match-{match.public_id}.ginrec.json"
    headers = {} if kind == "replay" else {
        "content-disposition": f'attachment; filename="{filename}"'}
    if accepts_gzip(request.headers.get("accept-encoding", "")):  # (Vary: the middleware's)
        return Response(built.gzipped, media_type="application/json",
                        headers={"content-encoding": "gzip", **headers})
    return Response(built.body, media_type="application/json", headers=headers)


async def replay(request: Request) -> Response:
    """``GET /api/matches/{id}/replay``: every step of a finished match, every hand face up."""
    return await _built(request, "replay")


async def record(request: Request) -> Response:
    """``GET /api/matches/{id}/record``: the game record (docs/records.md) as a download."""
    return await _built(request, "record")


ROUTES: list[BaseRoute] = [
    Route("/api/leaderboard/{category}", leaderboard, methods=["GET"]),
    Route("/api/players/{name}", profile, methods=["GET"]),
    Route("/api/players/{name}/matches", player_matches, methods=["GET"]),
    Route("/api/seats/open", open_seats, methods=["POST"]),
    Route("/api/matches/{match_id}/replay", replay, methods=["GET"]),
    Route("/api/matches/{match_id}/record", record, methods=["GET"]),
    Route("/players/{name}", player_page, methods=["GET", "HEAD"]),
    Route("/replay/{match_id}", replay_page, methods=["GET", "HEAD"]),
]


def install(server: Server) -> None:
    """Store every ended match with its statistics and ratings, in the transaction of its
    last event; the replay routes' limit and cache."""
    server.lobby.hooks.on_end.append(match_end_writes)
    settings = server.settings
    server.extra[REPLAY_LIMITS] = KeyedLimits(settings.replays_per_address,
                                              settings.replays_window_seconds)
    server.extra[BUILT] = BuiltCache(settings.replay_cache_bytes)
    server.extra[MATCH_ROWS] = RecentRows(1024, MATCH_ROW_SECONDS)
