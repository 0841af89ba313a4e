"""The players' layer in a real browser (Chromium through Playwright) against a real
`ginrummy serve` process (issue 12): accounts, ratings, profiles, the leaderboard, history,
replay and records, chips and prize pools, moderation, all through the web client's pages.

Every person is a fresh browser context. The tests skip, saying how to install it, when
Chromium or Playwright is missing.
"""

from __future__ import annotations

import itertools
import json
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from web_support import (
    LANGUAGES,
    LOCALES,
    ServerProcess,
    browser_missing,
    catalogue,
    create_table,
    device_page,
    english_patterns,
    my_turn,
    new_page,
    outside,
    play_game,
    play_turn,
    serve_command,
    soak_except,
    wait_for_await,
    wait_for_first_state,
)

if browser_missing():
    pytest.skip(browser_missing() or "", allow_module_level=True)

from playwright.sync_api import Browser, Page, Route
from test_web_browser import visible_texts

PASSWORD = "correct horse battery"
_names = itertools.count(1)


def fresh_name(stem: str) -> str:
    """A name no other test of this module took (the server is shared)."""
    return f"{stem}{next(_names)}"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    # every person here signs up from 127.0.0.1: raise the per-address limits for this server
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GINRUMMY_SIGNUPS_PER_ADDRESS", "200")
        patch.setenv("GINRUMMY_LOGIN_ATTEMPTS_PER_ADDRESS", "500")
        process = ServerProcess(tmp_path_factory.mktemp("players") / "players.db")
        process.start()
    try:
        yield process
    finally:
        process.stop()


# --------------------------------------------------------------------------- helpers
def person(browser: Browser, server: ServerProcess) -> Page:
    """A person's page, with reduced motion: these tests play whole matches to reach the
    players' pages, ratings and wallets, not to watch the cards fly."""
    _, page = new_page(browser, server.base, motion=False)
    return page


def sign_up(page: Page, name: str, password: str = PASSWORD) -> None:
    """Sign up through the header's link and form; the header then shows the name."""
    page.goto("/")
    page.click("#nav-signup")
    page.wait_for_selector("#signup-form")
    page.fill("#signup-name", name)
    page.fill("#signup-password", password)
    page.click("#signup-submit")
    page.wait_for_selector("#nav-me")
    assert page.inner_text("#nav-me") == name


def log_in(page: Page, name: str, password: str = PASSWORD, then: str = "/") -> None:
    page.goto(f"/login?next={then}")
    page.fill("#login-name", name)
    page.fill("#login-password", password)
    page.click("#login-submit")
    page.wait_for_selector("#nav-me")


def balance(page: Page) -> int:
    """The chip balance the header shows."""
    page.wait_for_function("() => document.getElementById('nav-balance')?.dataset.chips")
    return int(page.get_attribute("#nav-balance", "data-chips") or -1)


def wait_for_balance(page: Page, chips: int) -> None:
    """Wait until the header shows ``chips``."""
    page.wait_for_function("c => document.getElementById('nav-balance')?.dataset.chips === c",
                           arg=str(chips))


def create_as_account(page: Page, *, preset: str, players: int,
                      bots: dict[int, str] | None = None, buy_in: int | None = None) -> str:
    """Create a table through the lobby form as the logged-in account (no nickname asked)."""
    page.goto("/")
    page.wait_for_selector("#create-form")
    assert page.locator("#nickname").count() == 0
    assert page.inner_text("#playing-as .player-name") == page.inner_text("#nav-me")
    page.select_option("#create-preset", preset)
    page.select_option("#create-players", str(players))
    for seat in range(1, players):  # the form offers the computer; "" leaves a seat for a person
        page.select_option(f'#create-seats .seat-kind[data-seat="{seat}"]',
                           (bots or {}).get(seat, ""))
    if buy_in is not None:
        page.fill("#create-buy-in", str(buy_in))
    page.click("#create-submit")
    wait_for_first_state(page)
    match = re.search(r"[?&]table=([^&]+)", page.url)
    assert match, page.url
    return match.group(1)


