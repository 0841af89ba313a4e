"""Knocks and layoffs as card players expect them (issue 13, points 3 and 4), in Chromium
against a real server restored at chosen deals (tests/layoff_deal.py):

* the layoff step shows the knocker's melds numbered, offers only the cards that fit one
  (Jh only once Th is on the run), lays a card off by a tap on it then on the meld, or by a
  drag onto the meld, takes cards back, and sends a layoff the server accepts: the reveal
  shows the cards on the meld they went to;
* the engine's best layoff is explained with the deadwood before and after, in four languages;
* the knock sheet shows the arrangement to declare, the discard and arrangement choices and
  the confirm button inside a 390x844 screen without scrolling, in four languages, and the
  arrangement chosen there is the one the server records;
* a 4-player arena layoff step, with large cards, fits the same screen in four languages:
  seat 0 the first defender (laying off, or with melds of its own and a card kept) and the
  last one, after the computer's layoffs (issue 24: a layoff step of the phone layout test
  was once measured off the screen; these deals pin the tallest sheets down).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_support import (
    LANGUAGES,
    LOCALES,
    PHONE,
    PLACEHOLDER,
    Browser,
    FrameRecorder,
    Page,
    ServerProcess,
    catalogue,
    no_undo_wait,
    wait_until_still,
)

from layoff_deal import (
    ARENA_DEALS,
    DEADWOOD_AFTER,
    DEADWOOD_BEFORE,
    FITTING,
    KNOCKER_MELDS,
    rules,
    seed_database,
)

ARTIFACTS = Path(os.environ.get("GINRUMMY_ARTIFACTS")
                 or Path(__file__).resolve().parents[2] / "test-artifacts")
TABLES = {"lay-tap": ("tok-tap", False)}
TABLES |= {f"lay-{lang}": (f"tok-lay-{lang}", False) for lang in LANGUAGES}
TABLES |= {f"knock-{lang}": (f"tok-knock-{lang}", True) for lang in LANGUAGES}
ARENA_TABLES = {f"arena-{deal}-{lang}": (f"tok-arena-{deal}-{lang}", deal)
                for deal in ARENA_DEALS for lang in LANGUAGES}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server restored with one table per test at a chosen layoff or knock step."""
    folder: Path = tmp_path_factory.mktemp("layoffs")
    seed_database(folder / "web.db", TABLES, ARENA_TABLES)
    process = ServerProcess(folder / "web.db")
    process.start()
    try:
        yield process
    finally:
        process.stop()


def open_seat(browser: Browser, server: ServerProcess, table: str, lang: str = "en",
              recorder: FrameRecorder | None = None, large_cards: bool = False) -> Page:
    """A phone-sized page holding seat 0 of ``table`` (its token put where the client keeps
    it), at the table."""
    context = browser.new_context(locale=LOCALES[lang], base_url=server.base, viewport=PHONE)
    context.set_default_timeout(20_000)
    no_undo_wait(context)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(f"pageerror: {error}"))
    page.on("console", lambda msg: errors.append(f"console: {msg.text}")
            if msg.type == "error" or "missing message" in msg.text else None)
    page.errors = errors  # type: ignore[attr-defined]
    if recorder is not None:
        recorder.attach(page)
    page.goto("/")
    token = (TABLES.get(table) or ARENA_TABLES[table])[0]
    page.evaluate("([id, token, large]) => {"
                  " localStorage.setItem(`ginrummy.seat.${id}`,"
                  " JSON.stringify({ seat: 0, token, invite: null }));"
                  " if (large) localStorage.setItem('ginrummy.largeCards', 'true'); }",
                  [table, token, large_cards])
    page.goto(f"/?table={table}")
    return page


def card_text(lang: str, code: str) -> str:
    """The short text the client shows for a card ("10♥", "B♥" in Hungarian)."""
    rank = catalogue(lang)[f"card.rank.{code[0]}"]
    return rank + {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}[code[1]]


