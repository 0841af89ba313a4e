"""The lobby that brings a player back and lets one tap play (issue 27, points 1, 6 and 7), in a
real browser (Chromium through Playwright) against a real `ginrummy serve` process:

- *Continue your game*: every game in progress this browser (its seat tokens) or account (every
  device's seats) holds is listed in the lobby and under *My matches*, and linked from the
  header; one tap goes back to the seat.
- *Play the computer* in one tap: a guest's nickname is made up (and kept, and editable).
- The arena form offers only what the server accepts: a buy-in table seats accounts only, so
  its computer seats are not offered while a buy-in is set, and the form says why.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from web_support import (
    LANGUAGES,
    ServerProcess,
    browser_missing,
    catalogue,
    new_page,
    wait_for_first_state,
)

if browser_missing():
    pytest.skip(browser_missing() or "", allow_module_level=True)

from playwright.sync_api import Browser, Page, expect

PASSWORD = "correct horse battery"
LOCALES = {"en": "en-GB", "fr": "fr-FR", "pl": "pl-PL", "hu": "hu-HU"}
_names = itertools.count(1)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    # every person here signs up from 127.0.0.1: raise the per-address limits for this server
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GINRUMMY_SIGNUPS_PER_ADDRESS", "100")
        patch.setenv("GINRUMMY_LOGIN_ATTEMPTS_PER_ADDRESS", "200")
        process = ServerProcess(tmp_path_factory.mktemp("resume") / "resume.db")
        process.start()
    try:
        yield process
    finally:
        process.stop()


def fresh_name(stem: str) -> str:
    """A name no other test of this module took (the server is shared)."""
    return f"{stem}{next(_names)}"


def sign_up(page: Page, name: str) -> None:
    page.goto("/")
    page.click("#nav-signup")
    page.wait_for_selector("#signup-form")
    page.fill("#signup-name", name)
    page.fill("#signup-password", PASSWORD)
    page.click("#signup-submit")
    page.wait_for_selector("#nav-me")


def log_in(page: Page, name: str) -> None:
    page.goto("/login?next=/")
    page.fill("#login-name", name)
    page.fill("#login-password", PASSWORD)
    page.click("#login-submit")
    page.wait_for_selector("#nav-me")


def table_id(page: Page) -> str:
    match = re.search(r"[?&]table=([^&]+)", page.url)
    assert match, page.url
    return match.group(1)


def play_computer(page: Page) -> str:
    """One tap on *Play now* in the lobby; returns the new table's id once its hand is dealt."""
    page.goto("/")
    page.click("#quick-submit")
    wait_for_first_state(page)
    page.wait_for_selector("#my-hand .card")
    return table_id(page)


def open_seats(page: Page) -> Any:
    """What POST /api/seats/open answers this page (its seat tokens and its account)."""
    return page.evaluate("""async () => {
        const tokens = [];
        for (let i = 0; i < localStorage.length; i += 1) {
            const key = localStorage.key(i);
            if (!key.startsWith('ginrummy.seat.') || key.length > 14 + 32) continue;
            const seat = JSON.parse(localStorage.getItem(key));
            if (seat && seat.token) tokens.push({table_id: key.slice(14), token: seat.token});
        }
        const answer = await fetch('/api/seats/open', {method: 'POST',
            headers: {'Content-Type': 'application/json'}, body: JSON.stringify({tokens})});
        return {status: answer.status, body: await answer.json()};
    }""")


def no_errors(page: Page) -> None:
    assert page.errors == [], page.errors  # type: ignore[attr-defined]