def join_from_lobby(page: Page, table: str) -> None:
    page.goto("/")
    entry = page.locator(f'.table-entry[data-table="{table}"]')
    entry.wait_for()
    entry.locator(".join-button").click()
    wait_for_first_state(page)
    page.wait_for_function("() => document.getElementById('table-page').dataset.seat !== ''")


def no_errors(*pages: Page) -> None:
    for page in pages:
        assert page.errors == [], page.errors  # type: ignore[attr-defined]


def make_admin(server: ServerProcess) -> str:
    """An administrator made with `ginrummy admin create` (password on standard input)."""
    name = fresh_name("Boss")
    made = subprocess.run([*serve_command()[:-1], "admin", "create", name, "--db",
                           f"sqlite:///{server.db_path}"], input=PASSWORD + "\n",
                          capture_output=True, text=True, timeout=60, check=False)
    assert made.returncode == 0, made.stderr
    return name


def replay_record(path: Path) -> subprocess.CompletedProcess[str]:
    command = serve_command()[:-1]  # the ginrummy command, without "serve"
    return subprocess.run([*command, "replay", str(path)], capture_output=True, text=True,
                          timeout=60, check=False)


# --------------------------------------------------------------------------- tests
def test_two_accounts_play_a_rated_match_then_profile_leaderboard_replay_and_record(
        server: ServerProcess, browser: Browser, tmp_path: Path) -> None:
    """Two players sign up, play a 2-player arena table (one hand) to the end; both see the
    rating change on their profiles and on the leaderboard, replay the match step by step
    (every hand face up) and download its record, which `ginrummy replay` reads."""
    ann, bob = person(browser, server), person(browser, server)
    ann_name, bob_name = fresh_name("Ann"), fresh_name("Bob")
    sign_up(ann, ann_name)
    sign_up(bob, bob_name)
    table = create_as_account(ann, preset="arena", players=2)
    assert ann.get_attribute("#table-page", "data-seat") == "0"
    join_from_lobby(bob, table)
    assert bob.get_attribute("#table-page", "data-seat") == "1"
    moves = play_game([ann, bob])
    assert {"discard", "knock", "gin"} & set(moves), moves  # a card went to the pile

    # profiles: a rated arena match, its rating with a chart, the match among the recent
    for page, name in ((ann, ann_name), (bob, bob_name)):
        page.click("#nav-me")
        page.wait_for_selector(f'#profile-page[data-player="{name}"]')
        row = page.locator('#profile-ratings tr[data-category="arena"]')
        row.wait_for()
        assert row.locator("td").nth(2).inner_text() == "1"  # games
        assert re.fullmatch(r"#\d+", row.locator("td.rank").inner_text())
        chart = page.locator('svg.rating-chart[data-category="arena"]')
        assert int(chart.get_attribute("data-points") or 0) >= 1
        assert chart.locator("polyline").count() == 1
        assert page.inner_text('#profile-stats dd[data-stat="matches"]') == "1"
        assert page.locator(".match-entry").count() == 1
    # the winner's rating went up, the loser's down (a void hand shares first place)
    changes = {
        p.get_attribute("data-place") or "": p.inner_text()
        for p in ann.locator(".match-entry .match-player").all()}
    places = sorted(changes)
    if places == ["1", "2"]:
        assert "(+" in changes["1"], changes
        assert "(−" in changes["2"], changes

    # the leaderboard of the category: both names, and each viewer's own rank
    for page, name in ((ann, ann_name), (bob, bob_name)):
        page.click("#nav-leaderboard")
        page.wait_for_selector("#leaderboard-page")
        page.click('.tabs a[data-category="arena"]')
        page.wait_for_selector('#leaderboard-page[data-category="arena"][data-loaded="true"]')
        names = page.eval_on_selector_all("#leaderboard tbody tr",
                                          "rows => rows.map(r => r.dataset.name)")
        assert {ann_name, bob_name} <= set(names)
        mine = page.locator("#leaderboard tr.mine")
        assert mine.get_attribute("data-name") == name
        assert re.search(r"#\d+", page.inner_text("#my-rank"))

    # history, then the replay: step by step with the buttons and the arrow keys
    ann.click("#nav-history")
    ann.wait_for_selector('#history-page[data-loaded="true"]')
    assert ann.locator(".match-entry").count() == 1
    ann.click(".match-entry .replay-link")
    ann.wait_for_selector("#replay-page[data-steps]")
    steps = int(ann.get_attribute("#replay-page", "data-steps") or 0)
    assert steps >= len(moves) + 1  # the deal and every action
    assert ann.locator("#replay-hands .seat-box").count() == 2
    for seat in range(2):  # every hand face up from the deal on
        assert ann.locator(f'#replay-hands .seat-box[data-seat="{seat}"] .card.face').count() == 10
    assert ann.get_attribute("#replay-prev", "disabled") is not None
    ann.keyboard.press("ArrowRight")
    ann.wait_for_selector('#replay-page[data-step="1"]')
    ann.click("#replay-next")
    ann.wait_for_selector('#replay-page[data-step="2"]')
    ann.click("#replay-prev")
    ann.wait_for_selector('#replay-page[data-step="1"]')
    assert ann.inner_text("#replay-action")  # the action of the step in words
    ann.keyboard.press("End")
    ann.wait_for_selector(f'#replay-page[data-step="{steps - 1}"]')
    assert ann.locator("#replay-outcome").count() == 1  # the hand's result at its last step
    ann.keyboard.press("ArrowLeft")
    ann.wait_for_selector(f'#replay-page[data-step="{steps - 2}"]')

    # the record: downloaded through the page, read by `ginrummy replay`
    with ann.expect_download() as download:
        ann.click("#replay-download")
    record = tmp_path / "match.json"
    download.value.save_as(record)
    replayed = replay_record(record)
    assert replayed.returncode == 0, replayed.stderr
    assert ann_name in replayed.stdout and bob_name in replayed.stdout
    no_errors(ann, bob)


