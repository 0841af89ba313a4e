"""The coach's limits (issue 25, 8): a quota of jobs per account, guest seat and address, a
cap on the decisions analysed in one match (said in the answer), and worker processes that
stop with the server: after SIGTERM of a real ``ginrummy serve`` no coach worker and no
multiprocessing resource tracker is left."""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import psutil
from player_helpers import add_account, example_table, log_in, migrated, passing_table, store
from server_helpers import LiveServer, free_port

from ginrummy.coach import coach_record, positions
from ginrummy.records import GameRecord
from ginrummy.server.core.auth import secret_hash
from ginrummy.server.http.coach_api import JOBS_PER_ADDRESS, CoachService
from ginrummy.server.play.settlement import Ending
from ginrummy.server.players.sessions import SESSION_COOKIE


def _coach(server: LiveServer) -> CoachService:
    found = server.app.state.server.extra["coach"]
    assert isinstance(found, CoachService)
    found.budget_ms = 200.0  # long enough for the jobs to be running still
    return found


def _code(answer: httpx.Response) -> tuple[int, str | None]:
    body = answer.json()
    return answer.status_code, body["error"]["code"] if "error" in body else body["status"]


def test_one_account_gets_one_job_at_a_time(server: LiveServer) -> None:
    engine = migrated(server.settings.db)
    ann, bob = add_account(engine, "Ann"), add_account(engine, "Bob")
    for table_id in ("qa1", "qa2"):
        store(engine, example_table(table_id, [ann, "expert"], ["Ann", "Expert"]))
    store(engine, example_table("qb1", [bob, "expert"], ["Bob", "Expert"]))
    coach = _coach(server)
    with server.http() as client:
        ids = [m["id"] for m in client.get("/api/players/Ann").json()["recent"]]
        (bobs,) = [m["id"] for m in client.get("/api/players/Bob").json()["recent"]]
        ann_cookie = {"cookie": f"{SESSION_COOKIE}={log_in(engine, ann)}"}
        bob_cookie = {"cookie": f"{SESSION_COOKIE}={log_in(engine, bob)}"}
        first = client.get(f"/api/matches/{ids[0]}/coach", headers=ann_cookie)
        second = client.get(f"/api/matches/{ids[1]}/coach", headers=ann_cookie)
        again = client.get(f"/api/matches/{ids[0]}/coach", headers=ann_cookie)
        other = client.get(f"/api/matches/{bobs}/coach", headers=bob_cookie)
    assert _code(first) == (202, "running")
    assert _code(second) == (429, "too_many_jobs")
    assert "at most 1 at a time" in second.json()["error"]["message"]
    assert int(second.headers["retry-after"]) > 0
    assert _code(again)[0] in (200, 202)  # its own running job: still answered
    assert _code(other) == (202, "running")  # another account is not held back
    assert len(coach.jobs) <= 2


def test_guest_seats_and_an_address_have_a_quota(server: LiveServer) -> None:
    """A guest's seats at several finished tables: one job per seat, and at most
    JOBS_PER_ADDRESS from one address however many seats it holds."""
    engine = migrated(server.settings.db)
    tokens = []
    for number in range(JOBS_PER_ADDRESS + 1):
        token = secrets.token_urlsafe(24)
        table = example_table(f"qg{number}", [None, "expert"], ["Guest", "Expert"])
        table.seats[0].token_hash = secret_hash(token)
        store(engine, table)
        tokens.append(token)
    _coach(server)
    with server.http() as client:
        answers = [client.post(f"/api/tables/qg{n}/coach", json={"token": token})
                   for n, token in enumerate(tokens)]
        elsewhere = client.post(f"/api/tables/qg{JOBS_PER_ADDRESS}/coach",
                                json={"token": tokens[-1]},
                                headers={"x-forwarded-for": "203.0.113.9"})
    codes = [_code(a) for a in answers]
    assert codes[:JOBS_PER_ADDRESS] == [(202, "running")] * JOBS_PER_ADDRESS
    assert codes[-1] == (429, "too_many_jobs")
    assert "from your address" in answers[-1].json()["error"]["message"]
    assert _code(elsewhere) == (202, "running")  # the same seat from another address


def test_the_decisions_analysed_in_a_match_are_capped_and_said() -> None:
    table = passing_table("cap1", [None, None], 40, ["Ann", "Bob"])
    assert table.match is not None
    record = GameRecord.from_match(table.match, ["Ann", "Bob"])
    made = len(positions(record, 0))
    assert made >= 15
    report = coach_record(record, 0, 1.0, 0, max_decisions=5).to_dict()
    assert report["max_decisions"] == 5 and len(report["verdicts"]) == 5
    assert report["not_analysed"] == made - 5
    assert report["summary"]["decisions"] == 5
    whole = coach_record(record, 0, 1.0, 0).to_dict()
    assert whole["not_analysed"] == 0 and len(whole["verdicts"]) == made
    assert whole["verdicts"][:5] == report["verdicts"]  # the first ones, valued the same


