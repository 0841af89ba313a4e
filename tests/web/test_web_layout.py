"""The table's layout, measured in a real browser (Chromium through Playwright) against a real
`ginrummy serve` (issue 13, point 1): bounding boxes, not pixels.

- On a phone (390x844, device scale 3, touch), in each language and with large cards, a hand
  is played against the computer and at every one of the player's steps the hand (each of its
  cards), the stock, the discard pile and the action bar's buttons are inside the viewport
  with the page at its top (no scrolling), the page is no wider than the screen, and the hand
  lies in one or two rows; at the hand's end, so is *Next hand*.
- On a laptop (1366x900) the score sheet stands beside the table and every one of its header
  cells and payout cells is visible inside the sheet's visible box, with no sideways
  scrolling needed, for a 2-player classic match after one hand and a 4-player arena
  with three computers after its hand; on the phone the arena's sheet scrolls sideways and
  its first column stays in view.
- The create form's option lists show every choice whole, in every language, at both sizes.

Screenshots of the table at both sizes in each language are saved, as test artifacts (never
compared), into the directory named by GINRUMMY_ARTIFACTS (default: test-artifacts/ at the
repository's root).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_support import (
    DESKTOP,
    LANGUAGES,
    PHONE,
    SETTLED_JS,
    WAIT_JS,
    ServerProcess,
    browser_missing,
    catalogue,
    create_table,
    device_page,
    discard_step,
    outside,
    play_game,
    play_turn,
    play_until,
    running_server,
    soak_except,
    wait_for_await,
)

if browser_missing():
    pytest.skip(browser_missing() or "", allow_module_level=True)

from playwright.sync_api import Browser, Page

ARTIFACTS = Path(os.environ.get("GINRUMMY_ARTIFACTS")
                 or Path(__file__).resolve().parents[2] / "test-artifacts")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running_server(tmp_path_factory.mktemp("layout")) as process:
        yield process


open_page = device_page


def screenshot(page: Page, name: str) -> Path:
    """Save a screenshot of the viewport as a test artifact."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.wait_for_function(SETTLED_JS, polling=50)  # no card caught in flight
    page.screenshot(path=str(path))
    return path


# --------------------------------------------------------------------------- the phone
MEASURE_JS = """() => {
    window.scrollTo(0, 0);
    const box = (node) => {
        if (!node) return null;
        const r = node.getBoundingClientRect();
        return {left: r.left, top: r.top, right: r.right, bottom: r.bottom};
    };
    const hand = document.getElementById('my-hand');
    const cards = hand ? [...hand.querySelectorAll('.card')] : [];
    // rows from the layout (offsets ignore a chosen card's lift and any motion)
    const tops = cards.map((c) => c.offsetTop + c.offsetParent.offsetTop);
    const rows = [];
    for (const top of tops.sort((a, b) => a - b)) {
        if (!rows.length || top - rows[rows.length - 1] > 4) rows.push(top);
    }
    const named = {hand: box(hand), stock: box(document.getElementById('stock')),
                   discard: box(document.getElementById('discard-pile'))};
    cards.forEach((c, i) => { named[`card ${c.dataset.card}`] = box(c); });
    // the primary actions: the action bar's buttons (the layoff's confirmation when laying off)
    const buttons = [...document.querySelectorAll('#action-bar button, #confirm-layoff')];
    buttons.forEach((b) => { named[`button #${b.id}`] = box(b); });
    return {named, buttons: buttons.length, cards: cards.length, rows: rows.length,
            cardWidth: cards.length ? cards[0].getBoundingClientRect().width : 0,
            scrollY: window.scrollY, pageWidth: document.documentElement.scrollWidth,
            large: document.body.classList.contains('large-cards'),
            width: window.innerWidth, height: window.innerHeight};
}"""


def measure(page: Page, step: str) -> dict[str, Any]:
    """The page at its top: every measured box on screen, an action button, one or two rows.
    (When a check is to fail, the screen is saved first, as ``last-step.png``.)"""
    m: dict[str, Any] = page.evaluate(MEASURE_JS)
    problems = outside(m["named"], m["width"], m["height"])
    if (m["scrollY"] != 0 or problems or m["buttons"] < 1 or m["pageWidth"] > m["width"]
            or m["width"] != PHONE["width"]
            or not 1 <= m["rows"] <= 2):
        screenshot(page, "last-step")
    assert m["scrollY"] == 0, step
    # something wider than the screen, even for a moment, makes the phone's browser widen the
    # page for good (and the table no longer fits): the page stays the screen's width
    assert m["width"] == PHONE["width"], f"{step}: the page was widened to {m['width']} px"
    assert problems == [], f"{step}: outside the {m['width']}x{m['height']} screen: {problems}"
    assert m["buttons"] >= 1, f"{step}: no action button"
    assert m["pageWidth"] <= m["width"], f"{step}: the page is {m['pageWidth']} px wide"
    assert 1 <= m["rows"] <= 2, f"{step}: the hand is in {m['rows']} rows"
    return m