def test_a_guest_upgrades_mid_match_and_keeps_the_game(
        server: ServerProcess, browser: Browser) -> None:
    """A guest playing the computer creates an account in the middle of the hand: the seat,
    the match and its history go with the account, which another device then takes."""
    guest = person(browser, server)
    table = create_table(guest, "Gus", preset="arena", players=2, bots={1: "simple"})
    my_turn(guest)
    play_turn(guest)
    name = fresh_name("Gus")
    guest.click("#upgrade-box summary")
    guest.fill("#upgrade-name", name)
    guest.fill("#upgrade-password", PASSWORD)
    guest.click("#upgrade-submit")
    guest.wait_for_selector("#nav-me")
    assert guest.inner_text("#nav-me") == name
    guest.wait_for_selector("#upgrade-box", state="detached")
    assert guest.get_attribute("#table-page", "data-seat") == "0"

    # another device: log in, open the table, and the seat is there
    other = person(browser, server)
    log_in(other, name, then=f"/?table={table}")
    wait_for_first_state(other)
    other.wait_for_function("() => document.getElementById('table-page').dataset.seat === '0'")
    assert other.locator("#join-submit").count() == 0

    play_game([guest])
    guest.click("#nav-history")
    guest.wait_for_selector('#history-page[data-loaded="true"]')
    entry = guest.locator(".match-entry")
    assert entry.count() == 1
    assert name in entry.inner_text()
    no_errors(guest, other)


