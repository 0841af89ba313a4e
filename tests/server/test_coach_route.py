"""The coach's routes on a live server (docs/coach.md): the verdicts of a stored match for the
account that played it, of a table's finished match for its seated players, computed in a
worker process while the server keeps answering, and refused to anyone else."""

from __future__ import annotations

import secrets
import time
from typing import Any

import httpx
import pytest
from player_helpers import add_account, example_table, log_in, migrated, store
from server_helpers import LiveServer
from sqlalchemy import select

from ginrummy.coach import coach_record
from ginrummy.records import GameRecord
from ginrummy.server.core.auth import secret_hash
from ginrummy.server.http.coach_api import MAX_COACHED_DECISIONS, CoachService
from ginrummy.server.players.sessions import SESSION_COOKIE
from ginrummy.storage.models import MatchRow

BUDGET = 4.0
WAIT_SECONDS = 90.0


def _headers(session: str | None) -> dict[str, str]:
    return {"cookie": f"{SESSION_COOKIE}={session}"} if session else {}


def _coach(server: LiveServer, budget: float = BUDGET) -> CoachService:
    found = server.app.state.server.extra["coach"]
    assert isinstance(found, CoachService)
    found.budget_ms = budget
    return found


def _until_done(ask: Any) -> dict[str, Any]:
    """Ask until the answer is 200 (each 202 says the job runs)."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        answer = ask()
        if answer.status_code == 200:
            return dict(answer.json())
        assert answer.status_code == 202, answer.text
        assert answer.json()["status"] == "running"
        assert time.monotonic() < deadline, "the coach did not finish"
        time.sleep(0.1)


def _record(table_id: str, names: list[str]) -> GameRecord:
    table = example_table(table_id, ["expert", None], names)
    assert table.match is not None
    return GameRecord.from_match(table.match, names)


def test_the_account_sees_its_own_verdicts(server: LiveServer) -> None:
    engine = migrated(server.settings.db)
    ann, bob = add_account(engine, "Ann"), add_account(engine, "Bob")
    store(engine, example_table("tc1", ["expert", ann], ["Expert", "Ann"]))
    coach = _coach(server)
    with server.http() as client:
        (match_id,) = [m["id"] for m in client.get("/api/players/Ann").json()["recent"]]
        path = f"/api/matches/{match_id}/coach"
        session = log_in(engine, ann)
        first = client.get(path, headers=_headers(session))
        assert first.status_code == 202 and first.json()["retry_ms"] > 0
        body = _until_done(lambda: client.get(path, headers=_headers(session)))
        # refused to another account, to a guest, for a match that does not exist
        other = client.get(path, headers=_headers(log_in(engine, bob)))
        guest = client.get(path)
        missing = client.get("/api/matches/999999/coach", headers=_headers(session))
        bad = client.get("/api/matches/x1/coach", headers=_headers(session))
    assert body["status"] == "done" and body["seat"] == 1
    expected = coach_record(_record("tc1x", ["Expert", "Ann"]), 1, BUDGET, 0,
                            max_decisions=MAX_COACHED_DECISIONS).to_dict()
    assert body["coach"] == expected  # the same as the coach run here, Ann's seat only
    assert {v["seat"] for v in body["coach"]["verdicts"]} == {1}
    assert (match_id, 1) not in coach.cache and (f"match:{match_id}", 1) in coach.cache
    assert (other.status_code, other.json()["error"]["code"]) == (403, "forbidden")
    assert (guest.status_code, guest.json()["error"]["code"]) == (401, "not_logged_in")
    assert missing.status_code == 404 and bad.status_code == 404


def test_a_running_job_tells_its_progress(server: LiveServer) -> None:
    """The 202 answers carry the decisions done and to do once the worker has started (the
    browser's progress bar fills with them), never going back, and ask again soon."""
    engine = migrated(server.settings.db)
    ann = add_account(engine, "Ann")
    store(engine, example_table("tc6", [ann, "expert"], ["Ann", "Expert"]))
    _coach(server, budget=150.0)
    seen: list[tuple[int, int]] = []
    with server.http() as client:
        (match_id,) = [m["id"] for m in client.get("/api/players/Ann").json()["recent"]]
        path = f"/api/matches/{match_id}/coach"
        session = log_in(engine, ann)
        deadline = time.monotonic() + WAIT_SECONDS
        while (answer := client.get(path, headers=_headers(session))).status_code == 202:
            assert answer.json()["retry_ms"] <= 250
            progress = answer.json().get("progress")
            if progress is not None:
                seen.append((progress["done"], progress["total"]))
            assert time.monotonic() < deadline, "the coach did not finish"
            time.sleep(0.02)
    verdicts = answer.json()["coach"]["verdicts"]
    assert seen, "no 202 told the progress"
    assert seen == sorted(seen) and {total for _done, total in seen} == {len(verdicts)}
    assert all(0 <= done <= total for done, total in seen)


@pytest.mark.slow
def test_the_server_answers_while_the_coach_works(server: LiveServer) -> None:
    """A slow coach (100 ms a decision, in a worker process) does not hold the event loop:
    other requests are answered at once while it runs."""
    engine = migrated(server.settings.db)
    ann = add_account(engine, "Ann")
    store(engine, example_table("tc2", [ann, "expert"], ["Ann", "Expert"]))
    coach = _coach(server, budget=100.0)
    with server.http() as client:
        (match_id,) = [m["id"] for m in client.get("/api/players/Ann").json()["recent"]]
        path = f"/api/matches/{match_id}/coach"
        session = log_in(engine, ann)
        assert client.get(path, headers=_headers(session)).status_code == 202
        key = f"match:{match_id}"
        assert key in coach.jobs
        latencies: list[float] = []
        while key in coach.jobs and len(latencies) < 10:
            start = time.perf_counter()
            assert client.get("/api/health").status_code == 200
            latencies.append(time.perf_counter() - start)
            time.sleep(0.05)
        still_running = client.get(path, headers=_headers(session))
        body = _until_done(lambda: client.get(path, headers=_headers(session)))
    assert len(latencies) >= 5  # the coach ran for a while
    assert max(latencies) < 1.0 and sorted(latencies)[len(latencies) // 2] < 0.25
    assert still_running.status_code in (200, 202)
    assert body["coach"]["budget_ms"] == 100.0 and body["seat"] == 0


def test_a_tables_finished_match_for_its_seated_players(server: LiveServer) -> None:
    engine = migrated(server.settings.db)
    token = secrets.token_urlsafe(24)
    table = example_table("tc3", [None, "expert"], ["Guest", "Expert"])
    table.seats[0].token_hash = secret_hash(token)
    store(engine, table)
    _coach(server)
    path = "/api/tables/tc3/coach"
    with server.http() as client:
        body = _until_done(lambda: client.post(path, json={"token": token}))
        wrong = client.post(path, json={"token": "not-a-token"})
        nobody = client.post(path, json={})
        missing = client.post("/api/tables/nope/coach", json={"token": token})
        as_text = client.post(path, content=b"token", headers={"content-type": "text/plain"})
    assert body["seat"] == 0
    expected = coach_record(_record("tc3x", ["Guest", "Expert"]), 0, BUDGET, 0,
                            max_decisions=MAX_COACHED_DECISIONS).to_dict()
    assert body["coach"] == expected
    # the stored match's public id: the verdicts link to its replay's steps
    assert "match_id" not in body  # no account sat: the match is not stored, no replay
    assert (wrong.status_code, wrong.json()["error"]["code"]) == (403, "forbidden")
    assert nobody.status_code == 403
    assert missing.status_code == 404
    assert as_text.status_code == 415


def test_a_tables_coach_names_the_stored_match_its_verdicts_link_to(
        server: LiveServer) -> None:
    """Issue 29: the end of a table's match links each verdict to its step in the replay:
    the answer names the stored match (an account sat, so it was stored)."""
    engine = migrated(server.settings.db)
    ann = add_account(engine, "Cleo")
    store(engine, example_table("tc5", ["expert", ann], ["Expert", "Cleo"]))
    _coach(server)
    with server.http() as client:
        session = log_in(engine, ann)
        body = _until_done(lambda: client.post("/api/tables/tc5/coach", json={},
                                               headers=_headers(session)))
    with engine.connect() as conn:
        (public_id,) = conn.execute(select(MatchRow.public_id)
                                    .where(MatchRow.table_id == "tc5")).scalars().all()
    assert body["seat"] == 1 and body["match_id"] == public_id and public_id


def test_no_coach_before_the_match_is_over(server: LiveServer) -> None:
    created = server.create(nickname="Ann", preset="classic")
    with server.http() as client:
        answer = client.post(f"/api/tables/{created['table_id']}/coach",
                             json={"token": created["token"]})
    assert answer.status_code == 409
    assert answer.json()["error"]["code"] == "not_finished"


def test_busy_when_too_many_matches_wait(server: LiveServer) -> None:
    engine = migrated(server.settings.db)
    ann = add_account(engine, "Ann")
    store(engine, example_table("tc4", [ann, "expert"], ["Ann", "Expert"]))
    coach = _coach(server)
    coach.max_jobs = 0  # every worker taken
    with server.http() as client:
        (match_id,) = [m["id"] for m in client.get("/api/players/Ann").json()["recent"]]
        answer = client.get(f"/api/matches/{match_id}/coach",
                            headers=_headers(log_in(engine, ann)))
    assert answer.status_code == 503 and answer.json()["error"]["code"] == "busy"
    assert isinstance(answer, httpx.Response)


def test_a_dead_worker_is_replaced(server: LiveServer) -> None:
    """A worker process killed mid-job (out of memory, say): asking again starts a new one."""
    engine = migrated(server.settings.db)
    ann = add_account(engine, "Ann")
    store(engine, example_table("tc5", [ann, "expert"], ["Ann", "Expert"]))
    coach = _coach(server, budget=100.0)
    with server.http() as client:
        (match_id,) = [m["id"] for m in client.get("/api/players/Ann").json()["recent"]]
        path = f"/api/matches/{match_id}/coach"
        session = log_in(engine, ann)
        assert client.get(path, headers=_headers(session)).status_code == 202
        pool = coach.pool()
        deadline = time.monotonic() + WAIT_SECONDS
        while not pool._processes and time.monotonic() < deadline:  # the worker starting
            time.sleep(0.05)
        for process in list(pool._processes.values()):
            process.kill()
        body = _until_done(lambda: client.get(path, headers=_headers(session)))
    assert body["seat"] == 0 and body["coach"]["verdicts"]
    assert coach.pool() is not pool