# --------------------------------------------------------------------------- point 1
def test_a_guest_continues_the_game_from_the_lobby_and_the_header(
        server: ServerProcess, browser: Browser) -> None:
    """A guest's game in progress (a private table against the computer, its seat token in
    this browser) is listed in the lobby under *Continue your game* and linked from the header;
    one tap on either brings the guest back to the seat, cards in hand."""
    en = catalogue("en")
    _, page = new_page(browser, server.base)
    table = play_computer(page)
    hand = sorted(page.eval_on_selector_all("#my-hand .card", "cs => cs.map(c => c.dataset.card)"))
    # on its own table the header does not offer the table shown
    expect(page.locator("#nav-resume")).to_have_count(0)

    page.click("#brand")  # back to the lobby, as a player who left the table would be
    entry = page.locator(f'#resume-games .resume-entry[data-table="{table}"]')
    expect(entry).to_be_visible()
    expect(page.locator("#resume-heading")).to_have_text(en["resume.title"])
    level = page.evaluate("async () => (await (await fetch('/api/bots')).json()).default")
    computer = en["seat.computer"].replace("{level}", en.get(f"bot.{level}", level))
    expect(entry.locator(".resume-against")).to_contain_text(computer)
    header = page.locator("#nav-resume")
    expect(header).to_be_visible()
    expect(header).to_have_text(en["resume.title"])
    assert header.get_attribute("data-table") == table

    entry.locator(".continue-game").click()  # one tap back
    wait_for_first_state(page)
    assert table_id(page) == table
    expect(page.locator("#table-page")).to_have_attribute("data-seat", "0")
    page.wait_for_selector("#my-hand .card")
    again = sorted(page.eval_on_selector_all("#my-hand .card", "cs => cs.map(c => c.dataset.card)"))
    assert again == hand  # the same seat: the same cards (no move of ours in between)

    page.goto("/leaderboard")  # any other page: the header's link goes back in one tap
    expect(page.locator("#nav-resume")).to_be_visible()
    page.click("#nav-resume")
    wait_for_first_state(page)
    assert table_id(page) == table
    expect(page.locator("#table-page")).to_have_attribute("data-seat", "0")

    # the answer names seats and tables only: no token, no card, no invite
    answer = open_seats(page)
    assert answer["status"] == 200
    assert [s["table_id"] for s in answer["body"]["seats"]] == [table]
    text = json.dumps(answer["body"])
    for secret in ("token", "invite", "hand", "cards", *hand):
        assert f'"{secret}"' not in text, secret
    no_errors(page)


def test_a_seat_that_holds_nothing_is_not_listed(server: ServerProcess, browser: Browser) -> None:
    """A kept seat token of a table that is gone, or a token that is wrong, lists nothing and
    costs no error: no *Continue your game* then."""
    _, page = new_page(browser, server.base)
    page.goto("/")
    page.wait_for_selector("#quick-form")
    page.evaluate("""() => {
        const keep = (id, s) => localStorage.setItem('ginrummy.seat.' + id, JSON.stringify(s));
        keep('NoSuchTable1', {seat: 0, token: 'x'.repeat(32)});
        keep('y'.repeat(40), {seat: 0, token: 'z'});
    }""")
    page.reload()
    page.wait_for_selector("#quick-form")
    expect(page.locator("#resume-games")).to_be_hidden()
    expect(page.locator("#nav-resume")).to_have_count(0)
    assert open_seats(page)["body"] == {"seats": []}
    no_errors(page)


def test_an_account_finds_its_game_on_another_device_and_under_my_matches(
        server: ServerProcess, browser: Browser) -> None:
    """An account's game in progress, begun in one browser, is found from another one (no seat
    token kept there): in the lobby, in the header and under *My matches* (games in progress),
    and one tap sits the account back at its seat of the private table."""
    en = catalogue("en")
    name = fresh_name("Resumer")
    _, phone = new_page(browser, server.base)
    sign_up(phone, name)
    table = play_computer(phone)

    _, desktop = new_page(browser, server.base)  # another device: nothing in its storage
    log_in(desktop, name)
    entry = desktop.locator(f'#resume-games .resume-entry[data-table="{table}"]')
    expect(entry).to_be_visible()
    expect(desktop.locator("#nav-resume")).to_be_visible()

    desktop.click("#nav-history")
    section = desktop.locator("#history-in-progress")
    expect(section).to_be_visible()
    expect(section.locator("h2")).to_have_text(en["history.in_progress"])
    mine = section.locator(f'.resume-entry[data-table="{table}"]')
    expect(mine).to_be_visible()
    mine.locator(".continue-game").click()  # one tap back
    wait_for_first_state(desktop)
    assert table_id(desktop) == table
    expect(desktop.locator("#table-page")).to_have_attribute("data-seat", "0")
    desktop.wait_for_selector("#my-hand .card")
    no_errors(desktop)
    no_errors(phone)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_continue_texts_in_each_language(server: ServerProcess, browser: Browser,
                                         lang: str) -> None:
    """The lobby's and the header's *Continue your game* come from the page's language."""
    texts = catalogue(lang)
    _, page = new_page(browser, server.base, locale=LOCALES[lang])
    table = play_computer(page)
    page.click("#brand")
    expect(page.locator("#resume-heading")).to_have_text(texts["resume.title"])
    expect(page.locator("#nav-resume")).to_have_text(texts["resume.title"])
    button = page.locator(f'.resume-entry[data-table="{table}"] .continue-game')
    expect(button).to_have_text(texts["resume.continue"])
    no_errors(page)