def test_arena_three_players_with_a_buy_in_pays_out_to_the_wallets(
        server: ServerProcess, browser: Browser) -> None:
    """Three accounts at a 3-player arena table with a buy-in: each buy-in leaves a wallet,
    the pool is paid out at the end, and the wallets show it (not one chip made or lost)."""
    pages = [person(browser, server) for _ in range(3)]
    names = [fresh_name(stem) for stem in ("Ada", "Ben", "Cy")]
    for page, name in zip(pages, names, strict=True):
        sign_up(page, name)
    start = [balance(page) for page in pages]
    assert min(start) > 100
    table = create_as_account(pages[0], preset="arena", players=3, buy_in=100)
    pages[0].wait_for_selector('#table-pool[data-buy-in="100"]')
    wait_for_balance(pages[0], start[0] - 100)
    for page in pages[1:]:
        join_from_lobby(page, table)
    for page, chips in zip(pages[1:], start[1:], strict=True):
        wait_for_balance(page, chips - 100)
    assert pages[0].inner_text("#table-pool").count("300") == 1  # the pool: 3 x 100

    play_game(pages)
    after = []
    for page in pages:
        page.click("#nav-balance")
        page.wait_for_selector('#wallet-page[data-loaded="true"]')
        chips = int(page.get_attribute("#wallet-balance", "data-chips") or -1)
        after.append(chips)
        buy_in = page.locator('#wallet-entries tr[data-kind="buy_in"][data-amount="-100"]')
        assert buy_in.count() == 1
        assert balance(page) == chips  # the header shows the same balance
    assert sum(after) == sum(start)
    payouts = [page.locator('#wallet-entries tr[data-kind="payout"]').count() for page in pages]
    assert sum(payouts) >= 1
    winner = after.index(max(after))
    assert payouts[winner] == 1 and after[winner] > start[winner]
    for page in pages:  # no rematch at a buy-in table: each match is paid when sitting down
        page.go_back()
        page.wait_for_selector("#rematch-box")
        assert page.locator("#rematch").count() == 0

    # the poorest player takes the daily top-up, once
    poorest = after.index(min(after))
    page = pages[poorest]
    page.click("#nav-balance")
    page.wait_for_selector('#wallet-page[data-loaded="true"]')
    page.click("#wallet-topup")
    topup = page.locator('#wallet-entries tr[data-kind="topup"]')
    topup.wait_for()
    received = int(topup.get_attribute("data-amount") or 0)
    assert received > 0
    wait_for_balance(page, after[poorest] + received)
    assert page.get_attribute("#wallet-balance", "data-chips") == str(after[poorest] + received)
    assert page.get_attribute("#wallet-topup", "disabled") is not None
    no_errors(*pages)


def test_an_admin_bans_a_player_mid_game(server: ServerProcess, browser: Browser) -> None:
    """An administrator (made with `ginrummy admin create`) sees the live table, reads a chat
    report, sends a notice, and bans a player in the middle of a match: the player's page is
    closed and logged out, the other player plays on, and the log says who did what."""
    boss = make_admin(server)
    ann, bob, admin = (person(browser, server) for _ in range(3))
    ann_name, bob_name = fresh_name("Ann"), fresh_name("Bob")
    sign_up(ann, ann_name)
    sign_up(bob, bob_name)
    table = create_as_account(ann, preset="classic", players=2)
    join_from_lobby(bob, table)
    # both seats are accounts', and say so (a guest's nickname cannot pass for one)
    ann.wait_for_selector('.seat-box .badge[data-account="true"] >> nth=1')
    assert ann.locator('.seat-box .badge[data-account="false"]').count() == 0
    bob.fill("#chat-input", "you play like a potato")
    bob.click("#chat-send")
    ann.wait_for_selector("#chat-log li >> text=potato")
    ann.click("#chat-log li .report")
    ann.wait_for_selector("#chat-log li .report[disabled]")
    for _ in range(2):  # the match is under way
        page, _ = wait_for_await([ann, bob], {"act"})
        play_turn(page)

    log_in(admin, boss, then="/admin")
    admin.wait_for_selector('#admin-page[data-loaded="true"]')
    assert admin.locator("#nav-admin").count() == 1
    row = admin.locator(f'#admin-tables tr[data-table="{table}"]')
    assert ann_name in row.inner_text() and bob_name in row.inner_text()
    reports = admin.inner_text("#admin-reports")
    assert "potato" in reports and bob_name in reports and ann_name in reports
    admin.click("#admin-reports .handled-button")
    admin.wait_for_selector("#admin-reports .handled-button", state="detached")

    admin.fill("#admin-notice-text", "Server restarts at noon")
    admin.click("#admin-notice-send")
    ann.wait_for_selector(".toast.notice >> text=Server restarts at noon")

    admin.fill("#admin-name", bob_name)
    admin.click("#admin-ban")
    admin.wait_for_selector(f"#admin-log >> text={bob_name}")
    bob.wait_for_selector('#conn-status[data-status="closed"]')
    bob.wait_for_selector(".toast >> text=This account was banned.")
    bob.reload()
    bob.wait_for_selector("#nav-login")  # the ban ended the session
    # the page's socket carries the banned account's cookie: refused, not a spectator
    bob.wait_for_selector('#conn-status[data-status="closed"]')
    assert bob.get_attribute("#table-page", "data-seat") in ("", None)
    bob.goto("/login")
    bob.fill("#login-name", bob_name)
    bob.fill("#login-password", PASSWORD)
    bob.click("#login-submit")
    bob.wait_for_selector("#account-error:not([hidden])")
    assert "banned" in bob.inner_text("#account-error")
    my_turn(ann)  # the computer plays on in the banned player's seat
    play_turn(ann)

    admin.fill("#admin-name", bob_name)
    admin.click("#admin-unban")
    admin.wait_for_selector('#admin-log .log-action[data-action="unban"]')
    log_in(bob, bob_name)  # the ban is lifted: the account logs in again
    assert bob.inner_text("#nav-me") == bob_name


