"""Players: ratings, leaderboards, profiles, match history, replays and records
(docs/players.md).

``GET /api/leaderboard/{category}``, ``GET /api/players/{name}``,
``GET /api/players/{name}/matches?before=ID``, ``GET /api/matches/{id}/replay``,
``GET /api/matches/{id}/record`` and the page ``GET /players/{name}``. Only finished matches
are stored, so none of these shows a card of a match being played.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from ginrummy.rules import Ruleset
from ginrummy.server.http import pages
from ginrummy.server.http.common import error_response, in_thread
from ginrummy.server.players.matchrecord import match_end_writes
from ginrummy.server.players.names import name_key
from ginrummy.server.players.ratings import CATEGORIES
from ginrummy.server.players.replay import ReplayError, fair_entries, match_record, replay_match
from ginrummy.server.players.sessions import Account, account_store, current_account
from ginrummy.storage import players
from ginrummy.storage.accounts import StoredAccount
from ginrummy.storage.fairseeds import StoredSeeds, load_match

if TYPE_CHECKING:
    from ginrummy.server.http.common import Server

LEADERBOARD_SIZE = 100
RECENT_MATCHES = 10
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


def _rounded(value: float | None) -> int | None:
    return None if value is None else round(value)


async def profile(request: Request) -> JSONResponse:
    """``GET /api/players/{name}``: ratings and ranks, rating history, statistics, recent
    matches (404 for an unknown name)."""
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
                                            viewer_id=viewer_id, sees_all=sees_all))

    ratings, history, totals, recent = await in_thread(read)
    return JSONResponse({
        "name": account.name,
        "joined": account.created_at.isoformat(),
        "ratings": {c: {"rating": round(e.rating), "deviation": round(e.deviation),
                        "games": e.games, "rank": e.rank} for c, e in ratings.items()},
        "history": {c: [{"time": t.isoformat(), "rating": round(r)} for t, r in points]
                    for c, points in history.items()},
        "stats": _stats(totals),
        "recent": [_match_json(m, account_id) for m in recent],
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
async def find_match(request: Request, text: str) -> players.StoredMatch | Response:
    """The stored match of a route's id, if the request may see it; else the answer (404
    for an unknown id, 403 for a private table's match asked by someone who did not play
    it). The id is the match's public id; an older link's integer id still opens a public
    table's match, never a private one's (404, as an unknown id: counting finds nothing)."""
    engine = _engine(request)
    match: players.StoredMatch | None = None
    if text.isdigit() and len(text) <= 18:
        match = await in_thread(players.match_by_id, engine, int(text))
        if match is not None and not match.public:
            match = None
    elif PUBLIC_ID.fullmatch(text):
        match = await in_thread(players.match_by_public_id, engine, text)
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


async def _replayed(request: Request) -> tuple[players.StoredMatch, Any, list[Any]] | Response:
    match = await find_match(request, request.path_params["match_id"])
    if isinstance(match, Response):
        return match
    source = await in_thread(players.match_source, _engine(request), match)
    if source is None:
        return _not_found("no match with that id", "match_id")
    rules_dict, pool_chips, events = source
    try:
        rules = Ruleset.from_dict(rules_dict, name=match.preset)
        replayed, steps = replay_match(rules, pool_chips, events)
    except (ReplayError, ValueError) as exc:
        return error_response(500, "damaged_record", f"match {match.public_id} does not "
                              f"replay: {exc}")
    return match, replayed, steps


async def replay(request: Request) -> Response:
    """``GET /api/matches/{id}/replay``: every step of a finished match, every hand face up."""
    found = await _replayed(request)
    if isinstance(found, Response):
        return found
    match, replayed, steps = found
    return JSONResponse({**_match_json(match), "rules": replayed.rules.to_dict(),
                         "first_dealer": replayed.first_dealer, "steps": steps,
                         "fair": await _fair(request, match)})


async def _fair(request: Request, match: players.StoredMatch) -> list[dict[str, Any] | None]:
    """Each hand's fair-deal seeds (docs/fair.md), by hand index, as the record has them."""

    def read_seeds() -> list[StoredSeeds]:
        with _engine(request).connect() as conn:
            return load_match(conn, match.table_id, match.first_version,
                              match.last_version)

    return fair_entries(await in_thread(read_seeds))


async def record(request: Request) -> Response:
    """``GET /api/matches/{id}/record``: the game record (docs/records.md) as a download."""
    found = await _replayed(request)
    if isinstance(found, Response):
        return found
    match, replayed, _steps = found
    fair = await _fair(request, match)
    text = match_record(replayed, [s.name for s in match.seats], fair).dumps() + "\n"
    return Response(text, media_type="application/json", headers={
        "content-disposition":
            f'attachment; filename="ginrummy-match-{match.public_id}.ginrec.json"'})


ROUTES: list[BaseRoute] = [
    Route("/api/leaderboard/{category}", leaderboard, methods=["GET"]),
    Route("/api/players/{name}", profile, methods=["GET"]),
    Route("/api/players/{name}/matches", player_matches, methods=["GET"]),
    Route("/api/matches/{match_id}/replay", replay, methods=["GET"]),
    Route("/api/matches/{match_id}/record", record, methods=["GET"]),
    Route("/players/{name}", player_page, methods=["GET", "HEAD"]),
    Route("/replay/{match_id}", replay_page, methods=["GET", "HEAD"]),
]


def install(server: Server) -> None:
    """Store every ended match with its statistics and ratings, in the transaction of its
    last event."""
    server.lobby.hooks.on_end.append(match_end_writes)