def offered(page: Page) -> list[str]:
    return sorted(page.eval_on_selector_all(
        "#layoff-cards .offer-card", "nodes => nodes.map((n) => n.dataset.card)"))


def kept(page: Page) -> list[str]:
    return sorted(page.eval_on_selector_all(
        "#layoff-cards .kept-card .card", "nodes => nodes.map((n) => n.dataset.card)"))


def laid_off(page: Page) -> dict[str, int]:
    """The cards this seat has laid off so far, by the number of the meld they are on."""
    return dict(page.eval_on_selector_all(
        "#knocker-melds .layoff-meld",
        "rows => rows.flatMap((row) => [...row.querySelectorAll('.take-back')]"
        ".map((b) => [b.dataset.card, Number(row.dataset.meld)]))"))


def deadwood_now(page: Page) -> int:
    return int(re.findall(r"\d+", page.inner_text("#layoff-deadwood"))[-1])


def test_only_fitting_cards_are_offered_and_a_tap_or_a_drag_lays_them_off(
        server: ServerProcess, browser: Browser) -> None:
    recorder = FrameRecorder()
    page = open_seat(browser, server, "lay-tap", recorder=recorder)
    page.wait_for_selector("#layoff-panel")
    # the knocker's melds, numbered 1, 2, 3 on screen, in the order the layoffs name them
    rows = page.eval_on_selector_all(
        "#knocker-melds .layoff-meld",
        "rows => rows.map((row) => [row.querySelector('.meld-number').textContent,"
        " [...row.querySelectorAll('.meld-target .card')].map((c) => c.dataset.card)])")
    assert rows == [[str(i + 1), meld] for i, meld in enumerate(KNOCKER_MELDS)]
    # the engine's best layoff is laid out to start with; nothing else fits, the rest is kept
    assert laid_off(page) == {"Th": 1, "Jh": 1, "Kh": 3}
    assert offered(page) == []
    assert kept(page) == sorted(["9c", "2d", "3d", "5c"])
    assert page.locator("#layoff-panel select").count() == 0  # no "keep / onto meld" lists
    assert deadwood_now(page) == DEADWOOD_AFTER

    # taking Th back takes Jh with it (Jh only fits once Th is on the run)
    page.click('#knocker-melds .take-back[data-card="Th"]')
    page.click('#knocker-melds .take-back[data-card="Kh"]')
    assert laid_off(page) == {}
    assert offered(page) == sorted(FITTING)  # Th and Kh; Jh does not fit yet
    assert "Jh" in kept(page)
    assert deadwood_now(page) == DEADWOOD_AFTER + 30

    # tap the card, then the meld: the melds it does not fit cannot be chosen
    page.click('#layoff-cards .offer-card[data-card="Th"]')
    assert page.is_disabled("#layoff-meld-2") and page.is_enabled("#layoff-meld-1")
    page.click("#layoff-meld-1")
    assert laid_off(page) == {"Th": 1}
    assert offered(page) == ["Jh", "Kh"]  # Jh now continues the run
    # a drag onto a meld it does not fit changes nothing; onto the run it lays Jh off
    page.locator('#layoff-cards .offer-card[data-card="Jh"]').drag_to(
        page.locator('#knocker-melds .layoff-meld[data-meld="2"]'))
    assert laid_off(page) == {"Th": 1}
    page.locator('#layoff-cards .offer-card[data-card="Jh"]').drag_to(
        page.locator('#knocker-melds .layoff-meld[data-meld="1"]'))
    assert laid_off(page) == {"Th": 1, "Jh": 1}
    # by keyboard: Enter on a card moves the focus to the meld it fits, Enter lays it off;
    # Enter on a laid-off card takes it back and the focus returns to it
    page.focus('#layoff-cards .offer-card[data-card="Kh"]')
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "layoff-meld-3"
    page.keyboard.press("Enter")
    assert laid_off(page) == {"Th": 1, "Jh": 1, "Kh": 3}
    assert page.evaluate("document.activeElement.id") == "confirm-layoff"  # nothing else fits
    page.focus('#knocker-melds .take-back[data-card="Kh"]')
    page.keyboard.press("Enter")
    assert laid_off(page) == {"Th": 1, "Jh": 1}
    assert page.evaluate("document.activeElement.dataset.card") == "Kh"
    assert deadwood_now(page) == DEADWOOD_AFTER + 10  # Kh kept
    assert page.locator("#layoff-best").count() == 1  # not the best: it can be restored

    before = int(page.get_attribute("#table-page", "data-version") or 0)
    page.click("#confirm-layoff")
    page.wait_for_function("v => Number(document.getElementById('table-page').dataset.version) > v",
                           arg=before)
    page.wait_for_selector("#reveal")
    # the state the server sent: the layoffs on meld 1 (index 0), Kh kept
    final = recorder.states()[-1].message["view"]
    [defence] = final["defences"]
    assert defence["layoffs"] == [["Th", 0], ["Jh", 0]]
    assert defence["deadwood"] == DEADWOOD_AFTER + 10
    # and the reveal shows them on the knocker's meld number 1
    on_melds = page.eval_on_selector_all(
        '#reveal .meld-group.numbered',
        "groups => groups.map((g) => [g.dataset.meld,"
        " [...g.querySelectorAll('.card.laid-on')].map((c) => c.dataset.card)])")
    assert on_melds == [["1", ["Th", "Jh"]], ["2", []], ["3", []]]
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_best_layoff_is_explained_with_the_deadwood_before_and_after(
        server: ServerProcess, browser: Browser, lang: str) -> None:
    page = open_seat(browser, server, f"lay-{lang}", lang)
    page.wait_for_selector("#layoff-explain")
    text = page.inner_text("#layoff-explain").strip()
    template = catalogue(lang)["layoff.best"]
    parts = PLACEHOLDER.split(template)
    pattern = "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.+?)" for i, p in enumerate(parts))
    match = re.fullmatch(pattern, text)
    assert match, (text, template)
    assert int(match["before"]) == DEADWOOD_BEFORE
    assert int(match["after"]) == DEADWOOD_AFTER
    cards = match["cards"]
    positions = [cards.index(card_text(lang, code)) for code in ("Th", "Jh", "Kh")]
    assert positions == sorted(positions)  # in the order they are laid off
    # the explanation is the engine's: its numbers are the hints' deadwood values
    assert deadwood_now(page) == DEADWOOD_AFTER
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()