@pytest.mark.parametrize("lang", soak_except(LANGUAGES, keep={"hu"}))
def test_the_players_pages_in_each_language(server: ServerProcess, browser: Browser,
                                            lang: str) -> None:
    """Sign-up, profile, leaderboard, history, replay, wallet and account pages in each
    language: no untranslated key, no English left over."""
    locale = {"en": "en-GB", "fr": "fr-FR", "pl": "pl-PL", "hu": "hu-HU"}[lang]
    _, page = new_page(browser, server.base, locale=locale, motion=False)  # plays a game
    page.goto("/signup")
    page.wait_for_selector("#signup-form")
    texts = visible_texts(page)
    name = fresh_name("Lang")
    sign_up(page, name)
    promoted = subprocess.run([*serve_command()[:-1], "admin", "create", name, "--promote",
                               "--db", f"sqlite:///{server.db_path}"],
                              capture_output=True, text=True, timeout=60, check=False)
    assert promoted.returncode == 0, promoted.stderr
    create_as_account(page, preset="arena", players=2, bots={1: "simple"})
    play_game([page])
    texts += visible_texts(page)
    pages = {f"/players/{name}": '#profile-page[data-player] svg.rating-chart',
             "/leaderboard/arena": '#leaderboard-page[data-loaded="true"]',
             "/history": '#history-page[data-loaded="true"] .match-entry',
             "/wallet": '#wallet-page[data-loaded="true"]',
             "/account": ".account-page",
             "/admin": '#admin-page[data-loaded="true"] #admin-tables'}
    for path, ready in pages.items():
        page.goto(path)
        page.wait_for_selector(ready)
        # the moderation log's details and reported lines are people's and the server's words
        page.evaluate("() => document.querySelectorAll('.log-detail, #admin-reports q')"
                      ".forEach((node) => node.remove())")
        texts += visible_texts(page)
    page.goto("/history")
    page.click(".match-entry .replay-link")
    page.wait_for_selector("#replay-page[data-steps]")
    page.keyboard.press("End")
    page.wait_for_selector("#replay-outcome")
    texts += visible_texts(page)
    key_like = [t for t in texts if re.fullmatch(r"[a-z_]+(\.[\w]+)+", t)]
    assert key_like == []
    if lang != "en":
        own = set(catalogue(lang).values())
        leftovers = [(key, text) for text in texts if text not in own
                     for key, pattern in english_patterns(lang) if pattern.search(text)]
        assert leftovers == []
    no_errors(page)


