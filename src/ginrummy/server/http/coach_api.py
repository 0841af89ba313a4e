"""The coach in the browser (docs/coach.md): the verdict on every move of a finished match,
for the player who made them.

``GET /api/matches/{id}/coach``: a stored match, for the logged-in account that sat in it
(its own seat only). ``POST /api/tables/{id}/coach {"token"}``: the finished match of a
table, for a seated player (the guest's seat token in the body, never in the URL, or the
session of the account sitting there).

The work (:func:`ginrummy.coach.coach_record_json`, seconds of search) runs in a worker
process, never on the event loop: a bounded :class:`~concurrent.futures.ProcessPoolExecutor`
(:data:`COACH_WORKERS` processes), one job per match at a time, at most :data:`MAX_JOBS`
matches at once (then ``503 busy``), at most :data:`JOBS_PER_PLAYER` waiting or running for
one account (or a guest's seat) and :data:`JOBS_PER_ADDRESS` for one client address (then
``429 too_many_jobs``), at most :data:`MAX_COACHED_DECISIONS` decisions analysed in a match
(the answer says how many were left out), results cached per match and seat. A request starts
the job and answers ``202 {"status": "running", "progress"}`` (the decisions done and to do,
once the worker has started on it: shared memory written by the worker after each decision);
asking again gives ``200 {"status": "done", "coach": ...}`` once it is done. The workers
stop with the server (:func:`shutdown`: killed, not left to finish their job).

The match is over, so the whole record goes to the worker; but each decision is valued
from the player's view at the time (:mod:`ginrummy.coach`), and the answer holds only the
player's own cards at each of its decisions.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import multiprocessing
from collections import OrderedDict
from collections.abc import Hashable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from ginrummy.coach import MAX_DECISIONS, coach_record_json
from ginrummy.records import GameRecord
from ginrummy.server.core.auth import seat_for_token
from ginrummy.server.http.common import (
    client_address,
    error_response,
    in_thread,
    read_body,
    server_of,
    too_many,
)
from ginrummy.server.http.forwarding import at_owner, owner_answer
from ginrummy.server.http.player_api import find_match, replayed_match
from ginrummy.server.players.replay import ReplayError, match_record
from ginrummy.server.players.sessions import current_account
from ginrummy.storage import players

if TYPE_CHECKING:
    from ginrummy.server.http.common import Server

log = logging.getLogger("ginrummy.server.coach")

COACH_BUDGET_MS = 40.0
"""The advisor's budget per decision in the browser's coach (the command line's default is
100 ms; the hint key's 250)."""
COACH_SEED = 0
COACH_WORKERS = 1
"""Worker processes: the coach never takes more than this many cores from the tables."""
MAX_JOBS = 4
"""Matches being coached or waiting for a worker at once; one more answers ``503 busy``."""
JOBS_PER_PLAYER = 1
"""Jobs waiting or running for one account (or one guest's seat) at once."""
JOBS_PER_ADDRESS = 2
"""Jobs waiting or running for one client address at once."""
MAX_COACHED_DECISIONS = MAX_DECISIONS
"""The most decisions of the player analysed in one match (the first ones; the coach's own
cap): a classic match to 100 has about 120; one that two seats made long by passing discards
is cut here."""
CACHE_ENTRIES = 256
"""Reports kept (per match and seat), the least recently asked dropped first."""
RETRY_MS = 250
"""What a ``202`` tells the client to wait before asking again: a match takes one to two
seconds, and the answer comes at the first ask after the worker is done (1000 ms made the
browser wait half a second more on average, up to a whole one: benchmarks/
bench_coach_browser.py); a ``202`` is a dictionary look-up after the asker's checks."""
SHUTDOWN_WAIT_SECONDS = 3.0
"""How long a worker has to go after SIGTERM at the server's shutdown (then SIGKILL)."""
QUOTA_RETRY_SECONDS = 10
"""The ``Retry-After`` of a ``429 too_many_jobs``."""


_SLOT = 3
"""A worker's progress slot in the shared array: its job number, decisions done, to do."""
PROGRESS_LOCK_SECONDS = 0.01
"""The longest the server waits for the progress array's lock (a worker holds it for the
time of writing three numbers), else the answer goes without ``progress``."""
_progress: Any = None
"""In a worker process: the shared progress array (:func:`_worker_start`)."""
_slot: int | None = None
"""In a worker process: its own slot in that array, or ``None`` (more workers than slots)."""


def _worker_start(progress: Any, taken: Any) -> None:
    """A worker's start: take the next free slot of the shared progress array."""
    global _progress, _slot
    _progress = progress
    with taken.get_lock():
        if taken.value < len(progress) // _SLOT:
            _slot = taken.value
            taken.value += 1


def _report_progress(job: int, done: int, total: int) -> None:
    """In a worker: job ``job`` has judged ``done`` of its ``total`` decisions."""
    if _progress is None or _slot is None:
        return
    with _progress.get_lock():
        _progress[_slot * _SLOT:(_slot + 1) * _SLOT] = [job, done, total]


def _coach_job(job: int, document: dict[str, Any], seat: int, budget_ms: float, seed: int,
               max_decisions: int) -> dict[str, Any]:
    """What a worker runs: :func:`coach_record_json`, its progress in the shared array."""
    _report_progress(job, 0, 0)
    return coach_record_json(document, seat, budget_ms, seed, max_decisions=max_decisions,
                             progress=functools.partial(_report_progress, job))


class CoachService:
    """The worker pool, the running jobs (one per match) and the cache (per match and
    seat)."""

    def __init__(self, budget_ms: float = COACH_BUDGET_MS, workers: int = COACH_WORKERS,
                 max_jobs: int = MAX_JOBS, cache_entries: int = CACHE_ENTRIES,
                 max_decisions: int = MAX_COACHED_DECISIONS) -> None:
        self.budget_ms = budget_ms
        self.workers = workers
        self.max_jobs = max_jobs
        self.cache_entries = cache_entries
        self.max_decisions = max_decisions
        self.jobs: dict[str, Future[dict[str, Any]]] = {}
        """The running job of each match, by match key."""
        self.askers: dict[str, tuple[Hashable, str]] = {}
        """Who asked for each job (its player and its client address), by match key."""
        self.cache: OrderedDict[tuple[str, int], dict[str, Any]] = OrderedDict()
        self.failures: dict[tuple[str, int], str] = {}
        self.job_numbers: dict[str, int] = {}
        """The number of each running job, by match key (its progress slot names it)."""
        self._jobs_started = 0
        self._pool: ProcessPoolExecutor | None = None
        self._progress: Any = None

    def pool(self) -> ProcessPoolExecutor:
        """The worker processes, started on first use (``spawn``: no copy of the server's
        threads and sockets)."""
        if self._pool is None:
            context = multiprocessing.get_context("spawn")
            self._progress = context.Array("q", _SLOT * self.workers)
            self._pool = ProcessPoolExecutor(
                self.workers, mp_context=context, initializer=_worker_start,
                initargs=(self._progress, context.Value("i", 0)))
        return self._pool

    def progress(self, key: str) -> dict[str, int] | None:
        """``{"done", "total"}`` of the running job of match ``key``, once its worker has
        started on it (else ``None``)."""
        job = self.job_numbers.get(key)
        if job is None or self._progress is None:
            return None
        lock = self._progress.get_lock()
        # never wait on the event loop: a worker killed while writing would hold it for good
        if not lock.acquire(timeout=PROGRESS_LOCK_SECONDS):
            return None
        try:
            values = list(self._progress.get_obj())
        finally:
            lock.release()
        for i in range(0, len(values), _SLOT):
            number, done, total = values[i:i + _SLOT]
            if number == job and total > 0:
                return {"done": done, "total": total}
        return None

    def close(self, wait: float = 0.0) -> None:
        """Stop the workers: running jobs are abandoned and their processes killed (SIGTERM,
        then SIGKILL for one still there after ``wait`` seconds; with no ``wait``, they are
        not waited for)."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        processes = list((pool._processes or {}).values())  # (no public list of them)
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            if process.is_alive():
                process.terminate()
        if wait > 0:
            for process in processes:
                process.join(wait)
                if process.is_alive():
                    process.kill()
                    process.join(wait)

    def peek(self, key: str, seat: int, asker: tuple[Hashable, str] | None = None
             ) -> tuple[str, dict[str, Any] | None]:
        """``("done", report)``, ``("running", None)`` (a job of this match is running),
        ``("busy", None)`` (too many matches at once), ``("quota", {"message"})`` (the
        ``asker``, a player and an address, has its jobs already), ``("failed",
        {"message"})`` (said once) or ``("start", None)``: nothing known yet, :meth:`start`
        may run the job."""
        found = self.cache.get((key, seat))
        if found is not None:
            self.cache.move_to_end((key, seat))
            return "done", found
        failure = self.failures.pop((key, seat), None)
        if failure is not None:
            return "failed", {"message": failure}
        if key in self.jobs:
            return "running", None
        if asker is not None:
            quota = self._quota(*asker)
            if quota is not None:
                return "quota", {"message": quota}
        if len(self.jobs) >= self.max_jobs:
            return "busy", None
        return "start", None

    def _quota(self, player: Hashable, address: str) -> str | None:
        """Why ``player`` (or ``address``) may not start another job now, or ``None``."""
        mine = sum(1 for who, _address in self.askers.values() if who == player)
        if mine >= JOBS_PER_PLAYER:
            return (f"the coach is already working on {mine} match(es) of yours (at most "
                    f"{JOBS_PER_PLAYER} at a time): ask again when it is done")
        from_there = sum(1 for _who, where in self.askers.values() if where == address)
        if from_there >= JOBS_PER_ADDRESS:
            return (f"the coach is already working on {from_there} matches asked from your "
                    f"address (at most {JOBS_PER_ADDRESS} at a time): ask again when one is "
                    f"done")
        return None

    def start(self, key: str, seat: int, document: dict[str, Any],
              asker: tuple[Hashable, str] | None = None) -> tuple[str, dict[str, Any] | None]:
        """Coach ``seat`` in the game record ``document`` in a worker for ``asker`` (a player
        and an address), unless :meth:`peek` now says otherwise (another request started it
        meanwhile, or the asker has its jobs)."""
        status, report = self.peek(key, seat, asker)
        if status != "start":
            return status, report
        self._jobs_started += 1
        number = self._jobs_started
        job = functools.partial(_coach_job, number, document, seat, self.budget_ms,
                                COACH_SEED, self.max_decisions)
        try:
            future = self.pool().submit(job)
        except BrokenProcessPool:  # a worker died (killed, out of memory): start afresh
            self.close()
            future = self.pool().submit(job)
        self.jobs[key] = future
        self.job_numbers[key] = number
        if asker is not None:
            self.askers[key] = asker
        loop = asyncio.get_running_loop()
        future.add_done_callback(
            lambda done: loop.call_soon_threadsafe(self._finished, key, seat, done))
        return "running", None

    def _finished(self, key: str, seat: int, future: Future[dict[str, Any]]) -> None:
        if self.jobs.get(key) is future:
            del self.jobs[key]
            self.askers.pop(key, None)
            self.job_numbers.pop(key, None)
        if future.cancelled():
            return
        error = future.exception()
        if isinstance(error, BrokenProcessPool):  # the worker died: the next ask restarts
            log.warning("coach of %s seat %d: the worker process died", key, seat,
                        extra={"event": "coach_worker_died"})
            self.close()
            return
        if error is not None:
            log.warning("coach of %s seat %d failed: %s", key, seat, error,
                        extra={"event": "coach_failed"})
            self.failures[(key, seat)] = f"the coach failed: {error}"
            return
        self.cache[(key, seat)] = future.result()
        while len(self.cache) > self.cache_entries:
            self.cache.popitem(last=False)


def service(request: Request) -> CoachService:
    """The server's coach."""
    found = server_of(request).extra["coach"]
    assert isinstance(found, CoachService)
    return found


def _answer(key: str, seat: int, status: str, report: dict[str, Any] | None,
            match_id: str | None = None, progress: dict[str, int] | None = None) -> Response:
    if status == "done":
        done: dict[str, Any] = {"status": "done", "seat": seat, "coach": report}
        if match_id is not None:
            done["match_id"] = match_id  # the stored match: its replay's steps
        return JSONResponse(done)
    if status == "running":
        running: dict[str, Any] = {"status": "running", "seat": seat, "retry_ms": RETRY_MS}
        if progress is not None:
            running["progress"] = progress
        return JSONResponse(running, status_code=202)
    if status == "busy":
        return error_response(503, "busy", "the coach is busy with other matches: ask again "
                              "in a minute")
    if status == "quota":
        return too_many("too_many_jobs", report["message"] if report else
                        "the coach is already working for you", QUOTA_RETRY_SECONDS)
    message = report["message"] if report else "the coach failed"
    log.info("coach %s: %s", key, message)
    return error_response(500, "coach_failed", message)


# ----------------------------------------------------------------------------- routes
async def match_coach(request: Request) -> Response:
    """``GET /api/matches/{id}/coach``: the logged-in account's own verdicts on a stored
    match it played in."""
    account = await current_account(request)
    if account is None:
        return error_response(401, "not_logged_in", "log in to see the coach on your matches")
    match = await find_match(request, request.path_params["match_id"])  # a public id
    if isinstance(match, Response):
        return match
    match_id = match.public_id  # the coach's cache and queue key it as the API names it
    seat = next((s.seat for s in match.seats if s.account_id == account.id), None)
    if seat is None:
        return error_response(403, "forbidden", "the coach shows a match only to its players",
                              "match_id")
    key = f"match:{match_id}"
    coach = service(request)
    asker = (("account", account.id), client_address(request))
    status, report = coach.peek(key, seat, asker)
    if status == "start":
        document = await _stored_record(request, match)
        if isinstance(document, Response):
            return document
        status, report = coach.start(key, seat, document, asker)
    return _answer(key, seat, status, report, progress=coach.progress(key))


async def _stored_record(request: Request, match: players.StoredMatch
                         ) -> dict[str, Any] | Response:
    """The stored match's game record, read and replayed in a thread (a long match takes
    a tenth of a second), as the replay routes read it (:func:`replayed_match`)."""
    engine = server_of(request).repository.engine

    def read() -> dict[str, Any]:
        replayed, _steps, _fair = replayed_match(engine, match)
        return match_record(replayed, [s.name for s in match.seats]).to_json()

    try:
        return await in_thread(read)
    except ReplayError as exc:
        return error_response(500, "damaged_record", f"match {match.public_id} does not "
                              f"replay: {exc}")
    except LookupError:  # its table is gone
        return error_response(404, "not_found", "no match with that id", "match_id")


class TableCoach(BaseModel):
    """``POST /api/tables/{id}/coach``'s body: a guest's seat token (an account sitting at
    the table may send ``{}``)."""

    token: str | None = Field(default=None, max_length=128)


async def table_coach(request: Request) -> Response:
    """``POST /api/tables/{id}/coach``: a seated player's verdicts on the table's finished
    match."""
    body = await read_body(request, TableCoach)
    if isinstance(body, JSONResponse):
        return body
    table_id = request.path_params["table_id"]
    at_owner_answer = await owner_answer(request, table_id)
    if at_owner_answer is not None:  # the coach runs where the table is played
        return at_owner_answer
    writer = await server_of(request).lobby.load(table_id)
    if writer is None:
        return error_response(404, "not_found", f"no table {table_id!r}", "table_id")
    table = writer.table
    seat = None
    if body.token is not None:
        found = seat_for_token(table.seats, body.token)
        seat = None if found is None else found.seat
        player: Hashable = ("account", found.account_id) if found is not None \
            and found.account_id is not None else ("seat", table.id, seat)
    else:
        account = await current_account(request)
        if account is not None:
            seat = next((s.seat for s in table.seats if s.account_id == account.id), None)
            player = ("account", account.id)
    if seat is None:
        return error_response(403, "forbidden", "the coach shows a match only to its players",
                              "token")
    match = table.match
    if match is None or match.result is None:
        return error_response(409, "not_finished", "the coach comes when the match is over")
    key = f"table:{table.id}:{table.match_first_version}"
    coach = service(request)
    asker = (player, client_address(request))
    status, report = coach.peek(key, seat, asker)
    if status == "start":
        names = [s.name or f"seat {s.seat}" for s in table.seats]
        document = await in_thread(lambda: GameRecord.from_match(match, names).to_json())
        status, report = coach.start(key, seat, document, asker)
    match_id = None
    if status == "done":  # the replay the verdicts link to, when the asker may open it
        engine = server_of(request).repository.engine
        stored = await in_thread(players.match_of_table, engine, table.id,
                                 table.match_first_version)
        by_account = isinstance(player, tuple) and player[0] == "account"
        if stored is not None and (stored.public or by_account):
            match_id = stored.public_id
    return _answer(key, seat, status, report, match_id, coach.progress(key))


ROUTES: list[BaseRoute] = [
    Route("/api/matches/{match_id}/coach", match_coach, methods=["GET"]),
    Route("/api/tables/{table_id}/coach", at_owner("coach.table", table_coach),
          methods=["POST"]),
]


def install(server: Server) -> None:
    """The server's coach (its worker processes start on the first request)."""
    server.extra["coach"] = CoachService()


async def shutdown(server: Server) -> None:
    """Stop the coach's workers with the server (in a thread: it waits for them to go)."""
    coach = server.extra.get("coach")
    if isinstance(coach, CoachService):
        await in_thread(coach.close, SHUTDOWN_WAIT_SECONDS)