def test_the_route_says_its_cap(server: LiveServer) -> None:
    engine = migrated(server.settings.db)
    ann = add_account(engine, "Ann")
    table = passing_table("cap2", [ann, None], 30, ["Ann", "Guest"])
    assert table.match is not None
    made = len(positions(GameRecord.from_match(table.match, ["Ann", "Guest"]), 0))
    store(engine, table, Ending.STUCK)
    coach = _coach(server)
    coach.budget_ms, coach.max_decisions = 1.0, 4
    cookie = {"cookie": f"{SESSION_COOKIE}={log_in(engine, ann)}"}
    with server.http() as client:
        (match_id,) = [m["id"] for m in client.get("/api/players/Ann").json()["recent"]]
        deadline = time.monotonic() + 90
        while (answer := client.get(f"/api/matches/{match_id}/coach",
                                    headers=cookie)).status_code == 202:
            assert time.monotonic() < deadline, "the coach did not finish"
            time.sleep(0.1)
    body = answer.json()["coach"]
    assert body["max_decisions"] == 4 and body["not_analysed"] == made - 4
    assert len(body["verdicts"]) == 4


def test_the_progress_never_waits_for_a_worker_that_holds_its_lock() -> None:
    """A worker killed while writing its progress would hold the shared array's lock for
    good: the server (on its event loop) gives up at once and answers without progress."""
    coach = CoachService()
    try:
        coach.pool()
        coach.job_numbers["match:x"] = 1
        lock = coach._progress.get_lock()
        held, done = threading.Event(), threading.Event()

        def hold() -> None:  # another owner, as a worker process is
            with lock:
                held.set()
                done.wait(10)

        holder = threading.Thread(target=hold)
        holder.start()
        assert held.wait(10)
        start = time.perf_counter()
        assert coach.progress("match:x") is None
        assert time.perf_counter() - start < 0.5
        done.set()
        holder.join(10)
        coach._progress[0:3] = [1, 4, 9]
        assert coach.progress("match:x") == {"done": 4, "total": 9}
    finally:
        coach.close()


# ----------------------------------------------------------------------------- SIGTERM
def _serve(folder: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "ginrummy.cli.main", "serve", "--port", str(port),
         "--db", f"sqlite:///{folder / 'g.db'}", "--log-level", "warning"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ},
        start_new_session=True)  # its own process group: the test cleans up after a failure
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while True:
        try:
            if httpx.get(f"{base}/readyz", timeout=1, trust_env=False).status_code == 200:
                return proc, base
        except httpx.HTTPError:
            pass
        assert proc.poll() is None and time.monotonic() < deadline, "did not start"
        time.sleep(0.05)


def _kind(process: psutil.Process) -> str:
    try:
        line = " ".join(process.cmdline())
    except psutil.Error:
        return "gone"
    if "resource_tracker" in line:
        return "tracker"
    if "multiprocessing" in line or "spawn_main" in line:
        return "worker"
    return "other"


def test_the_coach_workers_stop_with_the_server(tmp_path: Path) -> None:
    engine = migrated(f"sqlite:///{tmp_path / 'g.db'}")
    ann = add_account(engine, "Ann")
    store(engine, passing_table("long", [ann, None], 2330, ["Ann", "Guest"]), Ending.STUCK)
    cookie = {"cookie": f"{SESSION_COOKIE}={log_in(engine, ann)}"}
    engine.dispose()
    proc, base = _serve(tmp_path)
    children: list[psutil.Process] = []
    try:
        with httpx.Client(base_url=base, timeout=30, trust_env=False) as client:
            (match_id,) = [m["id"] for m in client.get("/api/players/Ann").json()["recent"]]
            assert client.get(f"/api/matches/{match_id}/coach",
                              headers=cookie).status_code == 202
        server = psutil.Process(proc.pid)
        deadline = time.monotonic() + 60
        kinds: dict[str, int] = {}
        while time.monotonic() < deadline:
            children = server.children(recursive=True)
            kinds = {}
            for child in children:
                kinds[_kind(child)] = kinds.get(_kind(child), 0) + 1
            if kinds.get("worker") and kinds.get("tracker"):
                break
            time.sleep(0.1)
        assert kinds.get("worker") and kinds.get("tracker"), kinds
        time.sleep(1)  # the worker at its job
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
        _gone, alive = psutil.wait_procs(children, timeout=10)
        assert not alive, [(p.pid, _kind(p)) for p in alive]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for child in children:
            if child.is_running():
                child.kill()

