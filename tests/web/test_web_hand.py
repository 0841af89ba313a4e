"""The hand on a phone and its own order, in a real browser (Chromium through Playwright)
against a real `ginrummy serve` (issue 27, points 2 and 9).

- Point 2: every card's face shows its rank and its suit in the top-left corner, the part of
  an overlapped card that shows; on a phone (390x844, touch, device scale 3), with normal and
  large cards, every card of an 11-card hand shows a strip at least 44 px wide, the hand lies
  in one or two rows, and a tap at the middle of each card's visible strip chooses that card
  (21 taps a size, 0 wrong picks). A discard waits a moment before it is sent: taken back
  (the button, or Escape) the hand is as it was and the server saw no discard; *Discard now*
  or the end of the wait sends it.
- Point 9: a card dragged to another place (a mouse, or a finger on the phone) or moved with
  Shift and an arrow key stays there across a reload; the sort buttons bring the sorted hand
  back.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from web_support import (
    FAST_PLAYER,
    PHONE,
    SNAPSHOT_JS,
    ServerProcess,
    browser_missing,
    create_table,
    my_turn,
    running_server,
    version,
    wait_for_first_state,
    wait_until_still,
)

if browser_missing():
    pytest.skip(browser_missing() or "", allow_module_level=True)

from playwright.sync_api import Browser, BrowserContext, Page, expect

MIN_STRIP = 44.0  # CSS px: the smallest hit area a card may have
UNDO_MS = 3000  # js/board.js


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running_server(tmp_path_factory.mktemp("hand"), env=FAST_PLAYER) as process:
        yield process


def open_page(browser: Browser, base: str, *, phone: bool, large: bool = False,
              lang: str = "en-US") -> tuple[BrowserContext, Page]:
    """A fresh profile: a phone (touch, device scale 3) or a laptop screen, large cards or not.
    The discard's take-back wait is left on (the setting's default)."""
    if phone:
        context = browser.new_context(locale=lang, base_url=base, viewport=PHONE,
                                      device_scale_factor=3, is_mobile=True, has_touch=True)
    else:
        context = browser.new_context(locale=lang, base_url=base,
                                      viewport={"width": 1280, "height": 900})
    context.set_default_timeout(20_000)
    if large:
        context.add_init_script(
            "try { localStorage.setItem('ginrummy.largeCards', 'true'); } catch (e) {}")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(f"pageerror: {error}"))
    page.errors = errors  # type: ignore[attr-defined]
    return context, page


def newer(page: Page, than: int, timeout: float = 20_000) -> None:
    """Wait for a state newer than version ``than``."""
    page.wait_for_function("v => Number(document.getElementById('table-page').dataset.version) > v",
                           arg=than, timeout=timeout)


def step(page: Page, selector: str) -> None:
    """Click ``selector`` and wait for the next state."""
    before = version(page)
    page.click(selector)
    newer(page, before)


def to_discard_step(page: Page) -> None:
    """Play the page's seat (against the computer) until it holds 11 cards and must discard:
    pass the first-turn offer, draw from the stock, lay off as proposed if the computer knocked."""
    for _ in range(12):
        my_turn(page)
        wait_until_still(page)
        ids = page.evaluate(SNAPSHOT_JS)["ids"]
        if "confirm-layoff" in ids:
            step(page, "#confirm-layoff")
        elif "action-pass" in ids:
            step(page, "#action-pass")
        elif "action-stock" in ids:
            step(page, "#stock")
        else:
            expect(page.locator("#my-hand .card.playable")).to_have_count(11)
            return
    raise AssertionError("never at a discard step")


def hand(page: Page) -> list[str]:
    return list(page.eval_on_selector_all("#my-hand .card", "ns => ns.map((n) => n.dataset.card)"))


# Each card's box and the part of it no later card covers (a later card is drawn over an
# earlier one): the strip from its left edge to the nearest later card that overlaps it.
STRIPS_JS = """() => {
    const cards = [...document.querySelectorAll('#my-hand .card')];
    const boxes = cards.map((c) => c.getBoundingClientRect());
    const corners = cards.map((c) => c.querySelector('.corner'));
    const tops = [];
    for (const c of cards) {
        const top = c.offsetTop;
        if (!tops.some((t) => Math.abs(t - top) < 4)) tops.push(top);
    }
    return {rows: tops.length, cards: cards.map((c, i) => {
        const r = boxes[i];
        let right = r.right;
        let bottom = r.bottom;
        for (const o of boxes.slice(i + 1)) {
            const overlapY = o.top < r.bottom && o.bottom > r.top;
            const overlapX = o.left < r.right && o.right > r.left;
            if (!overlapX || !overlapY) continue;
            if (o.left > r.left + 1) right = Math.min(right, o.left);
            else if (o.top > r.top) bottom = Math.min(bottom, o.top);
        }
        return {card: cards[i].dataset.card, left: r.left, right, top: r.top, bottom,
                corner: corners[i] ? corners[i].getBoundingClientRect().right : null,
                cornerText: corners[i] ? corners[i].innerText.replace(/\\s+/g, '') : ''};
    })};
}"""


def strips(page: Page) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate(STRIPS_JS)
    return result


CHOSEN_JS = """before => {
    const node = document.querySelector('#my-hand .card[aria-selected="true"]');
    return node && node.dataset.card !== before; }"""

CHOSEN_NOW_JS = """() => {
    const node = document.querySelector('#my-hand .card[aria-selected="true"]');
    return node ? node.dataset.card : null; }"""

SUITS = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}


@pytest.mark.parametrize("large", [False, True], ids=["normal", "large"])
def test_phone_cards_show_rank_and_suit_and_every_tap_picks_the_tapped_card(
        server: ServerProcess, browser: Browser, large: bool) -> None:
    context, page = open_page(browser, server.base, phone=True, large=large)
    create_table(page, "Ann", preset="classic", bots={1: "simple"})
    to_discard_step(page)
    wait_until_still(page)
    measured = strips(page)
    assert 1 <= measured["rows"] <= 2, measured
    narrow = {c["card"]: round(c["right"] - c["left"], 1) for c in measured["cards"]
              if c["right"] - c["left"] < MIN_STRIP}
    assert narrow == {}, f"strips under {MIN_STRIP} px: {narrow}"
    for c in measured["cards"]:
        # the corner shows the rank and the suit, whole, inside the visible strip
        rank = "10" if c["card"][0] == "T" else c["card"][0]
        assert c["cornerText"] == rank + SUITS[c["card"][1]], c
        assert c["corner"] is not None and c["corner"] <= c["right"] + 0.5, c
    order = hand(page)
    assert len(order) == 11
    # every card once from the left, then back from the tenth to the first: 21 taps, none on
    # the card already chosen (a second tap would discard it)
    plan = list(range(11)) + list(range(9, -1, -1))
    wrong: list[str] = []
    for index in plan:
        wait_until_still(page)
        box = strips(page)["cards"][index]
        assert box["card"] == order[index]
        x = (box["left"] + box["right"]) / 2
        y = (box["top"] + box["bottom"]) / 2
        before = page.evaluate(CHOSEN_NOW_JS)
        page.touchscreen.tap(x, y)
        page.wait_for_function(CHOSEN_JS, arg=before)
        chosen = page.evaluate(CHOSEN_NOW_JS)
        if chosen != order[index]:
            wrong.append(f"tapped {order[index]} at ({x:.0f}, {y:.0f}), chose {chosen}")
            break
        expect(page.locator(f'#my-hand .card[data-card="{order[index]}"]')).to_have_attribute(
            "aria-selected", "true")
    assert wrong == [], wrong
    assert page.errors == []  # type: ignore[attr-defined]
    context.close()


SENT_JS = """() => window.__sentActions || []"""

# every action the page sends on its table socket, kept in the page (to see that a discard
# taken back never reached the server)
RECORD_SENT_JS = """(() => {
    const send = WebSocket.prototype.send;
    window.__sentActions = [];
    WebSocket.prototype.send = function (data) {
        try {
            const msg = JSON.parse(data);
            if (msg.action) window.__sentActions.push(msg.action);
        } catch (e) { /* not JSON: not an action */ }
        return send.call(this, data);
    };
})();"""


def pending_card(page: Page) -> str | None:
    value = page.evaluate("() => document.querySelector('#my-hand .card.pending-discard')"
                          "?.dataset.card ?? null")
    return str(value) if value else None


def wait_past_the_undo_time(page: Page) -> None:
    """Wait (in the page's own clock) until a discard held when this was called would have
    been sent: the condition is the time itself."""
    start = page.evaluate("() => performance.now()")
    page.wait_for_function("t => performance.now() > t", arg=start + UNDO_MS + 600, polling=100)


def test_a_discard_taken_back_by_touch_leaves_the_hand_and_the_server_as_they_were(
        server: ServerProcess, browser: Browser) -> None:
    context, page = open_page(browser, server.base, phone=True)
    context.add_init_script(RECORD_SENT_JS)
    create_table(page, "Ann", preset="classic", bots={1: "simple"})
    to_discard_step(page)
    wait_until_still(page)
    before, at = hand(page), version(page)
    card = page.locator("#my-hand .card").nth(4)
    code = card.get_attribute("data-card")
    card.tap()
    expect(card).to_have_attribute("aria-selected", "true")
    card.tap()  # the second tap discards: the discard waits, shown leaving
    expect(page.locator("#table-page")).to_have_attribute("data-await", "undo")
    assert pending_card(page) == code
    expect(page.locator("#undo-discard")).to_be_visible()
    page.tap("#undo-discard")
    expect(page.locator("#table-page")).to_have_attribute("data-await", "act")
    assert pending_card(page) is None
    assert hand(page) == before
    wait_past_the_undo_time(page)
    assert version(page) == at, "a state came: the server was sent something"
    assert hand(page) == before
    assert not any(a.startswith("discard") for a in page.evaluate(SENT_JS))
    # tapped again, the card waits again; *Discard now* sends it at once
    card = page.locator(f'#my-hand .card[data-card="{code}"]')
    expect(card).to_have_attribute("aria-selected", "true")
    card.tap()
    expect(page.locator("#table-page")).to_have_attribute("data-await", "undo")
    page.tap("#discard-now")
    newer(page, at)
    assert f"discard {code}" in page.evaluate(SENT_JS)
    expect(page.locator(f'#my-hand .card[data-card="{code}"]')).to_have_count(0)
    assert page.errors == []  # type: ignore[attr-defined]
    context.close()


def test_a_discard_taken_back_by_keyboard_then_sent_when_the_wait_ends(
        server: ServerProcess, browser: Browser) -> None:
    context, page = open_page(browser, server.base, phone=False)
    context.add_init_script(RECORD_SENT_JS)
    create_table(page, "Ann", preset="classic", bots={1: "simple"})
    to_discard_step(page)
    wait_until_still(page)
    before, at = hand(page), version(page)
    page.locator("#my-hand .card").first.focus()
    page.keyboard.press("ArrowRight")  # chooses the second card
    code = before[1]
    expect(page.locator(f'#my-hand .card[data-card="{code}"]')).to_have_attribute(
        "aria-selected", "true")
    page.keyboard.press("Enter")  # discards it: it waits
    expect(page.locator("#table-page")).to_have_attribute("data-await", "undo")
    assert pending_card(page) == code
    page.keyboard.press("Escape")
    expect(page.locator("#table-page")).to_have_attribute("data-await", "act")
    assert hand(page) == before and pending_card(page) is None
    wait_past_the_undo_time(page)
    assert version(page) == at and hand(page) == before
    assert not any(a.startswith("discard") for a in page.evaluate(SENT_JS))
    # the focus is back on the card, still chosen: Enter discards it, sent once the wait ends
    expect(page.locator(f'#my-hand .card[data-card="{code}"]')).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#table-page")).to_have_attribute("data-await", "undo")
    newer(page, at, timeout=UNDO_MS + 10_000)
    assert page.evaluate(SENT_JS).count(f"discard {code}") == 1
    expect(page.locator(f'#my-hand .card[data-card="{code}"]')).to_have_count(0)
    assert page.errors == []  # type: ignore[attr-defined]
    context.close()


def centre(page: Page, code: str) -> tuple[float, float]:
    """The middle of a card's visible strip."""
    box = next(c for c in strips(page)["cards"] if c["card"] == code)
    return (box["left"] + box["right"]) / 2, (box["top"] + box["bottom"]) / 2


def reload(page: Page) -> None:
    page.reload()
    wait_for_first_state(page)
    expect(page.locator("#my-hand .card")).to_have_count(11)


def moved(order: list[str], card: str, to: int) -> list[str]:
    rest = [c for c in order if c != card]
    return [*rest[:to], card, *rest[to:]]


def test_a_card_dragged_with_the_mouse_keeps_its_place_across_a_reload(
        server: ServerProcess, browser: Browser) -> None:
    context, page = open_page(browser, server.base, phone=False)
    create_table(page, "Ann", preset="classic", bots={1: "simple"})
    to_discard_step(page)
    wait_until_still(page)
    before = hand(page)
    card = before[0]
    # dropped just right of the middle of the sixth card: after it
    x0, y0 = centre(page, card)
    box = page.locator(f'#my-hand .card[data-card="{before[5]}"]').bounding_box()
    assert box is not None
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * 0.7, box["y"] + box["height"] / 2, steps=12)
    page.mouse.up()
    expected = moved(before, card, 5)
    expect(page.locator("#my-hand")).to_have_attribute("data-order", "own")
    assert hand(page) == expected
    assert page.locator("#my-hand .card.selected").count() == 0  # a drag chooses nothing
    reload(page)
    expect(page.locator("#my-hand")).to_have_attribute("data-order", "own")
    assert hand(page) == expected
    # the sort buttons give the sorted hand back, for good
    page.click("#sort-rank")
    expect(page.locator("#my-hand")).to_have_attribute("data-order", "rank")
    assert hand(page) == before
    reload(page)
    assert hand(page) == before
    assert page.errors == []  # type: ignore[attr-defined]
    context.close()


