"""Issue 13.2 in a real browser: the tab title and the favicon badge on the player's turn, the
Web Audio sounds and their mute switch, the card just drawn marked until the discard, and the
title that never blinks under `prefers-reduced-motion` (set-up as in test_web_browser.py)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest
from web_support import (
    LANGUAGES,
    ServerProcess,
    browser_missing,
    catalogue,
    create_table,
    my_turn,
    new_page,
    running_server,
    wait_until_still,
)

if browser_missing():
    pytest.skip(browser_missing() or "", allow_module_level=True)

from playwright.sync_api import Browser, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

# every title and favicon the page shows, in order (the observer starts before the page's code)
RECORD_JS = """() => {
    window.__titles = [];
    window.__icons = [];
    const note = () => {
        const last = window.__titles[window.__titles.length - 1];
        if (document.title !== last) window.__titles.push(document.title);
        const link = document.querySelector('link[rel~="icon"]');
        const icon = link ? link.href : '';
        if (icon !== window.__icons[window.__icons.length - 1]) window.__icons.push(icon);
    };
    new MutationObserver(note).observe(document, {subtree: true, childList: true,
        characterData: true, attributes: true, attributeFilter: ['href']});
}"""

# document.hidden under the test's control (a headless tab is always visible)
HIDDEN_JS = """() => {
    window.__hidden = false;
    Object.defineProperty(Document.prototype, 'hidden', {configurable: true,
        get() { return window.__hidden; }});
}"""

BADGE = "%23d21f1f"  # the red badge's colour, URL-encoded in the SVG data URL


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running_server(tmp_path_factory.mktemp("notify")) as process:
        yield process


def turn_title(lang: str) -> str:
    texts = catalogue(lang)
    return texts["notify.title_turn"].replace("{title}", texts["app.title"])


def sound(page: Page) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate(
        "() => ({started: window.ginrummySound.started,"
        " requests: window.ginrummySound.requests.map(r => r.name + ':' + r.outcome)})")
    return result


# the page's own sound module (its URL is versioned: /v/<hash>/js/sound.js)
PLAY_JS = """async (name) => {
    const app = document.querySelector('script[type=module]').src;
    return (await import(new URL('sound.js', app).href)).play(name);
}"""


def play_sound(page: Page, name: str) -> bool:
    return bool(page.evaluate(PLAY_JS, name))


def version(page: Page) -> int:
    return int(page.get_attribute("#table-page", "data-version") or -1)


def wait_past(page: Page, before: int) -> None:
    page.wait_for_function("v => { const p = document.getElementById('table-page');"
                           " return Number(p.dataset.version) > v"
                           " && p.dataset.await !== 'sending'; }",
                           arg=before, polling=20)


def drawn_cards(page: Page) -> dict[str, list[str]]:
    result: dict[str, list[str]] = page.evaluate("""() => ({
        all: [...document.querySelectorAll('.card.drawn, [data-drawn]')].map(c => c.dataset.card),
        hand: [...document.querySelectorAll('#my-hand .card.drawn')].map(c => c.dataset.card),
        labels: [...document.querySelectorAll('#my-hand .card.drawn')]
            .map(c => c.getAttribute('aria-label')),
        cards: [...document.querySelectorAll('#my-hand .card')].map(c => c.dataset.card)})""")
    return result


def draw(page: Page, take: bool = False) -> str:
    """Draw: from the pile with T when ``take`` and the pile may be taken, else a click on the
    stock; returns 'take' or 'stock'."""
    my_turn(page)
    if page.locator("#confirm-layoff").count():  # the computer knocked: lay off, next hand
        before = version(page)
        page.click("#confirm-layoff")
        wait_past(page, before)
        my_turn(page)
    if page.locator("#action-pass").count():  # the first-turn offer: pass it
        before = version(page)
        page.keyboard.press("p")
        wait_past(page, before)
        my_turn(page)
    before = version(page)
    if take and page.locator("#discard-pile.takeable").count():
        page.keyboard.press("t")
        done = "take"
    else:
        page.click("#stock")
        done = "stock"
    wait_past(page, before)
    return done


def discard_other(page: Page, keep: str) -> None:
    """Discard a card other than ``keep`` (the drawn card), by two clicks."""
    codes = page.eval_on_selector_all("#my-hand .card.playable",
                                      "cs => cs.map(c => c.dataset.card)")
    chosen = next(c for c in codes if c != keep)
    before = version(page)
    card = page.locator(f'#my-hand .card[data-card="{chosen}"]')
    wait_until_still(page)
    card.click()
    card.click()
    wait_past(page, before)


def test_title_favicon_and_drawn_card(server: ServerProcess, browser: Browser) -> None:
    """On the player's turn the tab title reads "● Your turn: Gin Rummy" (in the page's
    language, also after switching it) and the favicon carries a badge; both go back after the
    move. A drawn card, from the stock or the pile, is marked in the hand (and only there)
    until the discard."""
    context, page = new_page(browser, server.base)
    page.add_init_script(script=f"({RECORD_JS})()")
    create_table(page, "Ann", preset="classic", bots={1: "simple"})
    my_turn(page)
    assert page.title() == turn_title("en")
    assert page.get_attribute("html", "data-favicon") == "turn"
    assert BADGE in page.eval_on_selector('link[rel~="icon"]', "l => l.href")

    kinds = set()
    for turn in range(3):
        top = page.get_attribute("#discard-pile .card", "data-card")
        kind = draw(page, take=turn == 0)
        kinds.add(kind)
        marked = drawn_cards(page)
        if kind == "take":
            assert marked["hand"] == [top]
        assert len(marked["hand"]) == 1, marked
        assert marked["all"] == marked["hand"]  # nothing outside the own hand is marked
        drawn = marked["hand"][0]
        assert drawn in marked["cards"]
        assert "just drawn" in marked["labels"][0]
        if kind == "stock":  # chosen (the hand redrawn): still marked; a taken card may not
            # be discarded at once (R3.3), so it cannot be chosen
            wait_until_still(page)
            page.locator(f'#my-hand .card[data-card="{drawn}"]').click()
            classes = page.get_attribute(f'#my-hand .card[data-card="{drawn}"]', "class") or ""
            assert "selected" in classes.split()
        assert drawn_cards(page)["hand"] == [drawn]
        assert page.title() == turn_title("en")  # still the player's move: the discard
        discard_other(page, drawn)
        assert drawn_cards(page)["all"] == [], "the mark stays after the discard"
        if page.get_attribute("#table-page", "data-await") not in ("act", "sending"):
            assert page.title() == "Gin Rummy" or page.title() == turn_title("en")
    assert kinds == {"stock", "take"}

    my_turn(page)
    titles = page.evaluate("() => window.__titles")
    icons = page.evaluate("() => window.__icons")
    # the title went back to plain after each move, and came back on each turn
    turns = [i for i, title in enumerate(titles) if title == turn_title("en")]
    plain = [i for i, title in enumerate(titles) if title == "Gin Rummy"]
    assert len(turns) >= 3 and plain and plain[-1] > turns[0], titles
    assert any(BADGE in icon for icon in icons), icons
    assert any(icon.startswith("data:image/svg") and BADGE not in icon for icon in icons), icons

    for lang in [*LANGUAGES[1:], "en"]:
        page.select_option("#language-select", lang)
        page.wait_for_function("t => document.title === t", arg=turn_title(lang))
        assert page.inner_text("label:has(#pref-sound) span") == catalogue(lang)["settings.sound"]

    page.click("#brand")  # leaving the table: the plain title and icon
    page.wait_for_selector("#create-form")
    assert page.title() == "Gin Rummy"
    assert page.get_attribute("html", "data-favicon") == "plain"
    assert page.errors == [], page.errors  # type: ignore[attr-defined]
    context.close()


def play_one_turn(page: Page) -> None:
    drawn = draw(page)
    assert drawn in ("stock", "take")
    discard_other(page, drawn_cards(page)["hand"][0])
    my_turn(page)


def test_sounds_and_the_mute_switch(server: ServerProcess, browser: Browser) -> None:
    """Sounds are on by default and start Web Audio oscillators on the player's turn; nothing
    plays before the first interaction; the switch turns them off, and stays off over a
    reload."""
    context, page = new_page(browser, server.base)
    page.goto("/")
    page.wait_for_selector("#create-form")
    assert page.is_checked("#pref-sound")
    # before any click or key: refused (autoplay rules), nothing started
    assert play_sound(page, "turn") is False
    assert sound(page) == {"started": 0, "requests": ["turn:no-interaction"]}

    table = create_table(page, "Ann", preset="classic", bots={1: "simple"})
    play_one_turn(page)
    heard = sound(page)
    assert "turn:played" in heard["requests"], heard
    assert heard["started"] >= 2

    page.uncheck("#pref-sound")
    assert page.get_attribute("body", "data-sound") == "off"
    page.reload()
    page.wait_for_function("() => document.body.dataset.ready === 'true'")
    assert not page.is_checked("#pref-sound")
    assert page.evaluate("() => localStorage.getItem('ginrummy.sound')") == "false"
    assert table in page.url
    play_one_turn(page)
    muted = sound(page)
    assert muted["started"] == 0, muted
    assert "turn:muted" in muted["requests"], muted
    assert not any(r.endswith(":played") for r in muted["requests"])

    page.check("#pref-sound")  # on again: the next turn sounds
    play_one_turn(page)
    again = sound(page)
    assert again["started"] >= 2 and "turn:played" in again["requests"], again
    assert page.errors == [], page.errors  # type: ignore[attr-defined]
    context.close()


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_title_blinks_only_when_hidden_and_motion_allowed(
        server: ServerProcess, browser: Browser, motion: str) -> None:
    """While the tab is hidden on the player's turn the title alternates, except under
    `prefers-reduced-motion: reduce`, where it stays "● Your turn: ..."."""
    context, page = new_page(browser, server.base)
    page.emulate_media(reduced_motion=motion)  # type: ignore[arg-type]
    page.add_init_script(script=f"({HIDDEN_JS})()")
    page.add_init_script(script=f"({RECORD_JS})()")
    create_table(page, "Ann", preset="classic", bots={1: "simple"})
    my_turn(page)
    page.evaluate("() => { window.__hidden = true; window.__titles = [];"
                  " document.dispatchEvent(new Event('visibilitychange')); }")
    if motion == "reduce":  # nothing may change: watched for the same 2.6 s
        page.wait_for_timeout(2600)
    else:  # both titles within 2.6 s (waited for, not slept)
        with contextlib.suppress(PlaywrightTimeout):  # the assertion below says what came
            page.wait_for_function("t => window.__titles.includes('Gin Rummy')"
                                   " && window.__titles.includes(t)", arg=turn_title("en"),
                                   timeout=2600, polling=50)
    titles = page.evaluate("() => window.__titles")
    if motion == "reduce":
        assert page.get_attribute("html", "data-title-blink") == "off"
        assert titles in ([], [turn_title("en")]), titles
        assert page.title() == turn_title("en")
    else:
        assert page.get_attribute("html", "data-title-blink") == "on"
        assert "Gin Rummy" in titles and turn_title("en") in titles, titles
    page.evaluate("() => { window.__hidden = false;"
                  " document.dispatchEvent(new Event('visibilitychange')); }")
    page.wait_for_timeout(1200)
    assert page.title() == turn_title("en")
    assert page.get_attribute("html", "data-title-blink") == "off"
    context.close()


def test_clock_warning_knock_and_gin_sounds(server: ServerProcess, browser: Browser) -> None:
    """With a 14-second turn clock the warning sounds once, when the player's own time falls
    under 10 seconds, not before; the knock and gin sounds start their tones."""
    context, page = new_page(browser, server.base)
    create_table(page, "Ann", preset="classic", bots={1: "simple"}, clock=14)
    my_turn(page)
    turn_began = page.evaluate("() => performance.now()")
    assert not any(r.startswith("clock:") for r in sound(page)["requests"])
    page.wait_for_function("() => window.ginrummySound.requests"
                           ".some(r => r.name === 'clock' && r.outcome === 'played')",
                           timeout=12_000)
    # about 4 of the 14 seconds had gone (the turn was seen a little after it began)
    warned_at = page.evaluate("() => window.ginrummySound.requests"
                              ".find(r => r.name === 'clock').at")
    assert 3000 <= warned_at - turn_began <= 4500, warned_at - turn_began
    assert [r for r in sound(page)["requests"] if r.startswith("clock:")] == ["clock:played"]
    started = sound(page)["started"]
    assert started >= 3  # the warning's three beeps
    for name, tones in (("knock", 2), ("gin", 4)):
        assert play_sound(page, name) is True
        assert sound(page)["started"] == started + tones
        started += tones
    assert page.errors == [], page.errors  # type: ignore[attr-defined]
    context.close()