def play_hand_measuring(page: Page, label: str) -> tuple[list[dict[str, Any]], str]:
    """Play the page's seat through one hand; at each of its steps measure the page at its top
    (a discard is measured once the card is chosen, its button showing, then that button is
    tapped). Returns the measurements and how the hand ended (``next`` or ``over``);
    screenshots of the first step and of the end are saved.
    """
    measured: list[dict[str, Any]] = []
    for _ in range(120):
        _, state = wait_for_await([page], {"act", "next", "over"}, timeout=40)
        if state != "act":
            break
        step = f"{label}, step {len(measured) + 1}"
        # a hand the page's seat could end at its first discard (a single arena hand) would
        # measure no discard: until one is measured, a knock or gin offered is passed up
        discarded = any("button #action-discard" in m["named"] for m in measured)
        if discard_step(page, before_ending=not discarded):
            measured.append(measure(page, step))
            if len(measured) == 1:
                screenshot(page, label)
            before = int(page.get_attribute("#table-page", "data-version") or -1)
            page.click("#action-discard")
            page.wait_for_function(WAIT_JS, arg=before, polling=20)
        else:
            measured.append(measure(page, step))
            if len(measured) == 1:
                screenshot(page, label)
            play_turn(page)
    else:
        raise AssertionError(f"{label}: the hand did not end")
    if state == "next":  # the reveal: its Next hand button on the first screen too
        box = page.evaluate(NEXT_JS)
        assert outside({"#next-hand": box}, PHONE["width"], PHONE["height"]) == [], label
    screenshot(page, f"{label}-end")
    return measured, state


def drew_and_discarded(measured: list[dict[str, Any]]) -> bool:
    """Whether a draw and a discard were among the measured steps."""
    named = {name for m in measured for name in m["named"]}
    return bool(named & {"button #action-stock", "button #action-take"}) and (
        "button #action-discard" in named)


NEXT_JS = """() => {
    window.scrollTo(0, 0);
    const r = document.getElementById('next-hand')?.getBoundingClientRect();
    return r ? {left: r.left, top: r.top, right: r.right, bottom: r.bottom} : null;
}"""


def save_summary(label: str, measured: list[dict[str, Any]]) -> None:
    """The lowest bottom edge of the hand, the piles and the buttons over the hand's steps,
    kept beside the screenshots (``<label>.json``): the figures docs/client.md quotes."""
    def lowest(prefix: str) -> float:
        return float(max(b["bottom"] for m in measured for name, b in m["named"].items()
                         if name.startswith(prefix) and b is not None))

    summary = {"steps": len(measured), "screen": [PHONE["width"], PHONE["height"]],
               "hand_bottom": lowest("hand"), "stock_bottom": lowest("stock"),
               "discard_bottom": lowest("discard"), "buttons_bottom": lowest("button"),
               "rows": max(m["rows"] for m in measured)}
    (ARTIFACTS / f"{label}.json").write_text(json.dumps(summary, indent=1) + "\n")


# The page's own hand module on a phone: three melds, then one deadwood card at the right
# end of the row, where the deadwood group's hidden label (long in Hungarian) starts.
HIDDEN_LABEL_JS = """async () => {
    const app = document.querySelector('script[type=module]').src;
    const { renderHand } = await import(new URL('handview.js', app).href);
    const hand = ['As', '2s', '3s', '7h', '7d', '7c', '9c', 'Tc', 'Jc', 'Kd'];
    const node = renderHand({hand, sortBy: 'rank', discardable: new Set(hand), selected: null,
        taken: null, drawn: null, hints: {melds: [['As', '2s', '3s'], ['7h', '7d', '7c'],
        ['9c', 'Tc', 'Jc']]}, onSelect() {}, onDiscard() {}});
    document.getElementById('app').replaceChildren(node);
    await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
    const label = node.querySelector('.deadwood-group .group-label');
    return {label: label.textContent, left: label.getBoundingClientRect().left,
            pageWidth: document.documentElement.scrollWidth, width: window.innerWidth};
}"""