BOXES_JS = """() => {
    const box = (node) => { const r = node.getBoundingClientRect();
        return [r.left, r.top, r.right, r.bottom]; };
    const all = (selector) => [...document.querySelectorAll(selector)].map(box);
    return { confirm: box(document.getElementById('confirm-knock')),
             arrangement: all('#knock-arrangement .meld-group, #knock-arrangement .free-cards'),
             choices: all('#knock-panel .chip'),
             scroll: [window.scrollX, window.scrollY] };
}"""


def inside(box: list[float]) -> bool:
    left, top, right, bottom = box
    return left >= 0 and top >= 0 and right <= PHONE["width"] and bottom <= PHONE["height"]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_knock_sheet_fits_a_phone_and_sends_the_chosen_arrangement(
        server: ServerProcess, browser: Browser, lang: str) -> None:
    recorder = FrameRecorder()
    page = open_seat(browser, server, f"knock-{lang}", lang, recorder=recorder,
                     large_cards=lang == "pl")
    page.wait_for_selector("#action-knock")
    scroll = page.evaluate("[window.scrollX, window.scrollY]")
    page.click("#action-knock")
    page.wait_for_selector("#knock-panel #confirm-knock")
    boxes: dict[str, Any] = page.evaluate(BOXES_JS)
    assert boxes["scroll"] == scroll  # nothing scrolled
    assert inside(boxes["confirm"])
    # the arrangement (two melds and the deadwood) and all 11 choices (9 discards, 2
    # arrangements) are on the screen with the confirm button
    assert len(boxes["arrangement"]) == 3 and all(inside(b) for b in boxes["arrangement"])
    assert len(boxes["choices"]) == 11 and all(inside(b) for b in boxes["choices"])
    melds = "#knock-arrangement .meld-group"
    assert page.eval_on_selector_all(
        melds, "gs => gs.map((g) => [...g.querySelectorAll('.card')].map((c) => c.dataset.card))"
    ) == [["5h", "6h", "7h"], ["8s", "8h", "8d", "8c"]]
    # another discard and the other arrangement: 8h in the run, the set of three eights
    page.click('#knock-panel .chip:has([data-card="3c"])')
    page.click('#knock-panel .chip:has(input[name="knock-arrangement"][value="1"])')
    assert page.eval_on_selector_all(
        melds, "gs => gs.map((g) => [...g.querySelectorAll('.card')].map((c) => c.dataset.card))"
    ) == [["5h", "6h", "7h", "8h"], ["8s", "8d", "8c"]]
    summary = catalogue(lang)["arrange.knock_summary"]
    assert page.inner_text("#knock-summary").strip() == (
        summary.replace("{points}", "7").replace("{limit}", str(rules().knock_limit)))  # Ad 2c 4d
    assert inside(page.evaluate(BOXES_JS)["confirm"])
    before = int(page.get_attribute("#table-page", "data-version") or 0)
    page.click("#confirm-knock")
    page.wait_for_function("v => Number(document.getElementById('table-page').dataset.version) > v",
                           arg=before)
    knock = next(f.message["view"]["knock"] for f in recorder.states()
                 if f.message["view"] and f.message["view"]["knock"])
    assert knock["discard"] == "3c"
    assert sorted(map(sorted, knock["melds"])) == sorted(
        map(sorted, [["5h", "6h", "7h", "8h"], ["8s", "8d", "8c"]]))
    assert knock["deadwood"] == 7
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()