def test_a_card_dragged_by_touch_or_moved_by_keys_keeps_its_place_and_a_new_card_goes_right(
        server: ServerProcess, browser: Browser) -> None:
    context, page = open_page(browser, server.base, phone=True)
    create_table(page, "Ann", preset="classic", bots={1: "simple"})
    to_discard_step(page)
    wait_until_still(page)
    before = hand(page)
    # a finger drags the last card onto the first card's left half: it goes first
    cdp = context.new_cdp_session(page)
    x0, y0 = centre(page, before[-1])
    x1, y1 = centre(page, before[0])
    x1 = strips(page)["cards"][0]["left"] + 6
    cdp.send("Input.dispatchTouchEvent",
             {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]})
    for i in range(1, 13):
        f = i / 12
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [
            {"x": x0 + (x1 - x0) * f, "y": y0 + (y1 - y0) * f}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    expected = moved(before, before[-1], 0)
    expect(page.locator("#my-hand")).to_have_attribute("data-order", "own")
    assert hand(page) == expected
    # Shift+→ on the focused third card moves it one place right
    third = expected[2]
    page.locator(f'#my-hand .card[data-card="{third}"]').focus()
    page.keyboard.press("Shift+ArrowRight")
    expected = moved(expected, third, 3)
    page.wait_for_function("want => [...document.querySelectorAll('#my-hand .card')]"
                           ".map((n) => n.dataset.card).join() === want", arg=",".join(expected))
    expect(page.locator(f'#my-hand .card[data-card="{third}"]')).to_be_focused()
    reload(page)
    assert hand(page) == expected
    # an order kept before the last draw: the card drawn since goes to the right end
    drawn = page.get_attribute('#my-hand .card[data-drawn="true"]', "data-card")
    assert drawn
    page.evaluate("""drawn => {
        for (let i = 0; i < localStorage.length; i += 1) {
            const key = localStorage.key(i);
            if (!key.startsWith('ginrummy.order.')) continue;
            const kept = JSON.parse(localStorage.getItem(key));
            kept.order = kept.order.filter((c) => c !== drawn);
            localStorage.setItem(key, JSON.stringify(kept));
        }
    }""", drawn)
    reload(page)
    assert hand(page) == [c for c in expected if c != drawn] + [drawn]
    assert page.errors == []  # type: ignore[attr-defined]
    context.close()