def test_the_hands_hidden_labels_never_widen_the_phone_page(
        server: ServerProcess, browser: Browser) -> None:
    """The meld and deadwood labels are read by screen readers, not shown: even a long one
    starting near the screen's right edge adds no width to the page (a wider page makes a
    phone's browser widen its layout viewport, and the table no longer fits the screen)."""
    context, page = open_page(browser, server.base, "hu", phone=True)
    page.goto("/")
    page.wait_for_selector("#create-form")
    result = page.evaluate(HIDDEN_LABEL_JS)
    # (the hand is one flow of cards on a phone, issue 27.2: the labels sit at its start)
    assert result["label"] == catalogue("hu")["hand.deadwood_cards"]
    assert result["pageWidth"] <= PHONE["width"], result
    assert result["width"] == PHONE["width"], result
    assert page.errors == []  # type: ignore[attr-defined]
    context.close()


PHONE_CASES = ([(lang, False, 2) for lang in LANGUAGES]
               + [("hu", True, 2), ("en", True, 2), ("hu", True, 4)])


@pytest.mark.parametrize(
    ("lang", "large", "players"),
    soak_except(PHONE_CASES, keep={("hu", True, 2), ("hu", True, 4)},
                ids=lambda case: (f"{case[0]}{'-large' if case[1] else ''}"
                                  f"{'-arena' if case[2] > 2 else ''}")))
def test_phone_hand_piles_and_actions_fit_the_screen(
        server: ServerProcess, browser: Browser, lang: str, large: bool, players: int) -> None:
    """390x844: the hand, piles and action buttons are on screen at every step of a hand (a
    classic hand against one computer; an arena hand against three, the tallest table)."""
    context, page = open_page(browser, server.base, lang, phone=True)
    if large:
        page.goto("/")
        page.wait_for_selector("#create-form")  # the page's script is running
        page.check("#pref-large-cards")  # the header's setting, remembered by the browser
        page.wait_for_function("() => document.body.classList.contains('large-cards')")
    if players == 2:
        create_table(page, "Ann", preset="classic", bots={1: "simple"})
    else:
        create_table(page, "Ann", preset="arena", players=4,
                     bots={1: "simple", 2: "intermediate", 3: "beginner"}, pool=1000)
    label = f"table-phone-{lang}{'-large' if large else ''}{'-arena' if players > 2 else ''}"
    measured, state = play_hand_measuring(page, label)
    for hand in range(2, 5):  # a hand the computer ended at once: the next one too
        if state == "next" and len(measured) < 4:
            page.click("#next-hand")
        elif state == "over" and not drew_and_discarded(measured):
            # the arena's one hand, knocked by a computer before Ann drew: a rematch
            page.click("#rematch")
        else:
            break
        wait_for_await([page], {"act", "wait"})
        more, state = play_hand_measuring(page, f"{label}-hand{hand}")
        measured += more
    named = {name for m in measured for name in m["named"]}
    assert named & {"button #action-stock", "button #action-take"}, named  # a draw
    assert "button #action-discard" in named, named  # and a discard, measured
    assert all(m["large"] == large for m in measured)
    # the cards the player sees: the large ones are larger; the hand's size for the preset
    width = measured[0]["cardWidth"]
    assert (width > 50) if large else (35 < width <= 50), width
    assert {m["cards"] for m in measured} <= ({10, 11} if players == 2 else {7, 8})
    save_summary(label, measured)
    # one or two rows (measure() checks it at every step): with a hit strip of 44 px or more
    # a card (issue 27.2; tests/web/test_web_hand.py), 10 or 11 cards take two rows
    assert page.errors == []  # type: ignore[attr-defined]
    context.close()


