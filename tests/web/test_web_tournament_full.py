"""Issue 31's done-when: a full 8-player knock-out and a 4-player Swiss, both with a buy-in, on
one ``ginrummy serve``, from registration to prizes, with one SIGKILL of the server in the
middle of both (each has its second round half played), and the players' browser pages seeing
it through.

The twelve players' matches are played through the table's WebSocket by scripted clients,
each with its account's session (the loser resigns: the lower account id, the better seed,
wins every match, so the bracket, the standings and the prizes are known in advance). Two
players watch in a browser, their pages open from registration to the end and never reloaded
across the crash: the knock-out's top seed on a laptop (the bracket round by round, her place,
her prize, then her wallet) and the Swiss's top seed on a French phone (the standings, the
places and prizes, her wallet); axe on both pages and on the list the header links to. The
end: every tournament table opened once, each round stored once, every balance as the prizes
say, and ``ginrummy ledger check`` clean."""

from __future__ import annotations

import contextlib
import json
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from web_support import LOCALES, ServerProcess, browser_missing, device_page, serve_command

if browser_missing():
    pytest.skip(browser_missing() or "", allow_module_level=True)

from playwright.sync_api import Browser, Page
from sqlalchemy import text
from test_web_a11y import axe_violations
from websockets.sync.client import ClientConnection, connect

from ginrummy.server.core.auth import secret_hash
from ginrummy.server.players.names import name_key
from ginrummy.server.players.sessions import SESSION_COOKIE, SESSION_LIFETIME
from ginrummy.storage import ledger, migrate, open_engine
from ginrummy.storage.accounts import AccountStore

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")]

KNOCKOUT = ("Ann", "Bea", "Cal", "Dot", "Eve", "Fay", "Gus", "Hal")
SWISS = ("Sam", "Tia", "Uma", "Vic")
KNOCKOUT_BUY_IN, SWISS_BUY_IN = 100, 50

Match = dict[str, Any]


class Field:
    """The server, its database and the accounts' sessions (name -> (id, token))."""

    def __init__(self, tmp_path: Path) -> None:
        self.db = tmp_path / "tournaments.db"
        engine = open_engine(self.url)
        migrate(engine)
        store = AccountStore(engine)
        self.accounts: dict[str, tuple[int, str]] = {}
        for name in ("Admin", *KNOCKOUT, *SWISS):
            account = store.create(name, name_key(name), "not a real hash",
                                   "admin" if name == "Admin" else "player")
            token = secrets.token_urlsafe(32)
            store.add_session(secret_hash(token), account.id, SESSION_LIFETIME)
            self.accounts[name] = (account.id, token)
        engine.dispose()
        self.names = {account: name for name, (account, _) in self.accounts.items()}
        self.server = ServerProcess(self.db, env={"GINRUMMY_TOURNAMENT_TICK_SECONDS": "0.1"})

    @property
    def url(self) -> str:
        return f"sqlite:///{self.db}"

    @property
    def base(self) -> str:
        return self.server.base

    def id(self, name: str) -> int:
        return self.accounts[name][0]

    def cookie(self, account: int) -> str:
        return f"{SESSION_COOKIE}={self.accounts[self.names[account]][1]}"

    def http(self, name: str) -> httpx.Client:
        return httpx.Client(base_url=self.base, timeout=30, headers={
            "Origin": self.base, "Cookie": self.cookie(self.id(name))})

    def tournament(self, tid: str) -> dict[str, Any] | None:
        """The tournament as the API gives it, or None while the server is down."""
        try:
            answer = httpx.get(f"{self.base}/api/tournaments/{tid}", timeout=10)
        except httpx.HTTPError:
            return None
        return answer.json() if answer.status_code == 200 else None

    def round_tables(self, tid: str, number: int) -> list[Match] | None:
        """Round ``number``'s matches once each has its table, else None."""
        tour = self.tournament(tid)
        rounds = tour["rounds"] if tour else []
        if len(rounds) > number and all(m["table_id"] for m in rounds[number]["matches"]):
            return list(rounds[number]["matches"])
        return None

    def decided(self, tid: str, table_id: str) -> bool:
        """Whether the match of ``table_id`` has its result stored."""
        tour = self.tournament(tid) or {}
        return any(m["table_id"] == table_id and m["status"] == "done"
                   for r in tour.get("rounds", []) for m in r["matches"])

    def seat(self, account: int, table_id: str, stack: contextlib.ExitStack) -> ClientConnection:
        """The account's session at its kept seat: connected, its first state read."""
        ws = stack.enter_context(connect(
            f"{self.base.replace('http', 'ws')}/ws/tables/{table_id}", origin=self.base,
            additional_headers={"Cookie": self.cookie(account)}, proxy=None, open_timeout=30))
        ws.send(json.dumps({"type": "hello", "protocol": 2}))
        while json.loads(ws.recv(timeout=30))["type"] != "state":
            pass
        return ws

    def play(self, match: Match) -> None:
        """Both players sit at the match's table; the higher account id resigns."""
        with contextlib.ExitStack() as stack:
            sockets = {p: self.seat(p, match["table_id"], stack) for p in match["players"]}
            sockets[max(sockets)].send(json.dumps({"type": "resign"}))
            for ws in sockets.values():
                while True:
                    message = json.loads(ws.recv(timeout=30))
                    if message["type"] == "state" and message["result"] is not None:
                        break


