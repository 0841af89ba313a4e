"""The tournaments' pages in a browser: the list finds an upcoming tournament, its page
registers the player (the buy-in leaves the wallet), the started tournament shows the
player's own match with a "go to your table" button that seats them at it, and once the
match is over the page shows the place, the prize and the replay link. The list's heading
in each of the four languages."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from web_support import (
    LANGUAGES,
    LOCALES,
    ServerProcess,
    browser_missing,
    catalogue,
    device_page,
    new_page,
    outside,
    wait_for_first_state,
)

if browser_missing():
    pytest.skip(browser_missing() or "", allow_module_level=True)

from playwright.sync_api import Browser
from test_web_a11y import axe_violations
from websockets.sync.client import connect

from ginrummy.server.core.auth import secret_hash
from ginrummy.server.players.names import name_key
from ginrummy.server.players.sessions import SESSION_COOKIE, SESSION_LIFETIME
from ginrummy.storage import migrate, open_engine
from ginrummy.storage.accounts import AccountStore


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[ServerProcess, dict[str, tuple[int, str]]]]:
    """A server with three accounts (an administrator, Bob and Cyd) and their sessions."""
    db = tmp_path / "tournaments.db"
    engine = open_engine(f"sqlite:///{db}")
    migrate(engine)
    store = AccountStore(engine)
    sessions: dict[str, tuple[int, str]] = {}
    for name, role in (("Admin", "admin"), ("Bob", "player"), ("Cyd", "player")):
        account = store.create(name, name_key(name), "not a real hash", role)
        token = secrets.token_urlsafe(32)
        store.add_session(secret_hash(token), account.id, SESSION_LIFETIME)
        sessions[name] = (account.id, token)
    engine.dispose()
    process = ServerProcess(db, env={"GINRUMMY_TOURNAMENT_TICK_SECONDS": "0.1"})
    process.start()
    try:
        yield process, sessions
    finally:
        process.stop()


def resign(base: str, table_id: str, token: str) -> None:
    """The player of ``token``'s session resigns the match of a table, by its socket."""
    with connect(f"{base.replace('http', 'ws')}/ws/tables/{table_id}", origin=base,
                 additional_headers={"Cookie": f"{SESSION_COOKIE}={token}"},
                 proxy=None) as ws:
        ws.send(json.dumps({"type": "hello", "protocol": 2}))
        while json.loads(ws.recv(timeout=30))["type"] != "state":
            pass
        ws.send(json.dumps({"type": "resign"}))
        while json.loads(ws.recv(timeout=30)).get("result") is None:
            pass