LAYOFF_BOXES_JS = """() => {
    window.scrollTo(0, 0);
    const box = (node) => { const r = node.getBoundingClientRect();
        return [r.left, r.top, r.right, r.bottom]; };
    const named = {};
    const add = (selector, name) => document.querySelectorAll(selector)
        .forEach((node, i) => { named[`${name(node, i)}`] = box(node); });
    add('#my-hand .card', (c) => `hand ${c.dataset.card}`);
    add('#layoff-cards .card', (c) => `layoff card ${c.dataset.card}`);
    add('#knocker-melds .layoff-meld', (row) => `meld ${row.dataset.meld}`);
    add('#confirm-layoff', () => 'confirm');
    return {named, scroll: window.scrollY, pageWidth: document.documentElement.scrollWidth};
}"""


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("deal", list(ARENA_DEALS))
def test_an_arena_layoff_step_fits_a_phone_with_large_cards(
        server: ServerProcess, browser: Browser, deal: str, lang: str) -> None:
    """A 4-player arena hand at seat 0's layoff step, large cards, 390x844: seat 0 the first
    defender, or the last one after two layoffs by the computer (the longest page of the
    step). The hand's cards, the cards to lay off, the knocker's melds and the confirm button
    are all on the screen with the page at its top, and the page is no wider than it."""
    page = open_seat(browser, server, f"arena-{deal}-{lang}", lang, large_cards=True)
    page.wait_for_selector("#layoff-panel #confirm-layoff")
    wait_until_still(page)
    boxes: dict[str, Any] = page.evaluate(LAYOFF_BOXES_JS)
    assert boxes["scroll"] == 0
    assert boxes["pageWidth"] <= PHONE["width"]
    named = boxes["named"]
    assert "confirm" in named and any(name.startswith("hand ") for name in named), named
    assert any(name.startswith("meld ") for name in named), named
    off = {name: b for name, b in named.items() if not inside(b)}
    ARTIFACTS.mkdir(parents=True, exist_ok=True)  # a test artifact, never compared
    page.screenshot(path=str(ARTIFACTS / f"arena-layoff-{deal}-{lang}.png"))
    assert off == {}, f"off the {PHONE['width']}x{PHONE['height']} screen: {off}"
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()