def test_log_in_errors_and_the_wait_after_too_many_failures(
        server: ServerProcess, browser: Browser) -> None:
    """A wrong password and an unknown name read the same; after too many failures the form
    says how long to wait (429 with Retry-After); the right password then works elsewhere
    only after the wait, and a player goes back where they were after logging in."""
    page = person(browser, server)
    name = fresh_name("Flo")
    sign_up(page, name)
    page.click("#logout-button")
    page.wait_for_selector("#nav-login")
    page.click("#nav-leaderboard")
    page.wait_for_selector("#leaderboard-page")
    page.click("#nav-login")  # from the leaderboard: back there after logging in
    page.wait_for_selector("#login-form")

    def attempt(who: str, password: str) -> str:
        page.fill("#login-name", who)
        page.fill("#login-password", password)
        page.click("#login-submit")
        page.wait_for_function("() => !document.getElementById('account-error').hidden"
                               " && !document.getElementById('login-submit').disabled")
        text = page.inner_text("#account-error")
        page.evaluate("() => { document.getElementById('account-error').hidden = true; }")
        return text

    wrong = attempt(name, "not the password")
    unknown = attempt(fresh_name("Nobody"), "not the password")
    assert wrong == unknown and "Wrong user name or password" in wrong
    texts = [attempt(name, "still not it") for _ in range(8)]
    waits = [t for t in texts if re.search(r"Try again in \d+ s\.", t)]
    assert waits, texts
    assert "Too many attempts" in waits[0]
    assert page.locator("#nav-me").count() == 0

    other = person(browser, server)  # another name from the same address still logs in
    second = fresh_name("Gil")
    sign_up(other, second)
    other.click("#logout-button")
    other.wait_for_selector("#nav-login")
    log_in(other, second, then="/leaderboard")
    other.wait_for_selector("#leaderboard-page")
    assert other.url.endswith("/leaderboard")
    no_errors(other)


def test_a_page_left_before_its_answer_came_does_not_draw_over_the_next(
        server: ServerProcess, browser: Browser) -> None:
    """The leaderboard, left for the log-in form while its answer is on its way, draws
    nothing when the answer comes: the form stays (it was drawn over on a busy machine)."""
    page = person(browser, server)
    held: list[Route] = []
    page.route("**/api/leaderboard/**", lambda route: held.append(route))  # held until released
    page.goto("/leaderboard")
    page.wait_for_selector('#leaderboard-page[data-loaded="false"]')
    deadline = time.monotonic() + 20
    while not held and time.monotonic() < deadline:  # a poll: the route gets the request
        page.wait_for_timeout(20)
    assert len(held) == 1
    page.click("#nav-login")
    page.wait_for_selector("#login-form")
    with page.expect_response("**/api/leaderboard/**") as answer:
        held[0].continue_()
    answer.value.finished()  # its body read: the page's await goes on in its next tasks
    page.evaluate("() => new Promise((done) => setTimeout(done, 0))")
    assert page.locator("#leaderboard-page").count() == 0
    assert page.locator("#login-form").count() == 1
    no_errors(page)


def test_an_admin_kicks_a_player_and_closes_a_buy_in_table(
        server: ServerProcess, browser: Browser) -> None:
    """A kick takes a seat from its player (the computer plays on); closing a buy-in table
    before it starts refunds every buy-in and tells the players."""
    boss = make_admin(server)
    ann, bob, admin = (person(browser, server) for _ in range(3))
    ann_name, bob_name = fresh_name("Ann"), fresh_name("Bob")
    sign_up(ann, ann_name)
    sign_up(bob, bob_name)
    start = [balance(ann), balance(bob)]
    ann.goto("/admin")  # not an administrator: no admin link, and the page says so
    ann.wait_for_selector('#admin-page[data-forbidden="true"]')
    assert ann.locator("#nav-admin, #admin-tables, #admin-ban").count() == 0
    pooled = create_as_account(ann, preset="arena", players=3, buy_in=50)
    join_from_lobby(bob, pooled)
    wait_for_balance(ann, start[0] - 50)
    wait_for_balance(bob, start[1] - 50)
    log_in(admin, boss, then="/admin")
    admin.wait_for_selector(f'#admin-tables tr[data-table="{pooled}"]')
    admin.click(f'#admin-tables tr[data-table="{pooled}"] .close-button')
    ann.wait_for_selector(".toast.notice")
    ann.wait_for_selector("#status-line >> text=A moderator closed this table")
    wait_for_balance(ann, start[0])  # the header shows the refund at once
    for page, chips in ((ann, start[0]), (bob, start[1])):
        page.click("#nav-balance")
        page.wait_for_selector('#wallet-page[data-loaded="true"]')
        assert page.get_attribute("#wallet-balance", "data-chips") == str(chips)
        assert page.locator('#wallet-entries tr[data-kind="refund"][data-amount="50"]').count() == 1

    table = create_as_account(ann, preset="classic", players=2)
    join_from_lobby(bob, table)
    page, _ = wait_for_await([ann, bob], {"act"})
    play_turn(page)

    # mute, then unmute: the muted player's chat is refused with a clear message
    admin.fill("#admin-name", ann_name)
    admin.fill("#admin-minutes", "5")
    admin.click("#admin-mute")
    admin.wait_for_selector('#admin-log .log-action[data-action="mute"]')
    ann.fill("#chat-input", "can you hear me")
    ann.click("#chat-send")
    ann.wait_for_selector(".toast.error >> text=You are muted in chat")
    admin.click("#admin-unmute")
    admin.wait_for_selector('#admin-log .log-action[data-action="unmute"]')
    ann.fill("#chat-input", "back again")
    ann.click("#chat-send")
    bob.wait_for_selector("#chat-log li >> text=back again")

    admin.click("#admin-refresh")
    row = admin.locator(f'#admin-tables tr[data-table="{table}"]')
    row.wait_for()
    row.locator(".kick-seat").select_option("1")
    row.locator(".kick-button").click()
    bob.wait_for_selector(".toast >> text=An administrator removed you from this seat.")
    bob.wait_for_selector('#conn-status[data-status="closed"]')
    my_turn(ann)  # the computer plays on in the kicked seat
    play_turn(ann)
    admin.click("#admin-refresh")
    kicked = admin.locator('#admin-log li:has(.log-action[data-action="kick"])')
    kicked.wait_for()
    assert bob_name in kicked.inner_text() and table in kicked.inner_text()
    closed = admin.locator('#admin-log li:has(.log-action[data-action="close"])')
    assert pooled in closed.inner_text()