def until(check: Any, timeout: float = 60) -> Any:
    """``check()``'s first true value, asked every 50 ms (the timeout only matters when the
    test fails)."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.05)


@pytest.fixture
def field(tmp_path: Path) -> Iterator[Field]:
    made = Field(tmp_path)
    made.server.start()
    try:
        yield made
    finally:
        made.server.stop()


def logged_in(browser: Browser, field: Field, name: str, locale: str, *, phone: bool) -> Page:
    """A browser profile of ``name``'s session (the cookie as the server sets it)."""
    _, page = device_page(browser, field.base, locale, phone=phone)
    page.goto("/fair")
    page.evaluate("([name, value]) => { document.cookie = `${name}=${value}; Path=/; Secure; "
                  "SameSite=Lax`; localStorage.setItem('ginrummy.loggedIn', 'true'); }",
                  [SESSION_COOKIE, field.accounts[name][1]])
    me = page.evaluate("() => fetch('/api/account/me').then((r) => r.json())")
    assert (me.get("account") or me)["name"] == name, me
    return page


def wallet(page: Page) -> tuple[int, dict[str, list[int]]]:
    """The wallet page's balance and its entries' amounts by kind."""
    page.goto("/wallet")
    page.wait_for_selector('#wallet-page[data-loaded="true"]')
    balance = int(page.locator("#wallet-balance").get_attribute("data-chips") or "")
    rows: dict[str, list[int]] = {}
    for row in page.locator("#wallet-entries tbody tr").all():
        rows.setdefault(row.get_attribute("data-kind") or "", []).append(
            int(row.get_attribute("data-amount") or ""))
    return balance, rows