def test_register_play_and_see_the_result(
        browser: Browser, server: tuple[ServerProcess, dict[str, tuple[int, str]]]) -> None:
    process, sessions = server
    base = process.base

    def http(name: str) -> httpx.Client:
        return httpx.Client(base_url=base, headers={
            "Origin": base, "Cookie": f"{SESSION_COOKIE}={sessions[name][1]}"})

    starts = datetime.now(UTC) + timedelta(seconds=8)
    with http("Admin") as client:
        made = client.post("/api/tournaments", json={
            "name": "Browser cup", "format": "knockout", "preset": "classic",
            "starts_at": starts.isoformat(), "min_players": 2, "max_players": 4,
            "clock_seconds": 60, "buy_in": 100})
    assert made.status_code == 201, made.text
    tid = made.json()["id"]
    _, page = new_page(browser, base, motion=False)
    page.goto("/signup")  # Ann signs up in the browser: her session is its cookie
    page.fill("#signup-name", "Ann")
    page.fill("#signup-password", "correct horse battery")
    page.click("#signup-submit")
    page.wait_for_selector("#nav-me")
    me = page.evaluate("() => fetch('/api/account/me').then((r) => r.json())")
    ann = int((me.get("account") or me)["id"])
    page.goto("/tournaments")
    page.wait_for_selector('#tournaments-page[data-loaded="true"]')
    row = page.locator(f'#tournaments-upcoming tr[data-tournament="{tid}"]')
    assert row.locator(".tournament-link").inner_text() == "Browser cup"
    row.locator(".tournament-link").click()
    page.wait_for_selector('#tournament-page[data-status="open"]')
    page.click("#tournament-register")
    page.wait_for_selector("#tournament-withdraw")
    assert page.locator(f'#tournament-players li[data-account="{ann}"]').count() == 1
    with http("Bob") as client:
        assert client.post(f"/api/tournaments/{tid}/register", json={}).status_code == 200
    # the start: the page asks again by itself and shows Ann's match with its button
    go = page.locator("#tournament-go")
    go.wait_for(timeout=30_000)
    table_id = page.locator(".match.mine").get_attribute("data-table")
    assert table_id
    go.click()
    page.wait_for_url(f"**/?table={table_id}")
    wait_for_first_state(page)  # Ann is seated by her session: her hand is dealt
    page.wait_for_function("() => document.querySelectorAll('#my-hand .card').length >= 10")
    resign(base, table_id, sessions["Bob"][1])  # through his session's socket: Ann wins
    page.goto(f"/tournaments/{tid}")
    page.wait_for_selector('#tournament-page[data-status="over"]', timeout=30_000)
    assert page.locator(f'#tournament-players li[data-account="{ann}"]').get_attribute(
        "data-place") == "1"
    assert page.locator(".replay-link").count() == 1
    # Ann's profile: one tournament played, her best finish first place, linked to it
    page.goto("/players/Ann")
    page.wait_for_selector('#profile-tournaments[data-played="1"]')
    assert page.locator("#profile-best-finish").get_attribute("data-place") == "1"
    page.locator("#profile-best-finish .tournament-link").click()
    page.wait_for_selector('#tournament-page[data-status="over"] >> text=Browser cup')
    assert page.url.endswith(f"/tournaments/{tid}")
    assert page.errors == []  # type: ignore[attr-defined]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_list_speaks_each_language(
        browser: Browser, server: tuple[ServerProcess, dict[str, tuple[int, str]]],
        lang: str) -> None:
    process, _ = server
    _, page = new_page(browser, process.base, locale=lang)
    page.goto("/leaderboard")  # the header links every page to the tournaments
    texts = catalogue(lang)
    assert page.locator("#nav-tournaments").inner_text() == texts["nav.tournaments"]
    page.click("#nav-tournaments")
    page.wait_for_selector('#tournaments-page[data-loaded="true"]')
    assert page.url.endswith("/tournaments")
    assert page.locator("#tournaments-page h1").inner_text() == texts["tournaments.title"]
    assert page.locator("#tournaments-upcoming h2").inner_text() == \
        texts["tournaments.list.upcoming"]
    assert page.locator("#tournaments-upcoming p").inner_text() == texts["tournaments.none"]
    assert page.errors == []  # type: ignore[attr-defined]


def test_the_pages_of_an_open_tournament_pass_axe_on_a_phone(
        browser: Browser, server: tuple[ServerProcess, dict[str, tuple[int, str]]]) -> None:
    """Bob, on a phone, goes by the header's link to the list, to a tournament that starts in an
    hour, registers and withdraws: axe finds nothing on the list or on the tournament's page
    before and after he registers. (The pages of a running and of a finished tournament, the
    bracket and the standings, are checked in test_web_tournament_full.py.)"""
    process, sessions = server
    base = process.base
    starts = datetime.now(UTC) + timedelta(hours=1)
    with httpx.Client(base_url=base, headers={
            "Origin": base, "Cookie": f"{SESSION_COOKIE}={sessions['Admin'][1]}"}) as admin:
        made = admin.post("/api/tournaments", json={
            "name": "Evening cup", "format": "swiss", "preset": "classic", "rounds": 3,
            "starts_at": starts.isoformat(), "min_players": 2, "max_players": 8,
            "clock_seconds": 60, "buy_in": 20})
    assert made.status_code == 201, made.text
    tid = made.json()["id"]
    _, page = device_page(browser, base, LOCALES["en"], phone=True)
    page.goto("/fair")
    page.evaluate("([name, value]) => { document.cookie = `${name}=${value}; Path=/; "
                  "Secure; SameSite=Lax`; localStorage.setItem('ginrummy.loggedIn', "
                  "'true'); }", [SESSION_COOKIE, sessions["Bob"][1]])
    page.reload()
    page.wait_for_selector("#nav-me")
    page.click("#nav-tournaments")  # in the header of every page, a phone's too
    page.wait_for_selector(f'#tournaments-upcoming tr[data-tournament="{tid}"]')
    assert axe_violations(page) == []
    page.click(f'#tournaments-upcoming tr[data-tournament="{tid}"] .tournament-link')
    page.wait_for_selector('#tournament-page[data-status="open"] #tournament-register')
    assert axe_violations(page) == []
    page.click("#tournament-register")
    page.wait_for_selector(f'#tournament-players li[data-account="{sessions["Bob"][0]}"]')
    page.wait_for_selector("#tournament-withdraw")
    assert axe_violations(page) == []
    page.click("#tournament-withdraw")
    page.wait_for_selector("#tournament-register")
    assert page.errors == []  # type: ignore[attr-defined]


