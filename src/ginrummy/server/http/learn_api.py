"""Help for beginners (docs/client.md, *The tutorial* and *The hint*).

``GET /api/tutorial``: the first-game tutorial's scripted hand, as the ``state`` messages the
engine gives the player at each step (:mod:`ginrummy.server.play.tutorial`), computed once.

``POST /api/tables/{id}/hint {"token"}``: the best move of the seated player's current
decision by the coach's evaluator, with a one-line reason and every choice's value in the
legal moves' order (:mod:`ginrummy.coach.hints`). Only at a table where
every other seat is the computer, and never when the match would be rated
(:func:`ginrummy.server.players.matchrecord.rateable`): 403 ``hints_off`` says which. The
suggestion is computed from the seat's own view (:func:`ginrummy.views.view`, taken on the
event loop: nobody's hidden cards, no stock order) in a worker thread of its own
(:data:`HINT_WORKERS`), within :data:`HINT_BUDGET_MS` of the evaluator's calibrated work and at
most :data:`HINT_TIMEOUT_SECONDS` of waiting (then 503 ``busy``); one hint at a time per seat
(429 ``too_many_jobs``), at most :data:`MAX_HINT_JOBS` waiting or running (503 ``busy``).
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Hashable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from ginrummy.coach.hints import suggest
from ginrummy.server.core import jsontext
from ginrummy.server.core.auth import seat_for_token
from ginrummy.server.core.kinds import SeatKind
from ginrummy.server.http.common import error_response, read_body, server_of, too_many
from ginrummy.server.http.forwarding import at_owner, owner_answer
from ginrummy.server.play.table import GameTable
from ginrummy.server.play.tutorial import tutorial_steps
from ginrummy.server.players.matchrecord import rateable
from ginrummy.server.players.sessions import current_account
from ginrummy.views import view

if TYPE_CHECKING:
    from ginrummy.server.http.common import Server

log = logging.getLogger("ginrummy.server.hints")

HINT_BUDGET_MS = 100.0
"""The evaluator's budget for a hint (calibrated work, about a tenth of a second)."""
HINT_TIMEOUT_SECONDS = 5.0
"""The longest a hint is waited for (a busy machine): then 503 ``busy``."""
HINT_WORKERS = 1
"""Threads computing hints: never more than this many cores taken from the tables."""
MAX_HINT_JOBS = 4
"""Hints waiting or running at once; one more answers 503 ``busy``."""
RETRY_SECONDS = 2


class HintJobs:
    """The hints' worker thread and the seats whose hint is being computed."""

    def __init__(self) -> None:
        self.executor = ThreadPoolExecutor(HINT_WORKERS, thread_name_prefix="hint")
        self.running: set[Hashable] = set()


def jobs_of(request: Request) -> HintJobs:
    found = server_of(request).extra["hints"]
    assert isinstance(found, HintJobs)
    return found


@functools.cache
def _tutorial_body() -> bytes:
    return jsontext.dumps({"steps": list(tutorial_steps())}).encode()


async def tutorial(_request: Request) -> Response:
    """``GET /api/tutorial``: the tutorial's steps (the same for everybody, computed once)."""
    body = await asyncio.to_thread(_tutorial_body)
    return Response(body, media_type="application/json")


def hint_refusal(table: GameTable, seat: int) -> str | None:
    """Why ``seat`` may not have hints at ``table``, or ``None``: only against the computer
    alone, never in a rated game."""
    if any(s.kind != SeatKind.BOT for s in table.seats if s.seat != seat):
        return "hints are only for a game against the computer alone, not with other people"
    if rateable(table.preset, table.rules, table.seats):
        return "hints are off in rated games"
    return None


class TableHint(BaseModel):
    """``POST /api/tables/{id}/hint``'s body: a guest's seat token (an account sitting at the
    table may send ``{}``)."""

    token: str | None = Field(default=None, max_length=128)


async def _seat_of(request: Request, table: GameTable, token: str | None) -> int | None:
    """The asker's seat: by its guest token, or the logged-in account sitting there."""
    if token is not None:
        found = seat_for_token(table.seats, token)
        return None if found is None else found.seat
    account = await current_account(request)
    if account is None:
        return None
    return next((s.seat for s in table.seats if s.account_id == account.id), None)


async def table_hint(request: Request) -> Response:
    """``POST /api/tables/{id}/hint``: the evaluator's best move for the asker's decision."""
    body = await read_body(request, TableHint)
    if isinstance(body, JSONResponse):
        return body
    table_id = request.path_params["table_id"]
    at_owner_answer = await owner_answer(request, table_id)
    if at_owner_answer is not None:  # the hint is computed where the table is played
        return at_owner_answer
    writer = await server_of(request).lobby.load(table_id)
    if writer is None:
        return error_response(404, "not_found", f"no table {table_id!r}", "table_id")
    table = writer.table
    seat = await _seat_of(request, table, body.token)
    if seat is None:
        return error_response(403, "forbidden", "a hint is for a player seated at the table "
                              "(send the seat's token)", "token")
    refusal = hint_refusal(table, seat)
    if refusal is not None:
        return error_response(403, "hints_off", refusal)
    hand = table.running_hand()
    if table.match is None or hand is None or hand.to_move != seat or table.stuck is not None \
            or seat in table.resigned:
        return error_response(409, "not_your_turn", "a hint is for your own turn in a hand "
                              "being played")
    jobs = jobs_of(request)
    key = (table.id, seat)
    if key in jobs.running:
        return too_many("too_many_jobs", "a hint for this seat is already being computed",
                        RETRY_SECONDS)
    if len(jobs.running) >= MAX_HINT_JOBS:
        return error_response(503, "busy", "too many hints at once: ask again in a moment")
    seen = view(table.match, seat)  # the seat's own view only, taken now
    legal = hand.legal_actions()
    version = table.version
    jobs.running.add(key)
    work = asyncio.get_running_loop().run_in_executor(
        jobs.executor, suggest, seen, legal, HINT_BUDGET_MS, version)
    work.add_done_callback(lambda _done: jobs.running.discard(key))
    try:
        async with asyncio.timeout(HINT_TIMEOUT_SECONDS):  # not wait_for: gh-86296
            hint = await asyncio.shield(work)
    except TimeoutError:
        return error_response(503, "busy", "the hint took too long: ask again in a moment")
    except ValueError as exc:
        return error_response(409, "not_your_turn", str(exc))
    except Exception as exc:  # a bug in the search: said, logged, and the server goes on
        log.exception("hint at table %s seat %d failed", table.id, seat,
                      extra={"event": "hint_failed"})
        return error_response(500, "hint_failed", f"the hint failed: {exc}")
    return JSONResponse({"version": version, "seat": seat, "hint": hint.to_dict()})


ROUTES: list[BaseRoute] = [
    Route("/api/tutorial", tutorial, methods=["GET"]),
    Route("/api/tables/{table_id}/hint", at_owner("hint.table", table_hint), methods=["POST"]),
]


def install(server: Server) -> None:
    """The hints' worker thread (started on the first hint)."""
    server.extra["hints"] = HintJobs()


async def shutdown(server: Server) -> None:
    """Stop the hints' thread with the server (a running hint is not waited for)."""
    jobs = server.extra.get("hints")
    if isinstance(jobs, HintJobs):
        jobs.executor.shutdown(wait=False, cancel_futures=True)
