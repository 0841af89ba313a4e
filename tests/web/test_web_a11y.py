"""Accessibility of the web client in a real browser (issue 13, point 9), measured rather than
looked at: axe-core (``axe-playwright-python``, its bundled script, offline) on the lobby, the
table, the knock panel, the layoff step and the reveal with the score sheet, in English and
French; the one polite live region (mutations counted over moves: one announcement a move,
nothing else live); a whole hand played with the keyboard only; the focus kept across
re-renders; the one-key shortcuts switched off. Set-up as in test_web_browser.py.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_support import (
    FAST_PLAYER,
    SNAPSHOT_JS,
    WAIT_JS,
    FrameRecorder,
    ServerProcess,
    browser_missing,
    card_value,
    catalogue,
    create_table,
    my_turn,
    new_page,
    play_turn,
    running_server,
    soak_except,
    wait_for_await,
    wait_for_first_state,
    wait_until_still,
)

if browser_missing():
    pytest.skip(browser_missing() or "", allow_module_level=True)

from playwright.sync_api import Browser, Page

try:
    from axe_playwright_python.sync_playwright import Axe  # type: ignore[import-untyped]
except ImportError:  # pragma: no cover - the dev extra installs it
    Axe = None

EN = catalogue("en")
RANKS = "A23456789TJQK"
SUITS = {"s": "spades", "h": "hearts", "d": "diamonds", "c": "clubs"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running_server(tmp_path_factory.mktemp("a11y"), env=FAST_PLAYER) as process:
        yield process


def no_errors(page: Page) -> None:
    assert page.errors == [], page.errors  # type: ignore[attr-defined]


def version(page: Page) -> int:
    return int(page.get_attribute("#table-page", "data-version") or -1)


def phase(page: Page) -> str:
    return str(page.get_attribute("#table-page", "data-phase") or "")


# --------------------------------------------------------------------------- axe
def axe_violations(page: Page) -> list[str]:
    """Every axe-core violation on the page as "rule: element, ...", or []."""
    if Axe is None:
        pytest.fail("axe-playwright-python is not installed: pip install -e .[dev]")
    results = Axe().run(page)
    return [f"{v['id']}: " + ", ".join(str(n["target"]) for n in v["nodes"])
            for v in results.response["violations"]]


def discard_highest(page: Page, snapshot: dict[str, Any]) -> None:
    codes = snapshot["deadwood"] or snapshot["playable"]
    assert codes, "nothing to discard"
    card = page.locator(f'#my-hand .card[data-card="{max(codes, key=card_value)}"]')
    wait_until_still(page)
    card.click()
    card.click()


def visit_screens(page: Page, limit: float = 420.0) -> dict[str, list[str]]:
    """Plays against the computer, never knocking, until the table at the player's turn, the
    knock panel (opened, checked, closed), the layoff step (the computer knocked) and the
    reveal with the score sheet have each been checked by axe; their violations by screen."""
    found: dict[str, list[str]] = {}
    deadline = time.monotonic() + limit
    while len(found) < 4:
        assert time.monotonic() < deadline, f"screens not reached: only {sorted(found)}"
        _, state = wait_for_await([page], {"act", "next", "over"}, timeout=60)
        if state in {"next", "over"}:
            if "reveal" not in found:
                page.wait_for_selector(".reveal-slot .panel")
                page.wait_for_selector(".sheet-slot .panel")
                found["reveal"] = axe_violations(page)
            if state == "over":
                page.click("#rematch")
                page.wait_for_function("() => document.getElementById('table-page')"
                                       ".dataset.await !== 'over'")
            else:
                page.click("#next-hand")
                page.wait_for_function("() => document.getElementById('table-page')"
                                       ".dataset.await !== 'next'")
            continue
        snapshot = page.evaluate(SNAPSHOT_JS)
        ids = snapshot["ids"]
        if "table" not in found and phase(page) in {"draw", "offer"}:
            found["table"] = axe_violations(page)
        if "confirm-layoff" in ids:
            if "layoff" not in found:
                page.wait_for_selector("#layoff-title")
                found["layoff"] = axe_violations(page)
            page.click("#confirm-layoff")
        elif "action-knock" in ids or "action-gin" in ids:
            if "knock" not in found:
                page.click("#action-knock" if "action-knock" in ids else "#action-gin")
                page.wait_for_selector("#knock-panel")
                found["knock"] = axe_violations(page)
                page.keyboard.press("Escape")
                page.wait_for_selector("#knock-panel", state="detached")
            discard_highest(page, snapshot)  # no knock: the computer is to knock
        elif "action-pass" in ids:
            page.click("#action-pass")
        elif "action-stock" in ids:
            page.click("#stock")
        else:
            discard_highest(page, snapshot)
        page.wait_for_function(WAIT_JS, arg=snapshot["version"], polling=20)
    return found


@pytest.mark.parametrize("locale", soak_except(["en-US", "fr-FR"], keep={"en-US"}))
def test_axe_finds_no_violation_on_the_five_screens(server: ServerProcess, browser: Browser,
                                                    locale: str) -> None:
    # reduced motion: it plays hands until a knock and a layoff come, to check their screens
    _, page = new_page(browser, server.base, locale=locale, motion=False)
    page.goto("/")
    page.wait_for_selector("#create-form")
    page.wait_for_selector("#quick-form")
    page.wait_for_function("() => document.body.dataset.ready === 'true'")
    assert page.evaluate("document.documentElement.lang") == locale[:2]
    lobby = axe_violations(page)
    create_table(page, "Ann", preset="classic", bots={1: "expert"})
    screens = {"lobby": lobby, **visit_screens(page)}
    assert sorted(screens) == ["knock", "layoff", "lobby", "reveal", "table"]
    assert screens == {name: [] for name in screens}
    no_errors(page)


# --------------------------------------------------------------------------- live region
LIVE_JS = """() => {
    const region = document.getElementById('move-announcer');
    window.__live = {told: [], other: []};
    new MutationObserver((records) => {
        for (const record of records) for (const node of record.addedNodes) {
            window.__live.told.push(node.textContent);
        }
    }).observe(region, {childList: true});
    const LIVE = '[aria-live]:not([aria-live="off"]), [role=status], [role=alert], [role=log]';
    new MutationObserver((records) => {
        for (const record of records) {
            const node = record.target.nodeType === 1 ? record.target : record.target.parentElement;
            const live = node && node.closest(LIVE);
            if (live && live !== region) window.__live.other.push(live.id || live.className);
        }
    }).observe(document.body, {childList: true, subtree: true, characterData: true});
}"""


def told(page: Page) -> list[str]:
    return list(page.evaluate("() => window.__live.told"))


def card_name(code: str) -> str:
    return EN["card.name"].format(rank=EN[f"card.rank_name.{code[0]}"],
                                  suit=EN[f"card.suit.{SUITS[code[1]]}"])


def sentence(entry: dict[str, Any], names: list[str], seat: int) -> str:
    """What the live region must say of one log entry (js/movelog.js, in English)."""
    words = entry["action"].split()
    if words[0] == "stock" and entry["seat"] == seat and entry.get("card"):
        return EN["announce.own_stock"].format(card=card_name(entry["card"]))
    named = len(words) > 1 and re.fullmatch(r"[A2-9TJQK][shdc]", words[1])
    card = card_name(words[1]) if named else ""
    name = "" if entry.get("seat") is None else names[entry["seat"]]
    return EN[f"log.{words[0]}"].format(name=name, card=card)


def latest_view(page: Page, recorder: FrameRecorder) -> dict[str, Any]:
    """The view of the state the page shows, once the recorder has it (Playwright hands the
    frames over a moment after the page got them)."""
    shown = version(page)
    frame = recorder.wait_for(page, page.recipient,  # type: ignore[attr-defined]
                              lambda m: m.get("type") == "state" and m.get("version") == shown)
    view: dict[str, Any] = frame.message["view"]
    return view


def test_each_move_is_announced_once_and_nothing_else_is_live(server: ServerProcess,
                                                              browser: Browser) -> None:
    """Over one turn of each player (the player's draw and discard, the computer's draw and
    discard) the live region gets one announcement a move, in the words of the log, the last
    one with "your turn"; the status line, the log and the rest of the page stay quiet, and a
    re-render with no move (sorting, a language switch) announces nothing."""
    recorder = FrameRecorder()
    _, page = new_page(browser, server.base, recorder=recorder)
    create_table(page, "Ann", preset="classic", bots={1: "simple"})
    names = ["Ann", EN["seat.computer"].format(level=EN["bot.simple"])]
    assert page.get_attribute("#app", "aria-live") is None  # no page-wide live region
    assert page.evaluate("document.getElementById('status-line').getAttribute('role')") is None
    assert page.get_attribute("#move-announcer", "aria-live") == "polite"
    reach_draw(page)
    page.evaluate(LIVE_JS)
    start = len(latest_view(page, recorder)["log"])

    before = version(page)
    page.click("#stock")
    page.wait_for_function("v => Number(document.getElementById('table-page').dataset.version) > v"
                           " && window.__live.told.length > 0", arg=before)
    page.wait_for_timeout(300)  # a second announcement would have come by now
    drawn = latest_view(page, recorder)["log"][-1]
    assert drawn["action"] == "stock" and drawn["seat"] == 0
    assert told(page) == [EN["announce.own_stock"].format(card=card_name(drawn["card"]))]

    snapshot = page.evaluate(SNAPSHOT_JS)
    discard_highest(page, snapshot)
    wait_for_await([page], {"act", "next"}, timeout=30)
    page.wait_for_timeout(300)
    view = latest_view(page, recorder)
    expected = [sentence(entry, names, 0) for entry in view["log"][start:]]
    if view["phase"] == "draw":  # the computer drew and discarded: our turn told with it
        assert [e["seat"] for e in view["log"][start:]] == [0, 0, 1, 1]
        expected[-1] += " " + EN["turn.draw"]
    elif view["phase"] == "layoff":  # the computer knocked at once: our layoffs are asked
        expected[-1] += " " + EN["turn.layoff"]
    else:  # the computer went gin: the hand's end and its winner told with it
        winner = names[view["result"]["winner"]]
        expected[-1] += (f" {EN['table.hand_over']} {EN['outcome.' + view['result']['outcome']]}, "
                         + EN["reveal.winner"].format(name=winner) + ".")
    assert told(page) == expected  # one announcement a move, each exactly once

    for _ in range(2):  # re-rendered, not one move: nothing told
        page.keyboard.press("o")
    page.select_option("#language-select", "fr")
    page.wait_for_function("() => document.documentElement.lang === 'fr'")
    page.select_option("#language-select", "en")
    page.wait_for_function("() => document.documentElement.lang === 'en'")
    page.wait_for_timeout(300)
    assert told(page) == expected
    assert page.evaluate("() => window.__live.other") == []  # nothing else live changed
    no_errors(page)


# --------------------------------------------------------------------------- keyboard
def active(page: Page) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate("""() => { const a = document.activeElement;
        return {id: a.id, card: a.dataset ? a.dataset.card || null : null,
                inHand: Boolean(a.closest('#my-hand')), tag: a.tagName}; }""")
    return result


def tab_until(page: Page, wanted: str, limit: int = 60) -> int:
    """Presses Tab until the focused element matches the selector `wanted`; the presses."""
    for presses in range(1, limit + 1):
        page.keyboard.press("Tab")
        if page.evaluate("s => document.activeElement.matches(s)", wanted):
            return presses
    raise AssertionError(f"Tab never reached {wanted}")


def hand_order(page: Page) -> list[str]:
    return list(page.eval_on_selector_all("#my-hand .card", "cs => cs.map(c => c.dataset.card)"))


def keyboard_discard(page: Page) -> str:
    """Tab into the hand (one stop), arrows to the highest deadwood card, Enter: discarded."""
    snapshot = page.evaluate(SNAPSHOT_JS)
    codes = snapshot["deadwood"] or snapshot["playable"]
    chosen: str = max(codes, key=card_value)
    if not active(page)["inHand"]:
        tab_until(page, "#my-hand .card")
    order = hand_order(page)
    # one tab stop: the focused card, and no other card, is reached by Tab
    assert page.eval_on_selector_all('#my-hand [tabindex="0"]', "cs => cs.length") == 1
    steps = order.index(chosen) - order.index(active(page)["card"])
    for _ in range(abs(steps)):
        page.keyboard.press("ArrowRight" if steps > 0 else "ArrowLeft")
    assert active(page)["card"] == chosen
    if steps == 0:  # focused without an arrow: Enter chooses it (as a first click would)
        page.keyboard.press("Enter")
    page.wait_for_selector(f'#my-hand .card.selected[data-card="{chosen}"]')
    assert active(page)["card"] == chosen  # the choice re-rendered the hand: focus kept
    page.keyboard.press("Enter")
    page.wait_for_function(WAIT_JS, arg=snapshot["version"], polling=20)
    return chosen


def test_a_whole_hand_with_the_keyboard_only(server: ServerProcess, browser: Browser) -> None:
    """From the lobby's Play the computer to the reveal, with Tab, arrows, Enter and the
    one-key shortcuts only: the mouse is never used."""
    _, page = new_page(browser, server.base)
    page.goto("/")
    page.wait_for_selector("#quick-form")
    page.wait_for_function("() => document.body.dataset.ready === 'true'")
    tab_until(page, "#nickname")
    page.keyboard.type("Kay")
    tab_until(page, "#quick-submit")
    page.keyboard.press("Enter")
    wait_for_first_state(page)
    moves: list[str] = []
    for _ in range(120):
        _, state = wait_for_await([page], {"act", "next", "over"}, timeout=60)
        if state != "act":
            break
        snapshot = page.evaluate(SNAPSHOT_JS)
        ids = snapshot["ids"]
        if "confirm-layoff" in ids:
            page.keyboard.press("l")
            moves.append("layoff")
        elif "action-knock" in ids or "action-gin" in ids:
            page.keyboard.press("g" if "action-gin" in ids else "k")
            page.wait_for_selector("#knock-panel")
            assert active(page)["id"] == "confirm-knock"  # the panel takes the focus
            page.keyboard.press("Enter")
            moves.append("knock")
        elif "action-pass" in ids:
            page.keyboard.press("p")
            moves.append("pass")
        elif "action-stock" in ids:
            if len(moves) % 4 == 0:  # now and then by Tab and Enter on the stock
                tab_until(page, "#stock")
                page.keyboard.press("Enter")
            else:
                page.keyboard.press("s")
            moves.append("stock")
        else:
            moves.append("discard " + keyboard_discard(page))
            continue
        page.wait_for_function(WAIT_JS, arg=snapshot["version"], polling=20)
    else:
        raise AssertionError(f"the hand did not end: {moves[-10:]}")
    page.wait_for_selector(".reveal-slot .panel")
    assert any(m.startswith("discard") for m in moves), moves
    # the hand's end is told with its last move: the outcome and the winner (or a void hand)
    last = page.locator("#move-announcer p").last.inner_text()
    won = re.search(r", won by (Kay|Computer \(.+\))\.$", last)
    assert EN["table.hand_void"] in last or won, last
    if state == "next":  # and on to the next hand, by its key; its deal is told
        page.keyboard.press("n")
        page.wait_for_function("() => document.getElementById('table-page').dataset.hand === '2'")
        told = page.locator("#move-announcer p")
        assert told.count() >= 1  # the region starts again with the new hand
        assert told.first.inner_text().startswith(EN["announce.new_hand"].format(n=2))
    no_errors(page)


def test_focus_stays_on_the_same_card_and_control_after_a_state_update(
        browser: Browser, tmp_path: Path) -> None:
    """Tab enters the hand on its one tab stop (the first card when none is chosen) and the
    next Tab leaves it; a card focused while the computer moves (its states re-render the
    hand) has the focus afterwards, as a new element; so has a button re-rendered by Enter.
    The computer waits 1.5 s a move here, so the card is focused before its states arrive."""
    slow = ServerProcess(tmp_path / "slow.db", bot_delay_ms=1500)
    slow.start()
    try:
        _, page = new_page(browser, slow.base)
        create_table(page, "Ann", preset="classic", bots={1: "simple"})
        reach_draw(page)
        page.keyboard.press("s")
        wait_for_await([page], {"act"})
        assert phase(page) == "discard"
        page.evaluate("() => document.activeElement.blur()")
        tab_until(page, "#my-hand .card")
        first = active(page)["card"]
        assert first == hand_order(page)[0]  # nothing chosen yet: the first card
        page.keyboard.press("Tab")
        assert not active(page)["inHand"]  # one stop: the next Tab leaves the hand
        page.keyboard.press("Shift+Tab")
        assert active(page)["card"] == first

        before = version(page)
        keyboard_discard(page)
        assert active(page)["inHand"]  # the discarded card went: the hand's tab stop
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        focused = active(page)["card"]
        assert focused and active(page)["inHand"]
        assert page.evaluate("() => document.activeElement.getAttribute('tabindex')") == "0"
        page.evaluate("() => { document.activeElement.dataset.old = 'yes'; }")
        assert version(page) == before + 1  # the computer has not moved yet
        page.wait_for_function("v => Number(document.getElementById('table-page')"
                               ".dataset.version) >= v", arg=before + 2)
        after = page.evaluate("() => ({card: document.activeElement.dataset.card || null,"
                              " old: document.activeElement.dataset.old || null})")
        assert after == {"card": focused, "old": None}  # a re-rendered card, the same one

        # a control: the sort button keeps the focus when Enter re-renders the page, and
        # when a move made from it by a key (S, or L when the computer knocked) brings a state
        wait_for_await([page], {"act"})
        tab_until(page, "#sort-suit")
        page.keyboard.press("Enter")
        page.wait_for_selector('#sort-suit[aria-pressed="true"]')
        assert active(page)["id"] == "sort-suit"
        page.evaluate("() => { document.activeElement.dataset.old = 'yes'; }")
        now = version(page)
        page.keyboard.press("s" if phase(page) == "draw" else "l")
        page.wait_for_function("v => Number(document.getElementById('table-page')"
                               ".dataset.version) > v", arg=now)
        # L confirmed the layoffs and so ended the hand (the sort buttons went with the hand):
        # the focus is on the reveal's Next hand button instead
        wanted = "next-hand" if phase(page) == "over" else "sort-suit"
        assert page.evaluate("() => [document.activeElement.id, document.activeElement.dataset.old"
                             " || null]") == [wanted, None]
        no_errors(page)
    finally:
        slow.stop()


# The page's own focus helpers (js/dom.js), given made-up tables: the control that had the
# focus went with a re-render; what gets it back.
FOCUS_JS = """async () => {
    const app = document.querySelector('script[type=module]').src;
    const { rememberFocus, restoreFocus } = await import(new URL('dom.js', app).href);
    const root = document.createElement('div');
    document.body.append(root);
    const after = (before, html) => {
        root.innerHTML = before;
        root.querySelector('[data-was]').focus();
        const saved = rememberFocus(root);
        root.innerHTML = html;  // the re-render: the focused node is gone
        restoreFocus(saved, root);
        return document.activeElement.id || document.activeElement.dataset.card || null;
    };
    const hand = '<div id="my-hand"><span class="card" tabindex="0" data-card="As"></span>'
        + '<span class="card" tabindex="-1" data-card="Kd"></span></div>';
    const sort = '<button id="sort-suit" data-was>by suit</button>';
    const next = '<button id="next-hand">Next hand</button>';
    return {
        same: after(hand + sort, hand + '<button id="sort-suit">by suit</button>'),
        handStop: after(hand + '<button id="stock" data-was>stock</button>', hand),
        overNext: after(hand + sort, '<p>the reveal</p>' + next),
        nothing: after(hand + sort, '<p>the reveal</p>'),
    };
}"""


def test_focus_of_a_control_that_went_moves_to_the_hand_or_the_next_hand_button(
        server: ServerProcess, browser: Browser) -> None:
    """A re-rendered control gets the focus back by its id; a control that went leaves it on
    the hand's tab stop, or, once the hand is over (no hand left), on Next hand."""
    _, page = new_page(browser, server.base)
    page.goto("/")
    page.wait_for_selector("#create-form")
    assert page.evaluate(FOCUS_JS) == {"same": "sort-suit", "handStop": "As",
                                       "overNext": "next-hand", "nothing": None}
    no_errors(page)