# --------------------------------------------------------------------------- point 6
@pytest.mark.parametrize("lang", LANGUAGES)
def test_play_the_computer_in_one_tap_with_a_made_up_name(
        server: ServerProcess, browser: Browser, lang: str) -> None:
    """A new visitor taps *Play now* without typing anything: a guest name is made up in the
    page's language, shown in the (editable) nickname field, kept across reloads, and the
    game starts with it; no "enter a nickname" refusal."""
    texts = catalogue(lang)
    made_up = re.compile(re.escape(texts["lobby.guest_name"]).replace(r"\{number\}", r"\d{4}"))
    _, page = new_page(browser, server.base, locale=LOCALES[lang])
    page.goto("/")
    page.wait_for_selector("#quick-form")
    name = page.input_value("#nickname")
    assert made_up.fullmatch(name), name
    page.reload()
    page.wait_for_selector("#quick-form")
    assert page.input_value("#nickname") == name  # remembered
    page.click("#quick-submit")  # the one tap
    wait_for_first_state(page)
    page.wait_for_selector("#my-hand .card")
    expect(page.locator("#table-page")).to_have_attribute("data-seat", "0")
    assert page.locator(".toast.error").count() == 0
    no_errors(page)


def test_the_made_up_name_is_editable_and_a_cleared_one_is_made_up_again(
        server: ServerProcess, browser: Browser) -> None:
    """A name typed over the made-up one is the one played under and kept; a field cleared
    before the tap gets a made-up name again rather than a refusal."""
    en = catalogue("en")
    made_up = re.compile(re.escape(en["lobby.guest_name"]).replace(r"\{number\}", r"\d{4}"))
    _, page = new_page(browser, server.base)
    page.goto("/")
    page.wait_for_selector("#quick-form")
    page.fill("#nickname", "Zelda")
    page.click("#quick-submit")
    wait_for_first_state(page)
    expect(page.locator("#table-page")).to_have_attribute("data-seat", "0")
    page.click("#brand")
    page.wait_for_selector("#quick-form")
    assert page.input_value("#nickname") == "Zelda"
    page.fill("#nickname", "")
    page.click("#quick-submit")
    wait_for_first_state(page)
    page.click("#brand")
    page.wait_for_selector("#quick-form")
    assert made_up.fullmatch(page.input_value("#nickname")), page.input_value("#nickname")
    assert page.locator(".toast.error").count() == 0
    no_errors(page)


# --------------------------------------------------------------------------- point 7
@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_buy_in_offers_no_computer_seat_and_says_why(
        server: ServerProcess, browser: Browser, lang: str) -> None:
    """With a buy-in the arena form offers no computer seat (the server seats accounts only
    at such a table) and says so; the prize pool follows the people; submitting makes the
    table (no "bots: ..." refusal). Without the buy-in the computer seats come back."""
    texts = catalogue(lang)
    _, page = new_page(browser, server.base, locale=LOCALES[lang])
    sign_up(page, fresh_name("Arena"))
    page.goto("/")
    page.wait_for_selector("#create-form")
    page.select_option("#create-preset", "arena")
    page.select_option("#create-players", "3")
    seats = page.locator("#create-seats .seat-kind")
    default = page.eval_on_selector_all("#create-seats .seat-kind", "ss => ss.map(s => s.value)")
    assert all(default), default  # the computer, by default
    page.fill("#create-buy-in", "50")
    expect(page.locator("#create-seats-note")).to_have_text(texts["create.buy_in_accounts_only"])
    for index in range(seats.count()):
        expect(seats.nth(index)).to_have_value("")
    offered = page.eval_on_selector_all(
        "#create-seats .seat-kind option:not([disabled])", "os => os.map(o => o.value)")
    assert set(offered) == {""}, offered
    expect(page.locator("#create-pool")).to_be_disabled()

    page.fill("#create-buy-in", "")  # no buy-in: the computer is offered again
    expect(page.locator("#create-seats-note")).to_have_count(0)
    assert page.eval_on_selector_all("#create-seats .seat-kind", "ss => ss.map(s => s.value)") \
        == default
    page.fill("#create-buy-in", "50")
    expect(page.locator("#create-seats-note")).to_be_visible()
    page.click("#create-submit")
    wait_for_first_state(page)  # the server took it
    expect(page.locator("#table-page")).to_have_attribute("data-seat", "0")
    entry = page.evaluate("async id => (await (await fetch('/api/tables/' + id)).json())",
                          table_id(page))
    assert entry["buy_in"] == 50
    assert [s["kind"] for s in entry["seats"]][1:] == ["empty", "empty"]
    assert page.locator(".toast.error").count() == 0
    no_errors(page)