def test_a_ready_match_is_told_anywhere_and_the_page_follows_the_push(
        browser: Browser, server: tuple[ServerProcess, dict[str, tuple[int, str]]]) -> None:
    """Cyd, on a Polish phone (390x844), reads a profile when the tournament starts: the
    header tells her, in Polish, that her match is ready, within the screen, and "Go to your
    table" seats her at it, where the notice is not shown. Bob's tournament page reads the
    tournament again when the push tells it (the round, then the result), polling aside."""
    process, sessions = server
    base = process.base
    starts = datetime.now(UTC) + timedelta(seconds=6)
    admin = httpx.Client(base_url=base, headers={
        "Origin": base, "Cookie": f"{SESSION_COOKIE}={sessions['Admin'][1]}"})
    with admin:
        made = admin.post("/api/tournaments", json={
            "name": "Puchar", "format": "knockout", "preset": "classic",
            "starts_at": starts.isoformat(), "min_players": 2, "max_players": 4,
            "clock_seconds": 60})
    assert made.status_code == 201, made.text
    tid = made.json()["id"]
    pages = {}
    for name, locale, phone in (("Cyd", LOCALES["pl"], True), ("Bob", LOCALES["en"], False)):
        _, page = device_page(browser, base, locale, phone=phone)
        page.goto("/fair")  # logged in: the session's cookie as the server sets it (loopback)
        page.evaluate("([name, value]) => { document.cookie = `${name}=${value}; Path=/; "
                      "Secure; SameSite=Lax`; localStorage.setItem('ginrummy.loggedIn', "
                      "'true'); }", [SESSION_COOKIE, sessions[name][1]])
        me = page.evaluate("() => fetch('/api/account/me').then((r) => r.json())")
        assert (me.get("account") or me)["name"] == name, me
        pages[name] = page
        with httpx.Client(base_url=base, headers={
                "Origin": base, "Cookie": f"{SESSION_COOKIE}={sessions[name][1]}"}) as client:
            assert client.post(f"/api/tournaments/{tid}/register", json={}).status_code == 200
    cyd, bob = pages["Cyd"], pages["Bob"]
    bob.goto(f"/tournaments/{tid}")
    bob.wait_for_selector('#tournament-page[data-status="open"]')
    cyd.goto("/players/Bob")  # elsewhere on the site
    cyd.wait_for_selector("#profile-page[data-player]")
    notice = cyd.locator("#invitations .match-ready")
    notice.wait_for(timeout=30_000)
    table_id = notice.get_attribute("data-table")
    assert table_id and notice.get_attribute("data-tournament") == tid
    polish = catalogue("pl")
    assert notice.locator("span").inner_text() == polish["tournaments.match_ready"].replace(
        "{name}", "Puchar").replace("{round}", "1")
    go = notice.locator(".match-ready-go")
    assert go.inner_text() == polish["tournaments.go_to_table"]
    go.wait_for(state="visible")
    boxes = {"notice": notice.bounding_box(), "button": go.bounding_box()}
    assert outside({k: v and {"left": v["x"], "top": v["y"], "right": v["x"] + v["width"],
                              "bottom": v["y"] + v["height"]} for k, v in boxes.items()},
                   390, 844) == []
    assert axe_violations(cyd) == []  # the page with the notice
    # Bob's page took the start from the push: his match and its button
    bob.wait_for_selector("#tournament-go")
    assert int(bob.locator("#tournament-page").get_attribute("data-pushes") or "0") >= 1
    go.click()
    cyd.wait_for_url(f"**/?table={table_id}")
    wait_for_first_state(cyd)
    cyd.wait_for_function("() => document.querySelectorAll('#my-hand .card').length >= 10")
    assert cyd.locator("#invitations .match-ready").count() == 0  # not at its own table
    pushes = int(bob.locator("#tournament-page").get_attribute("data-pushes") or "0")
    resign(base, table_id, sessions["Bob"][1])
    bob.wait_for_selector('#tournament-page[data-status="over"]', timeout=30_000)
    assert int(bob.locator("#tournament-page").get_attribute("data-pushes") or "0") > pushes
    assert cyd.errors == [] and bob.errors == []  # type: ignore[attr-defined]