def reach_draw(page: Page) -> None:
    """Plays on (layoffs, next hands) until the page's seat is to draw."""
    for _ in range(8):
        my_turn(page)
        if phase(page) == "draw":
            return
        play_turn(page)
    raise AssertionError("never at a draw")


def await_value(page: Page) -> str:
    return str(page.get_attribute("#table-page", "data-await") or "")


def test_shortcuts_switched_off_do_nothing(server: ServerProcess, browser: Browser) -> None:
    """With the setting off (remembered over a reload) single keys do nothing at the table,
    the help says so; the hand's keys and the buttons still play; switched on, S draws."""
    _, page = new_page(browser, server.base)
    create_table(page, "Ann", preset="classic", bots={1: "simple"})
    assert page.is_checked("#pref-shortcuts")  # on by default
    page.uncheck("#pref-shortcuts")
    page.reload()
    wait_for_first_state(page)
    assert not page.is_checked("#pref-shortcuts")
    reach_draw(page)
    page.click("#status-line")  # keys go to the page, not to a control
    before = version(page)
    for key in ["s", "t", "p", "k", "g", "l", "n", "o", "r", "?", "ArrowRight", "Enter"]:
        page.keyboard.press(key)
    page.wait_for_timeout(500)
    assert version(page) == before  # no move
    assert page.locator("dialog[open]").count() == 0  # neither help nor rules
    assert page.get_attribute("#sort-rank", "aria-pressed") == "true"  # not re-sorted
    assert page.locator("#my-hand .card.selected").count() == 0
    page.click("#help-button")
    note = page.locator("#help-shortcuts-off")
    assert note.is_visible() and note.inner_text() == EN["help.shortcuts_off"]
    page.keyboard.press("Escape")
    # a button's Enter is not a shortcut: the stock by Tab and Enter still draws
    tab_until(page, "#stock")
    page.keyboard.press("Enter")
    page.wait_for_function("v => Number(document.getElementById('table-page').dataset.version) > v",
                           arg=before)
    wait_for_await([page], {"act"})
    assert phase(page) == "discard"
    keyboard_discard(page)  # and the hand's arrows and Enter
    page.check("#pref-shortcuts")
    page.click("#help-button")
    assert not page.locator("#help-shortcuts-off").is_visible()
    page.keyboard.press("Escape")
    reach_draw(page)
    page.click("#status-line")
    before = version(page)
    page.keyboard.press("s")  # on again: the key draws
    page.wait_for_function("v => Number(document.getElementById('table-page').dataset.version) > v",
                           arg=before)
    no_errors(page)