def fake_match(match_id: int, name: str) -> dict[str, object]:
    return {"id": match_id, "preset": "classic", "category": "classic", "ending": "over",
            "finished_at": "2026-12-01T12:00:00+00:00",
            "players": [{"seat": 0, "name": name, "account": True, "level": None, "score": 100,
                         "place": 1, "rating_before": 1500, "rating_after": 1520},
                        {"seat": 1, "name": None, "account": False, "level": "simple",
                         "score": 40, "place": 2, "rating_before": None,
                         "rating_after": None}]}


def test_history_pages_and_the_rating_chart(server: ServerProcess, browser: Browser) -> None:
    """The client's own logic on answers it is given (the routes are stubbed in the page):
    "Older matches" asks for the page before the last one shown and adds it; the chart puts
    a higher rating higher and one point per rated match."""
    page = person(browser, server)
    asked: list[str] = []

    def matches(route: Route) -> None:
        asked.append(route.request.url)
        before = re.search(r"before=(\d+)", route.request.url)
        ids = range(60, 10, -1) if before is None else range(int(before.group(1)) - 1, 0, -1)
        shown = list(ids)[:50]
        body = {"name": "Pat", "matches": [fake_match(i, "Pat") for i in shown],
                "next": shown[-1] if before is None else None}
        route.fulfill(status=200, content_type="application/json", body=json.dumps(body))

    page.route("**/api/players/Pat/matches*", matches)
    page.goto("/history/Pat")
    page.wait_for_selector('#history-page[data-loaded="true"]')
    assert page.locator(".match-entry").count() == 50
    page.click("#history-more")
    page.wait_for_function("() => document.querySelectorAll('.match-entry').length === 60")
    assert asked[-1].endswith("?before=11")
    assert page.locator("#history-more").count() == 0  # no further page
    entry = page.locator('.match-entry[data-match="60"]')
    assert "(+20)" in entry.inner_text()
    assert entry.locator(".record-link").get_attribute("href") == "/api/matches/60/record"

    history = [{"time": f"2026-11-{day:02d}T10:00:00+00:00", "rating": rating}
               for day, rating in ((1, 1500), (2, 1560), (3, 1480), (4, 1610))]
    profile = {"name": "Pat", "joined": "2026-11-01T09:00:00+00:00",
               "ratings": {"classic": {"rating": 1610, "deviation": 120, "games": 4,
                                       "rank": 3}},
               "history": {"classic": history},
               "stats": {"matches": 4, "won": 2, "points_per_hand": 12.5, "gin_rate": 0.25,
                         "knock_rate": 0.5, "undercut_rate": 0.125, "void_rate": 0,
                         "average_deadwood_caught": 14.25},
               "recent": [fake_match(60, "Pat")]}
    page.route("**/api/players/Pat", lambda route: route.fulfill(
        status=200, content_type="application/json", body=json.dumps(profile)))
    page.goto("/players/Pat")
    chart = page.locator('svg.rating-chart[data-category="classic"]')
    chart.wait_for()
    assert chart.get_attribute("data-points") == "4"
    ys = [float(y) for y in chart.locator("circle").evaluate_all(
        "cs => cs.map(c => c.getAttribute('cy'))")]
    ranked = [ys.index(y) for y in sorted(ys)]  # top of the chart first
    assert ranked == [3, 1, 0, 2]  # 1610, 1560, 1500, 1480
    xs = chart.locator("circle").evaluate_all("cs => cs.map(c => Number(c.getAttribute('cx')))")
    assert xs == sorted(xs)  # time runs to the right
    assert page.inner_text('#profile-stats dd[data-stat="gin_rate"]') == "25%"
    assert page.inner_text('#profile-ratings tr[data-category="classic"] td.rank') == "#3"
    # the only error: the server's 404 for the page of a name it does not know (stubbed here)
    assert [e for e in page.errors if "404" not in e] == []  # type: ignore[attr-defined]