def test_a_knockout_and_a_swiss_to_their_prizes_through_a_sigkill(
        browser: Browser, field: Field) -> None:
    starts = (datetime.now(UTC) + timedelta(seconds=6)).isoformat()
    with field.http("Admin") as admin:
        made = [admin.post("/api/tournaments", json=body) for body in (
            {"name": "Knock-out night", "format": "knockout", "preset": "classic",
             "starts_at": starts, "min_players": 8, "max_players": 8, "clock_seconds": 60,
             "buy_in": KNOCKOUT_BUY_IN},
            {"name": "Swiss night", "format": "swiss", "preset": "classic", "rounds": 3,
             "starts_at": starts, "min_players": 4, "max_players": 4, "clock_seconds": 60,
             "buy_in": SWISS_BUY_IN})]
    assert [m.status_code for m in made] == [201, 201], [m.text for m in made]
    knockout, swiss = (m.json()["id"] for m in made)
    for tid, names in ((knockout, KNOCKOUT), (swiss, SWISS)):
        for name in names:
            with field.http(name) as client:
                answer = client.post(f"/api/tournaments/{tid}/register", json={})
                assert answer.status_code == 200, answer.text

    # the two watchers' pages, open from before the start to the end
    ann = logged_in(browser, field, "Ann", LOCALES["en"], phone=False)
    sam = logged_in(browser, field, "Sam", LOCALES["fr"], phone=True)
    for page, tid in ((ann, knockout), (sam, swiss)):
        assert wallet(page)[0] == ledger.SIGNUP_GRANT - (
            KNOCKOUT_BUY_IN if tid == knockout else SWISS_BUY_IN)
        page.goto(f"/tournaments/{tid}")  # open, or started already on a slow machine
        page.wait_for_selector('#tournament-page[data-loaded="true"]')
    assert ann.locator("#tournament-players li").count() == 8
    assert sam.locator("#tournament-players li").count() == 4

    # round 1 of both, then half of round 2: the SIGKILL
    for tid in (knockout, swiss):
        for match in until(lambda tid=tid: field.round_tables(tid, 0)):
            field.play(match)
    # Ann's page follows the start and the results by itself: her round-1 match won
    ann.wait_for_selector('#tournament-page[data-status="running"] '
                          '.tournament-round[data-round="1"]')
    halves: dict[str, list[Match]] = {}
    for tid in (knockout, swiss):
        halves[tid] = until(lambda tid=tid: field.round_tables(tid, 1))
        field.play(halves[tid][0])
    until(lambda: all(field.decided(tid, halves[tid][0]["table_id"])
                      for tid in (knockout, swiss)))
    field.server.kill()
    field.server.start()

    # the restarted server goes on: the undecided matches keep their tables
    for tid in (knockout, swiss):
        left = [m for m in until(lambda tid=tid: field.round_tables(tid, 1))
                if m["status"] != "done"]
        assert [m["table_id"] for m in left] == [halves[tid][1]["table_id"]]
        field.play(left[0])
        for match in until(lambda tid=tid: field.round_tables(tid, 2)):
            field.play(match)
    over = {tid: until(lambda tid=tid: (lambda t: t if t and t["status"] == "over" else None)(
        field.tournament(tid))) for tid in (knockout, swiss)}

    # the bracket: the better seed (the lower id) wins each match, 1-8 4-5 2-7 3-6 in round 1
    seed = {field.id(name): number for number, name in enumerate(KNOCKOUT, 1)}
    bracket = [[(tuple(sorted(seed[p] for p in m["players"])), seed[m["winner"]])
                for m in r["matches"]] for r in over[knockout]["rounds"]]
    assert bracket == [[((1, 8), 1), ((4, 5), 4), ((2, 7), 2), ((3, 6), 3)],
                       [((1, 4), 1), ((2, 3), 2)],
                       [((1, 2), 1)]]
    assert over[knockout]["champion"] == field.id("Ann")
    pool = 8 * KNOCKOUT_BUY_IN  # 50 / 30 / 20, places 3-4 sharing the 20
    knockout_prizes = {"Ann": (1, pool // 2), "Bea": (2, pool * 3 // 10),
                       "Cal": (3, pool // 10), "Dot": (3, pool // 10),
                       **{name: (5, 0) for name in KNOCKOUT[4:]}}
    assert {field.names[r["account_id"]]: (r["place"], r["prize"])
            for r in over[knockout]["registrations"]} == knockout_prizes
    # the standings: a round robin the lower id always wins
    pool = 4 * SWISS_BUY_IN
    swiss_prizes = {"Sam": (1, pool // 2), "Tia": (2, pool * 3 // 10),
                    "Uma": (3, pool // 5), "Vic": (4, 0)}
    assert {field.names[r["account_id"]]: (r["place"], r["prize"])
            for r in over[swiss]["registrations"]} == swiss_prizes
    assert [(field.names[s["account_id"]], s["score"]) for s in over[swiss]["standings"]] == \
        [("Sam", 3), ("Tia", 2), ("Uma", 1), ("Vic", 0)]
    pairs = [frozenset(m["players"]) for r in over[swiss]["rounds"] for m in r["matches"]]
    assert len(pairs) == 6 == len(set(pairs))  # no rematch, no match played twice

    # what the two players see, on the pages they kept open through the crash
    ann.wait_for_selector('#tournament-page[data-status="over"]')
    rounds = ann.locator(".tournament-round")
    assert [rounds.nth(i).locator(".match").count() for i in range(rounds.count())] == [4, 2, 1]
    assert ann.locator('.match[data-status="done"]').count() == 7
    assert ann.locator(".replay-link").count() == 7
    final = rounds.nth(2).locator(".match")
    assert final.locator(".match-players").inner_text() == "Ann – Bea"
    assert "Ann" in final.inner_text().split("Ann – Bea", 1)[1]  # the winner named
    sam.wait_for_selector('#tournament-page[data-status="over"]')  # before reading its places
    for page, prizes in ((ann, knockout_prizes), (sam, swiss_prizes)):
        for name, (place, prize) in prizes.items():
            row = page.locator(f'#tournament-players li[data-account="{field.id(name)}"]')
            assert row.get_attribute("data-place") == str(place)
            assert (str(prize) in row.inner_text()) if prize else ("–" in row.inner_text())
    assert [int(li.get_attribute("data-account") or "") for li in
            sam.locator("#tournament-standings li").all()] == [field.id(n) for n in SWISS]
    assert axe_violations(ann) == [] and axe_violations(sam) == []  # bracket, standings
    for page, buy_in, prize in ((ann, KNOCKOUT_BUY_IN, knockout_prizes["Ann"][1]),
                                (sam, SWISS_BUY_IN, swiss_prizes["Sam"][1])):
        balance, entries = wallet(page)
        assert balance == ledger.SIGNUP_GRANT - buy_in + prize
        assert entries["buy_in"] == [-buy_in] and entries["payout"] == [prize]
        assert page.errors == []  # type: ignore[attr-defined]
    ann.click("#nav-tournaments")  # the header's link: both under "finished"
    ann.wait_for_selector('#tournaments-page[data-loaded="true"]')
    assert {row.get_attribute("data-tournament") for row in
            ann.locator("#tournaments-finished tbody tr").all()} == {knockout, swiss}
    assert axe_violations(ann) == []

    # the database: each round and table once, every balance, and `ginrummy ledger check`
    engine = open_engine(field.url)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT COUNT(*) FROM tournament_rounds")).scalar_one() == 6
        assert conn.execute(text("SELECT COUNT(*) FROM game_tables")).scalar_one() == 7 + 6
        for name, (_, prize) in {**knockout_prizes, **swiss_prizes}.items():
            buy_in = KNOCKOUT_BUY_IN if name in KNOCKOUT else SWISS_BUY_IN
            assert ledger.balance(conn, ledger.account_wallet(field.id(name))) == \
                ledger.SIGNUP_GRANT - buy_in + prize, name
    engine.dispose()
    command = serve_command()[:-1]  # `ginrummy`, without `serve`
    checked = subprocess.run([*command, "ledger", "check", "--db", field.url, "--json"],
                             capture_output=True, text=True, timeout=60, check=False)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    report = json.loads(checked.stdout)
    assert report["ok"] and report["problems"] == [] and report["in_pools"] == 0, report
