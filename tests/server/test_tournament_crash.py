"""A 4-player Swiss with a buy-in on ``ginrummy serve``, SIGKILLed in the middle of a round
and started again on the same database: the restarted server goes on where the first was
(no round started twice, no match lost, no table opened twice) to the prizes, and the
ledger check holds."""

from __future__ import annotations

import secrets
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_helpers import Client, free_port, resign_once_dealt, until
from sqlalchemy import text
from test_crash_restart import Process, Remote, processes  # noqa: F401 (a fixture)

from ginrummy.server.core.auth import secret_hash
from ginrummy.server.players.names import name_key
from ginrummy.server.players.sessions import SESSION_COOKIE, SESSION_LIFETIME
from ginrummy.storage import ledger, migrate, open_engine
from ginrummy.storage.accounts import AccountStore

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")


def test_a_swiss_survives_a_sigkill(tmp_path: Path, processes: list[Process],  # noqa: F811
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GINRUMMY_TOURNAMENT_TICK_SECONDS", "0.05")
    db = f"sqlite:///{tmp_path / 'swiss.db'}"
    engine = open_engine(db)
    migrate(engine)
    store = AccountStore(engine)
    cookies: dict[int, str] = {}
    for name, role in (("Admin", "admin"), ("Ann", "player"), ("Bob", "player"),
                       ("Cat", "player"), ("Dan", "player")):
        account = store.create(name, name_key(name), "not a real hash", role)
        token = secrets.token_urlsafe(32)
        store.add_session(secret_hash(token), account.id, SESSION_LIFETIME)
        cookies[account.id] = f"{SESSION_COOKIE}={token}"
    admin, *players = sorted(cookies)
    port = free_port()
    first = Process(db, port, tmp_path / "serve.log")
    processes.append(first)
    base = first.base

    def http(who: int) -> httpx.Client:
        return httpx.Client(base_url=base, headers={"Origin": base, "Cookie": cookies[who]})

    starts = (datetime.now(UTC) + timedelta(seconds=2)).isoformat()
    with http(admin) as client:
        made = client.post("/api/tournaments", json={
            "name": "Swiss night", "format": "swiss", "preset": "classic", "rounds": 3,
            "starts_at": starts, "min_players": 4, "max_players": 4, "clock_seconds": 60,
            "buy_in": 50})
        assert made.status_code == 201, made.text
    tid = made.json()["id"]
    for p in players:
        with http(p) as client:
            assert client.post(f"/api/tournaments/{tid}/register", json={}).status_code == 200

    def tournament() -> dict[str, Any]:
        with httpx.Client(base_url=base) as client:
            answer: dict[str, Any] = client.get(f"/api/tournaments/{tid}").json()
            return answer

    def round_ready(number: int) -> list[dict[str, Any]] | None:
        try:
            rounds = tournament().get("rounds", [])
        except httpx.HTTPError:
            return None
        if len(rounds) > number and all(m["table_id"] for m in rounds[number]["matches"]):
            return list(rounds[number]["matches"])
        return None

    def play(match: dict[str, Any]) -> None:
        """The lower account id wins: the other resigns."""
        server: Any = Remote(base)
        clients = {p: Client.open(server, match["table_id"],
                                  additional_headers={"Cookie": cookies[p]})
                   for p in match["players"]}
        resign_once_dealt(clients[max(match["players"])])
        for client in clients.values():
            client.wait(lambda m: m["type"] == "state" and m["result"] is not None)
            client.close()

    for match in until(lambda: round_ready(0), timeout=60):
        play(match)
    second_round = until(lambda: round_ready(1), timeout=60)
    play(second_round[0])
    until(lambda: tournament()["rounds"][1]["matches"][0]["status"] == "done", timeout=60)
    first.kill()  # round 1 half played

    again = Process(db, port, tmp_path / "serve.log")
    processes.append(again)
    left = [m for m in until(lambda: round_ready(1), timeout=60) if m["status"] != "done"]
    assert [m["table_id"] for m in left] == [second_round[1]["table_id"]]
    play(left[0])
    for match in until(lambda: round_ready(2), timeout=60):
        play(match)
    done = until(lambda: (lambda t: t if t["status"] == "over" else None)(tournament()),
                 timeout=60)
    ann, bob, cat, dan = players  # a round robin, the lower id winning each match
    places = {r["account_id"]: (r["place"], r["prize"]) for r in done["registrations"]}
    assert places == {ann: (1, 100), bob: (2, 60), cat: (3, 40), dan: (4, 0)}
    assert [s["score"] for s in done["standings"]] == [3, 2, 1, 0]
    pairs = [frozenset(m["players"]) for r in done["rounds"] for m in r["matches"]]
    assert len(pairs) == 6 == len(set(pairs))  # every pair once: no match twice
    with engine.connect() as conn:
        assert conn.execute(text("SELECT COUNT(*) FROM tournament_rounds")).scalar_one() == 3
        tables = conn.execute(text("SELECT COUNT(*) FROM game_tables")).scalar_one()
        assert tables == 6  # one table a match, none opened twice
        report = ledger.check(conn)
        assert report.ok, report.problems
        assert ledger.balance(conn, ledger.account_wallet(ann)) == ledger.SIGNUP_GRANT + 50
    engine.dispose()