# --------------------------------------------------------------------------- the score sheet
SHEET_JS = """() => {
    const sheet = document.getElementById('score-sheet');
    const scroller = sheet.querySelector('.sheet-scroll');
    sheet.scrollIntoView({block: 'start'});
    const rect = (node) => node.getBoundingClientRect();
    const first = sheet.querySelector('thead th:first-child');
    const cells = [...sheet.querySelectorAll('thead th, tfoot tr:last-child > *')];
    const hidden = [];
    const overflow = scroller.scrollWidth - scroller.clientWidth;
    let scrolled = false;
    for (const cell of cells) {
        const isFirst = cell.cellIndex === 0;
        let r = rect(cell);
        const view = rect(scroller);
        const left = isFirst ? view.left : rect(first).right;
        // scroll the sheet sideways, as a reader would, until the cell is in its visible box
        if (r.right > view.right + 0.5) {
            scroller.scrollLeft += r.right - view.right;
            scrolled = true;
        }
        r = rect(cell);
        if (r.left < left - 0.5) { scroller.scrollLeft -= left - r.left; scrolled = true; }
        r = rect(cell);
        const inside = r.left >= left - 0.5 && r.right <= view.right + 0.5
            && r.top >= view.top - 0.5 && r.bottom <= view.bottom + 0.5
            && r.left >= 0 && r.right <= window.innerWidth + 0.5
            && r.top >= 0 && r.bottom <= window.innerHeight + 0.5;
        if (!inside) hidden.push(`${cell.textContent}: ${JSON.stringify(r)}`);
    }
    scroller.scrollLeft = 0;
    const table = rect(document.querySelector('.play-area'));
    return {hidden, scrolled, overflow,
            names: sheet.querySelectorAll('thead th.player-name').length,
            columns: sheet.querySelectorAll('thead th').length,
            payouts: sheet.querySelectorAll('tfoot tr.payouts td').length,
            beside: rect(sheet).left >= table.right,
            pageWidth: document.documentElement.scrollWidth};
}"""

STICKY_JS = """() => {
    const scroller = document.querySelector('#score-sheet .sheet-scroll');
    scroller.scrollIntoView({block: 'start'});
    const firsts = [...scroller.querySelectorAll('tr > :first-child')];
    const last = scroller.querySelector('thead th:last-child');
    const overflow = scroller.scrollWidth - scroller.clientWidth;
    scroller.scrollLeft = overflow;
    const view = scroller.getBoundingClientRect();
    const lastBox = last.getBoundingClientRect();
    const lost = firsts.filter((c) => {
        const r = c.getBoundingClientRect();
        return r.left < view.left - 0.5 || r.right > view.right + 0.5;
    }).map((c) => c.textContent);
    // a cell of the first column covers what scrolls under it (nothing shows through)
    const firstRight = firsts[0].getBoundingClientRect().right;
    const top = firsts[0].getBoundingClientRect().top;
    const probe = document.elementFromPoint(firstRight - 2, top + 4);
    return {overflow, scrollLeft: scroller.scrollLeft, lost, covered: firsts[0].contains(probe),
            lastVisible: lastBox.right <= view.right + 0.5 && lastBox.left >= firstRight - 0.5,
            pageWidth: document.documentElement.scrollWidth};
}"""


def play_to_sheet(page: Page) -> None:
    """Play until a hand is on the score sheet."""
    for _ in range(6):
        play_until([page], {"next", "over"})
        if page.locator("#score-sheet tbody tr").count():
            return
        page.click("#next-hand")
        wait_for_await([page], {"act", "wait"})
    raise AssertionError("no hand was scored")


@pytest.mark.parametrize("lang", soak_except(LANGUAGES, keep={"hu"}))
def test_desktop_sheet_beside_the_table_shows_every_column(
        server: ServerProcess, browser: Browser, lang: str) -> None:
    """1366x900, classic, 2 players, after one hand: the sheet stands beside the table and
    each of its header cells is visible inside it."""
    context, page = open_page(browser, server.base, lang, phone=False)
    create_table(page, "Ann", preset="classic", bots={1: "simple"})
    wait_for_await([page], {"act", "wait"})
    screenshot(page, f"table-desktop-{lang}")
    play_to_sheet(page)
    result = page.evaluate(SHEET_JS)
    assert result["names"] == 2 and result["columns"] == 3
    assert result["hidden"] == [], result["hidden"]
    assert result["overflow"] <= 0 and not result["scrolled"], result  # no sideways scrolling
    assert result["beside"], "the sheet is not beside the table"
    assert result["pageWidth"] <= DESKTOP["width"]
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, f"table-desktop-{lang}-end")
    assert page.errors == []  # type: ignore[attr-defined]
    context.close()


