"""Issue 27's small points (12), the fair-deal mark and page (10) and the rating change in the
match's banner (4), in a real browser (Chromium through Playwright) against a real `ginrummy
serve` process restored at chosen deals (no whole match played):

- the log-in error says its words once; the sign-up error names every problem;
- on a phone: no key hints on the buttons, "Tap a card twice", the rules dialog opens at its
  top, and a tap on the card just taken says why it may not be discarded;
- a skip link is the first Tab stop and leads past the header;
- a public table waiting for players shows its address to share; the spectator's badge reads;
- the create form hides the options that do not apply;
- the wallet names the table of an entry, and the Polish top-up sentence;
- the fair-deal mark (icon, one plain sentence, a link) and the /fair page checking a record;
- a rated match's banner shows the rating change.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_support import (
    LANGUAGES,
    LOCALES,
    PHONE,
    ServerProcess,
    browser_missing,
    catalogue,
    new_page,
    no_undo_wait,
    wait_for_first_state,
    wait_until_still,
)

from ginrummy.cards import CARD_NAMES
from ginrummy.rules import Ruleset
from ginrummy.server.core.auth import secret_hash
from ginrummy.server.core.kinds import EventKind, SeatKind, Source, TableStatus
from ginrummy.storage import (
    InsertEvent,
    InsertTable,
    Repository,
    StoredEvent,
    StoredSeat,
    StoredTable,
    migrate,
    open_engine,
)
from ginrummy.storage.accounts import AccountStore

if browser_missing():
    pytest.skip(browser_missing() or "", allow_module_level=True)

from playwright.sync_api import Browser, Page, expect

from fair_helpers import fair_match_record
from layoff_deal import deck

PASSWORD = "correct horse battery"
GIN_HAND = ["2h", "3h", "4h", "5h", "7s", "7d", "7c", "Jd", "Qd", "9c"]
"""Seat 0 draws Kd and has gin: [2h 3h 4h 5h] [7s 7d 7c] [Jd Qd Kd], discarding 9c."""
OTHER = ["Ks", "Qs", "Jc", "9s", "6c", "5s", "3c", "Th", "Ac", "2s"]
UPCARD = "8h"


def stored_table(table_id: str, token: str, first: str, account: int | None = None
                 ) -> StoredTable:
    """A classic match to 10 points against the computer; seat 0 (holding ``token``) has
    played ``first`` (``stock``: drawn Kd, gin in hand; ``take``: taken the upcard 8h, which
    it may not discard this turn)."""
    rules = Ruleset.preset("classic").replace(target=10)
    cards = deck(GIN_HAND, OTHER, UPCARD, ["Kd"])
    events = [StoredEvent(1, EventKind.MATCH, json.dumps({"first_dealer": 1})),
              StoredEvent(2, EventKind.DEAL, " ".join(CARD_NAMES[c] for c in cards)),
              StoredEvent(3, EventKind.ACTION, first, 0, Source.HUMAN)]
    seats = [StoredSeat(0, SeatKind.HUMAN, "Ann", None, secret_hash(token), False, account),
             StoredSeat(1, SeatKind.BOT, "Simple", "simple")]
    return StoredTable(id=table_id, name="Small", preset="classic", rules=rules.to_dict(),
                       players=2, public=True, invite_hash=None, clock_ms=0, pool_chips=None,
                       status=TableStatus.PLAYING, version=len(events), seats=seats,
                       events=events)


def seed(db_file: Path) -> None:
    engine = open_engine(f"sqlite:///{db_file}")
    try:
        migrate(engine)
        accounts = AccountStore(engine)
        for lang in LANGUAGES:
            rated = accounts.create(f"Rated{lang}", f"rated{lang}", "not-a-hash").id
            for table in (stored_table(f"gin-{lang}", f"tok-gin-{lang}", "stock"),
                          stored_table(f"taken-{lang}", f"tok-taken-{lang}", "take"),
                          stored_table(f"rated-{lang}", f"tok-rated-{lang}", "stock", rated)):
                Repository(engine).write([InsertTable(table),
                                          *(InsertEvent(table.id, e) for e in table.events)])
    finally:
        engine.dispose()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    folder: Path = tmp_path_factory.mktemp("small")
    seed(folder / "web.db")
    process = ServerProcess(folder / "web.db", env={
        "GINRUMMY_SIGNUPS_PER_ADDRESS": "100", "GINRUMMY_LOGIN_ATTEMPTS_PER_ADDRESS": "200"})
    process.start()
    try:
        yield process
    finally:
        process.stop()


def phone(browser: Browser, server: ServerProcess, lang: str) -> Page:
    """A phone (touch, no mouse) in ``lang``."""
    context = browser.new_context(locale=LOCALES[lang], base_url=server.base, viewport=PHONE,
                                  has_touch=True, is_mobile=True, device_scale_factor=2)
    no_undo_wait(context)
    context.set_default_timeout(20_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(f"pageerror: {error}"))
    page.on("console", lambda msg: errors.append(f"console: {msg.text}")
            if msg.type == "error" or "missing message" in msg.text else None)
    page.errors = errors  # type: ignore[attr-defined]
    return page


def take_seat(page: Page, table: str, token: str) -> None:
    page.goto("/")
    page.evaluate("([id, token]) => localStorage.setItem(`ginrummy.seat.${id}`,"
                  " JSON.stringify({ seat: 0, token, invite: null }))", [table, token])
    page.goto(f"/?table={table}")
    wait_for_first_state(page)


# ------------------------------------------------------------------------ accounts
@pytest.mark.parametrize("lang", LANGUAGES)
def test_log_in_and_sign_up_errors_say_every_problem_once(
        server: ServerProcess, browser: Browser, lang: str) -> None:
    words = catalogue(lang)
    _, page = new_page(browser, server.base, LOCALES[lang])
    page.goto("/login")
    page.fill("#login-name", f"Nobody{lang}")
    page.fill("#login-password", "not the password")
    page.click("#login-submit")
    error = page.locator("#account-error")
    expect(error).to_be_visible()
    # the words once, in the page's language: no server words in brackets after them
    expect(error).to_have_text(words["error.bad_credentials"])
    page.goto("/signup")
    page.fill("#signup-name", "a")
    page.fill("#signup-password", "short")
    page.click("#signup-submit")
    expect(error).to_be_visible()
    name = words["account.bad_name"].replace("{min}", "3").replace("{max}", "20")
    password = words["account.bad_password"].replace("{min}", "8").replace("{max}", "128")
    expect(error).to_have_text(f"{name} {password}")
    # the refused log-in's 401 is the browser's own line; nothing else went wrong
    assert [e for e in page.errors if "status of 401" not in e] == []  # type: ignore[attr-defined]


# ------------------------------------------------------------------------ a phone
@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_phone_is_told_to_tap_without_key_hints(
        server: ServerProcess, browser: Browser, lang: str) -> None:
    words = catalogue(lang)
    page = phone(browser, server, lang)
    take_seat(page, f"gin-{lang}", f"tok-gin-{lang}")
    gin = page.locator("#action-gin")
    expect(gin).to_be_visible()
    assert gin.inner_text().strip() == words["action.gin"].removesuffix(" (G)")
    assert "(" not in gin.inner_text()
    expect(page.locator("#discard-help")).to_have_text(words["action.discard_help_touch"])
    # the rules dialog opens at its top, on its heading, though it is taller than the screen
    page.click("#rules-button")
    dialog = page.locator("#rules-dialog")
    expect(dialog).to_be_visible()
    expect(page.locator("#rules-dialog-title")).to_be_focused()
    sizes = dialog.evaluate("d => [d.scrollTop, d.scrollHeight, d.clientHeight]")
    assert sizes[1] > sizes[2], f"the dialog fits the screen: {sizes}"
    assert sizes[0] == 0, f"the dialog opened scrolled: {sizes}"
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_tap_on_the_card_just_taken_says_why_it_stays(
        server: ServerProcess, browser: Browser, lang: str) -> None:
    words = catalogue(lang)
    page = phone(browser, server, lang)
    take_seat(page, f"taken-{lang}", f"tok-taken-{lang}")
    taken = page.locator(f'#my-hand [data-card="{UPCARD}"]')
    expect(taken).to_have_attribute("aria-disabled", "true")
    version = page.get_attribute("#table-page", "data-version")
    wait_until_still(page)  # the deal's cards have landed
    # on its visible corner (the next card covers the rest); forced: Playwright waits for an
    # aria-disabled element to be enabled
    taken.tap(force=True, position={"x": 6, "y": 12})
    before, _, after = words["hand.taken_no_discard"].partition("{card}")
    toast = page.locator("#toasts .toast").last
    expect(toast).to_contain_text(after.strip() or before.strip())
    expect(toast).to_contain_text(before.strip() or after.strip())
    # nothing was sent: the card is still there and the state did not move
    assert page.get_attribute("#table-page", "data-version") == version
    expect(taken).to_have_count(1)
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()


# ------------------------------------------------------------------------ the lobby
@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_skip_link_leads_past_the_header(
        server: ServerProcess, browser: Browser, lang: str) -> None:
    words = catalogue(lang)
    _, page = new_page(browser, server.base, LOCALES[lang])
    page.goto("/")
    page.wait_for_selector("#nickname")
    page.keyboard.press("Tab")
    skip = page.locator("#skip-link")
    expect(skip).to_be_focused()
    expect(skip).to_have_text(words["nav.skip"])
    assert skip.is_visible()  # shown while focused
    page.keyboard.press("Enter")
    expect(page.locator("#app")).to_be_focused()
    tabs = 0
    while not page.evaluate("() => document.activeElement?.id === 'nickname'") and tabs < 12:
        page.keyboard.press("Tab")
        tabs += 1
        assert page.evaluate("() => document.getElementById('app')"
                             ".contains(document.activeElement)")
    assert page.evaluate("() => document.activeElement.id") == "nickname", tabs
    assert tabs <= 4, f"{tabs} tabs from the skip link to the nickname"
    assert page.errors == []  # type: ignore[attr-defined]


def contrast_js() -> str:
    return """node => {
        const rgb = (c) => c.match(/[\\d.]+/g).slice(0, 3).map(Number);
        const lum = (c) => { const [r, g, b] = rgb(c).map((v) => { v /= 255;
            return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
            return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
        const style = getComputedStyle(node);
        const [a, b] = [lum(style.color), lum(style.backgroundColor)].sort((x, y) => y - x);
        return (a + 0.05) / (b + 0.05);
    }"""


def test_a_public_table_waiting_shows_its_link_and_a_readable_spectator_badge(
        server: ServerProcess, browser: Browser) -> None:
    _, host = new_page(browser, server.base)
    host.goto("/")
    host.wait_for_selector("#create-form")
    host.fill("#nickname", "Host")
    host.select_option('#create-seats .seat-kind[data-seat="1"]', "")  # a free seat
    host.click("#create-submit")
    wait_for_first_state(host)
    table = host.evaluate("() => new URLSearchParams(location.search).get('table')")
    share = host.locator("#share-link")
    expect(share).to_have_value(f"{server.base}/?table={table}")
    _, visitor = new_page(browser, server.base)
    visitor.goto(f"/?table={table}")
    wait_for_first_state(visitor)
    badge = visitor.locator(".table-head .badge", has_text=catalogue("en")["table.spectating"])
    expect(badge).to_be_visible()
    ratio = badge.evaluate(contrast_js())
    assert ratio >= 4.5, f"the spectator badge's contrast is {ratio:.2f}:1"
    expect(visitor.locator("#share-link")).to_have_count(0)  # not seated: nothing to share
    for page in (host, visitor):
        assert page.errors == []  # type: ignore[attr-defined]


def test_the_create_form_shows_only_the_options_that_apply(
        server: ServerProcess, browser: Browser) -> None:
    _, page = new_page(browser, server.base)
    page.goto("/")
    page.wait_for_selector("#create-form")
    page.select_option("#create-preset", "classic")
    page.click("#create-form details.options summary")
    label = "#create-form label:has(#opt-{})"
    expect(page.locator(label.format("big_gin"))).to_be_visible()
    page.set_checked("#opt-big_gin", False)
    expect(page.locator(label.format("big_gin_bonus"))).to_be_hidden()
    page.set_checked("#opt-big_gin", True)
    expect(page.locator(label.format("big_gin_bonus"))).to_be_visible()
    expect(page.locator(label.format("payout"))).to_be_hidden()  # a match has no payouts
    page.select_option("#opt-format", "single_hand")
    expect(page.locator(label.format("payout"))).to_be_visible()
    expect(page.locator(label.format("target"))).to_be_hidden()
    assert page.errors == []  # type: ignore[attr-defined]


# ------------------------------------------------------------------------ the wallet
def test_the_wallet_names_the_table_and_the_polish_top_up_reads(
        server: ServerProcess, browser: Browser) -> None:
    words = catalogue("pl")
    _, page = new_page(browser, server.base, LOCALES["pl"])
    page.goto("/signup")
    page.fill("#signup-name", "Portfel")
    page.fill("#signup-password", PASSWORD)
    page.click("#signup-submit")
    page.wait_for_selector("#nav-me")
    page.goto("/")
    page.wait_for_selector("#create-form")
    page.select_option("#create-preset", "arena")  # (re-renders the form)
    page.fill("#create-name", "Piątkowa arena")
    page.fill("#create-buy-in", "100")
    page.click("#create-submit")
    wait_for_first_state(page)
    page.goto("/wallet")
    row = page.locator('#wallet-entries tr[data-kind="buy_in"]')
    expect(row.locator("a.table-link")).to_have_text("Piątkowa arena")
    # the top-up's sentence (the chips in the pool still count, so none is offered now): as
    # the page's own catalogue words it, for the plural forms Polish has
    sentences = page.evaluate("""async () => {
        const app = document.querySelector('script[type="module"]').src;
        const { t } = await import(app.replace(/app\\.js$/, "i18n.js"));
        return [1, 3, 100].map((n) => t("wallet.topup", { count: n, chips: String(n) }));
    }""")
    assert sentences == ["Odbierz 1 darmowy żeton na dziś", "Odbierz 3 darmowe żetony na dziś",
                         "Odbierz 100 darmowych żetonów na dziś"]
    assert words["wallet.topup_none"] == "Codzienne darmowe żetony"
    assert page.errors == []  # type: ignore[attr-defined]


# ------------------------------------------------------------------------ fair deals
@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_fair_mark_is_an_icon_a_sentence_and_a_link(
        server: ServerProcess, browser: Browser, lang: str) -> None:
    from test_web_fair_checks import commit_then_seed, feed, hand_states

    words = catalogue(lang)
    _, page = new_page(browser, server.base, LOCALES[lang])
    page.goto("/")
    page.wait_for_selector("#nickname")
    page.evaluate("""async () => {
        const app = document.querySelector('script[type="module"]').src;
        const m = await import(app.replace(/app\\.js$/, "fair.js"));
        window.__sent = [];
        const send = (msg) => { window.__sent.push(msg); return true; };
        window.__deals = new m.FairDeals({ send });
    }""")
    seeds, made = commit_then_seed(page)
    states = hand_states(seeds, made, seat=0)
    assert feed(page, states)["result"]["verified"] is True
    mark: dict[str, Any] = page.evaluate("""(last) => {
        const mark = window.__deals.mark(last);
        document.getElementById('app').append(mark);
        const how = mark.querySelector('details.fair-how');
        return { icon: mark.querySelector('.fair-icon').textContent,
                 hidden: mark.querySelector('.fair-icon').getAttribute('aria-hidden'),
                 plain: mark.querySelector('.fair-plain').textContent,
                 link: mark.querySelector('a.fair-page-link').getAttribute('href'),
                 linkText: mark.querySelector('a.fair-page-link').textContent,
                 hexShown: [...mark.querySelectorAll('.fair-hex')].some((n) => n.checkVisibility()),
                 folded: !how.open, text: mark.innerText };
    }""", states[-1])
    assert mark["icon"] and mark["hidden"] == "true"
    assert mark["plain"] == words["fair.plain_verified"]
    assert mark["link"] == "/fair" and mark["linkText"] == words["fair.page_link"]
    assert mark["folded"] and not mark["hexShown"]  # the hashes behind "Technical details"
    assert "ginrummy verify" not in mark["text"]
    page.click("#fair-page-link")
    expect(page.locator("#fair-page h1")).to_have_text(words["fair.page.title"])
    assert page.url.endswith("/fair")
    assert page.errors == []  # type: ignore[attr-defined]


def test_the_fair_page_checks_a_downloaded_record(
        server: ServerProcess, browser: Browser, tmp_path: Path) -> None:
    honest = fair_match_record(8, target=25)
    tampered = json.loads(json.dumps(honest))
    cards = tampered["hands"][1]["deck"].split()
    cards[13], cards[40] = cards[40], cards[13]
    tampered["hands"][1]["deck"] = " ".join(cards)
    (tmp_path / "honest.json").write_text(json.dumps(honest))
    (tmp_path / "tampered.json").write_text(json.dumps(tampered))
    (tmp_path / "other.json").write_text("{\"not\": \"a record\"}")
    hands = len(honest["hands"])
    for lang in LANGUAGES:
        words = catalogue(lang)
        _, page = new_page(browser, server.base, LOCALES[lang])
        response = page.goto("/fair")
        assert response is not None and response.status == 200
        expect(page.locator("#fair-page h1")).to_have_text(words["fair.page.title"])
        page.set_input_files("#fair-file", str(tmp_path / "honest.json"))
        results = page.locator("#fair-results")
        expect(results).to_have_attribute("data-verified", str(hands))
        expect(page.locator("#fair-summary")).to_have_text(
            words["fair.page.summary"].replace("{verified}", str(hands))
            .replace("{total}", str(hands)))
        page.set_input_files("#fair-file", str(tmp_path / "tampered.json"))
        expect(results).to_have_attribute("data-verified", str(hands - 1))
        failed = page.locator('#fair-results li[data-verified="false"]')
        expect(failed).to_have_attribute("data-hand", "2")
        expect(failed).to_contain_text(words["fair.problem_deck"])
        page.set_input_files("#fair-file", str(tmp_path / "other.json"))
        expect(page.locator("#fair-results")).to_have_text(words["fair.page.bad_file"])
        assert page.errors == []  # type: ignore[attr-defined]
        page.context.close()


# ------------------------------------------------------------------------ ratings
@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_rated_match_ends_with_the_rating_change(
        server: ServerProcess, browser: Browser, lang: str) -> None:
    words = catalogue(lang)
    page = phone(browser, server, lang)
    take_seat(page, f"rated-{lang}", f"tok-rated-{lang}")
    page.click("#action-gin")
    page.click("#knock-panel #confirm-knock")
    ratings = page.locator("#match-banner #match-ratings")
    expect(ratings).to_be_visible()
    expect(ratings).to_contain_text(words["banner.ratings"])
    change = ratings.locator('.rating-change[data-seat="0"]')
    expect(change).to_contain_text("Ann")
    assert change.locator("strong").inner_text().startswith("+")  # a gin: a win
    assert ratings.locator('.rating-change[data-seat="1"]').count() == 0  # the computer's fixed
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()