def played(tid: str, name: str, status: str, place: int | None, players: int) -> dict[str, object]:
    return {"id": tid, "name": name, "format": "knockout", "status": status,
            "starts_at": "2026-12-01T18:00:00Z", "players": players, "place": place,
            "prize": None if place is None else 0}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_profile_tournaments_on_a_phone_in_each_language(server: ServerProcess,
                                                         browser: Browser, lang: str) -> None:
    """A profile's tournaments (the answer stubbed in the page): how many played, the best
    finish with a link to its tournament, the latest ones (one under way), in each language
    on a 390x844 phone, nothing wider than the screen; the link opens the tournament's
    page."""
    _, page = device_page(browser, server.base, LOCALES[lang], phone=True)
    best = played("cupB", "Winter cup", "over", 2, 8)
    profile = {"name": "Pat", "joined": "2026-11-01T09:00:00+00:00", "ratings": {},
               "history": {}, "stats": {}, "recent": [],
               "tournaments": {"played": 3, "best": best,
                               "recent": [played("cupC", "Evening cup", "running", None, 4),
                                          best, played("cupA", "Autumn cup", "over", 3, 4)]}}
    page.route("**/api/players/Pat", lambda route: route.fulfill(
        status=200, content_type="application/json", body=json.dumps(profile)))
    page.goto("/players/Pat")
    panel = page.locator('#profile-tournaments[data-played="3"]')
    panel.wait_for()
    texts = catalogue(lang)
    assert panel.locator("h2").inner_text() == texts["profile.tournaments"]
    assert page.inner_text("#profile-tournaments-played") == "3"
    finish = texts["profile.finish"].replace("{place}", "2").replace("{players}", "8")
    assert page.inner_text("#profile-best-finish").startswith(finish)
    assert page.locator("#profile-best-finish").get_attribute("data-place") == "2"
    rows = panel.locator(".played-tournaments li")
    assert rows.evaluate_all("ls => ls.map(l => l.dataset.tournament)") == [
        "cupC", "cupB", "cupA"]
    assert texts["tournaments.status.running"] in rows.nth(0).inner_text()
    wide = page.evaluate("() => document.documentElement.scrollWidth")
    assert wide <= 390, f"the page is {wide} px wide on a 390 px phone"
    box = page.evaluate("() => document.querySelector('#profile-tournaments')"
                        ".getBoundingClientRect().toJSON()")
    assert outside({"panel": box}, 390, 10_000) == []
    page.locator("#profile-best-finish .tournament-link").click()
    page.wait_for_url("**/tournaments/cupB")
    page.wait_for_selector("#tournament-page")
    # the only errors: the server's 404 for the stubbed names (Pat, cupB) it does not know
    assert [e for e in page.errors if "404" not in e] == []  # type: ignore[attr-defined]