def test_arena_sheet_shows_four_seats_and_payouts_with_its_first_column_fixed(
        server: ServerProcess, browser: Browser) -> None:
    """A 4-player arena (three computers) in Hungarian, after its hand: at 1366x900 every
    header and payout cell of the sheet is visible; at 390 px the sheet is wider than the
    screen, scrolls inside itself (not the page) and keeps its first column in view."""
    context, page = open_page(browser, server.base, "hu", phone=False)
    create_table(page, "Ann", preset="arena", players=4,
                 bots={1: "simple", 2: "intermediate", 3: "beginner"}, pool=1000)
    play_game([page])  # void hands are dealt again (R6.1)
    result = page.evaluate(SHEET_JS)
    assert result["names"] == 4 and result["columns"] == 5 and result["payouts"] == 4
    assert result["hidden"] == [], result["hidden"]
    assert result["beside"]
    assert result["overflow"] <= 0 and not result["scrolled"], result  # four seats fit beside
    # the deal decides which outcomes the sheet names: every hand named by the longest
    # outcome in the catalogue (a void hand in Hungarian), the four seats still fit beside
    words = catalogue("hu")
    longest = max((v for k, v in words.items() if k.startswith("outcome.")), key=len)
    page.evaluate("text => document.querySelectorAll('#score-sheet .hand-outcome')"
                  ".forEach((n) => { n.textContent = text; })", longest)
    long_outcome = page.evaluate(SHEET_JS)
    assert long_outcome["hidden"] == [], long_outcome["hidden"]
    assert long_outcome["overflow"] <= 0 and not long_outcome["scrolled"], long_outcome
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, "table-desktop-hu-arena")

    page.set_viewport_size(PHONE)
    page.wait_for_function("() => window.innerWidth === 390")
    sticky = page.evaluate(STICKY_JS)
    assert sticky["overflow"] > 20 and sticky["scrollLeft"] > 20, sticky  # it does scroll
    assert sticky["lost"] == [], sticky
    assert sticky["covered"] and sticky["lastVisible"], sticky
    assert sticky["pageWidth"] <= PHONE["width"], sticky  # the sheet scrolls, not the page
    narrow = page.evaluate(SHEET_JS)
    assert narrow["hidden"] == [], narrow["hidden"]
    assert narrow["scrolled"]
    figures = {"overflow_1366": result["overflow"], "overflow_390": sticky["overflow"]}
    (ARTIFACTS / "sheet-hu-arena.json").write_text(json.dumps(figures) + "\n")
    assert page.errors == []  # type: ignore[attr-defined]
    context.close()


# --------------------------------------------------------------------------- the create form
SELECTS_JS = """() => {
    const cut = [];
    const selects = [...document.querySelectorAll('#create-form select, #quick-play select')];
    const probe = document.createElement('span');
    probe.style.cssText = 'position:absolute;visibility:hidden;white-space:nowrap';
    document.body.append(probe);
    for (const select of selects) {
        const style = getComputedStyle(select);
        probe.style.font = style.font;
        const kept = select.selectedIndex;
        const room = select.clientWidth - parseFloat(style.paddingLeft)
            - parseFloat(style.paddingRight);
        for (let i = 0; i < select.options.length; i += 1) {
            select.selectedIndex = i;  // no change event: the form is not touched
            probe.textContent = select.options[i].text;
            const needed = probe.getBoundingClientRect().width;
            // shown whole: on one line with room to spare, or wrapped inside the box
            const whole = style.appearance === 'base-select'
                ? select.scrollWidth <= select.clientWidth
                : needed + 24 <= room;
            if (!whole) cut.push(`${select.id || select.className}: ${select.options[i].text}`);
        }
        select.selectedIndex = kept;
    }
    probe.remove();
    const page = document.documentElement.scrollWidth;
    return {cut, count: selects.length, page};
}"""


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_create_form_option_lists_are_not_cut(
        server: ServerProcess, browser: Browser, size: str) -> None:
    """Every choice of every list of the create form (rule options included) and of "Play
    the computer" shows whole, in each language."""
    for lang in LANGUAGES:
        context, page = open_page(browser, server.base, lang, phone=size == "phone")
        page.goto("/")
        page.wait_for_selector("#create-form")
        page.click("#create-form details.options summary")
        result = page.evaluate(SELECTS_JS)
        assert result["count"] >= 8, result
        assert result["cut"] == [], f"{lang} {size}: {result['cut']}"
        width = PHONE["width"] if size == "phone" else DESKTOP["width"]
        assert result["page"] <= width, f"{lang} {size}: the page is {result['page']} px wide"
        context.close()
