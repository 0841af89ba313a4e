"""Issue 13.6 and 13.8 in a real browser: the variant always in the table's head (Oklahoma's
upcard, knock limit and doubling at 390x844; the arena's pool and each seat's payout), the
single-hand wording at the end of an arena hand, resign and leave with a confirmation, and the
previous match's score sheet after a rematch and a reload.

The WebSocket is routed through the test (Playwright's ``route_web_socket``): every state the
page gets is recorded (made of the deltas of protocol 3, the page's default, with the
server's reducer), so the checks compare the page with what the server sent, and one test
sends the page a copy of its state whose upcard is of the other colour, so that both the
doubled and the plain hand are seen without waiting for the deal to give them.
"""

from __future__ import annotations

import json
import re
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from web_support import (
    ServerProcess,
    browser_missing,
    catalogue,
    create_table,
    my_turn,
    new_page,
    play_game,
    running_server,
)

from ginrummy.scoring import split_pool
from ginrummy.server.core.delta import apply_delta

if browser_missing():
    pytest.skip(browser_missing() or "", allow_module_level=True)

from playwright.sync_api import Browser, Page, WebSocketRoute

EN = catalogue("en")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running_server(tmp_path_factory.mktemp("variant")) as process:
        yield process


class StateTap:
    """Routes the page's table WebSocket through the test and records every state."""

    def __init__(self) -> None:
        self.states: list[dict[str, Any]] = []
        self.page_side: WebSocketRoute | None = None

    def route(self, ws: WebSocketRoute) -> None:
        self.page_side = ws
        server = ws.connect_to_server()
        ws.on_message(lambda message: server.send(message))
        server.on_message(lambda message: ws.send(self.record(message)))

    def record(self, message: str | bytes) -> str | bytes:
        """Keeps each state: a whole one, or the one a delta makes of the last (protocol 3,
        the page's default)."""
        if isinstance(message, str):
            data = json.loads(message)
            if data.get("type") == "delta":
                data = apply_delta(self.states[-1], data)
            if data.get("type") == "state":
                self.states.append(data)
        return message

    @property
    def last(self) -> dict[str, Any]:
        return self.states[-1]

    def send(self, state: dict[str, Any]) -> None:
        """Give the page a whole state as if the server had sent it (protocol 3 too: the
        server may send a whole state at any time; the next delta then starts from it)."""
        assert self.page_side is not None
        self.page_side.send(json.dumps(state))


def tapped_page(browser: Browser, base: str, width: int, height: int) -> tuple[Page, StateTap]:
    _, page = new_page(browser, base)
    page.set_viewport_size({"width": width, "height": height})
    tap = StateTap()
    page.route_web_socket(re.compile(r"/ws/tables/"), tap.route)
    return page, tap


def text(page: Page, selector: str) -> str:
    return str(page.locator(selector).inner_text()).strip()


def fill(key: str, **params: object) -> str:
    message = EN[key]
    for name, value in params.items():
        message = message.replace("{" + name + "}", str(value))
    return message


def box_of(page: Page, selector: str) -> dict[str, float]:
    """The element's box, measured in one step in the page once it is shown (a state that
    re-renders the head between finding the element and measuring it gave no box)."""
    found = page.wait_for_function(
        """(sel) => { const node = document.querySelector(sel); if (!node) return null;
            const r = node.getBoundingClientRect();
            return r.width > 0 && r.height > 0
              ? { x: r.x, y: r.y, width: r.width, height: r.height } : null; }""", arg=selector)
    box: dict[str, float] = found.json_value()
    return box


def in_viewport(page: Page, selector: str) -> None:
    box = box_of(page, selector)
    size = page.viewport_size
    assert box is not None and size is not None, selector
    assert box["x"] >= 0 and box["x"] + box["width"] <= size["width"] + 0.5, (selector, box)
    assert box["y"] >= 0 and box["y"] + box["height"] <= size["height"], (selector, box)


def card_value(code: str) -> int:
    return min("A23456789TJQK".index(code[0]) + 1, 10)


def test_oklahoma_upcard_knock_limit_and_doubling_in_the_head_on_a_phone(
        server: ServerProcess, browser: Browser) -> None:
    page, tap = tapped_page(browser, server.base, 390, 844)
    create_table(page, "Ann", bots={1: "simple"},
                 options={"oklahoma_knock_limit": True, "oklahoma_spades_double": True})
    page.wait_for_selector("#variant-knock")
    # Ann's turn: the server sends nothing more until she acts, so the state turned below is
    # not replaced by the computer's next one (its upcard's suit unturned)
    my_turn(page)
    view = tap.last["view"]
    upcard, limit = view["upcard"], view["knock_limit"]
    value = card_value(upcard)
    assert limit == (0 if value == 1 else min(value, 10))  # R5.4: an ace means gin only
    for selector in ("#variant-bar", "#variant-upcard", "#variant-knock"):
        in_viewport(page, selector)
    assert page.get_attribute("#variant-knock", "data-limit") == str(limit)
    assert text(page, "#variant-knock") == (fill("variant.knock_limit", limit=limit) if limit
                                            else EN["variant.gin_only"])
    assert page.get_attribute("#variant-upcard", "data-card") == upcard
    assert (page.locator("#variant-doubled").count() == 1) == upcard.endswith("s")
    # compact: the head's variant line is one row of small text
    bar = box_of(page, "#variant-bar")
    assert bar["height"] < 30, bar
    # the same state with the upcard's suit turned (spade <-> heart): the mark follows it
    turned = json.loads(json.dumps(tap.last))
    other = upcard[0] + ("h" if upcard.endswith("s") else "s")
    turned["view"]["upcard"] = other
    tap.send(turned)
    page.wait_for_function("(card) => document.getElementById('variant-upcard')"
                           "?.dataset.card === card", arg=other)
    assert (page.locator("#variant-doubled").count() == 1) == other.endswith("s")
    if other.endswith("s"):
        assert text(page, "#variant-doubled") == EN["variant.doubled"]
        in_viewport(page, "#variant-doubled")
    assert page.errors == []  # type: ignore[attr-defined]


def test_an_arena_shows_the_pool_each_payout_and_ends_as_a_game_not_a_match(
        server: ServerProcess, browser: Browser) -> None:
    page, tap = tapped_page(browser, server.base, 1366, 900)
    create_table(page, "Ann", preset="arena", players=4,
                 bots={1: "simple", 2: "simple", 3: "simple"}, pool=400)
    page.wait_for_selector("#variant-pool")
    table = tap.last["table"]
    threshold = table["rules"]["payout_threshold"]
    assert page.get_attribute("#variant-pool", "data-pool") == "400"
    # before the end: what the payout rule gives now (nobody has a penalty point yet)
    best = split_pool(400, [0, 0, 0, 0], 0, threshold)
    assert page.get_attribute("#variant-payouts", "data-winner") == str(best[0])
    assert page.get_attribute("#variant-payouts", "data-other") == str(best[1])
    assert str(best[0]) in text(page, "#variant-payouts")
    play_game([page])
    page.wait_for_selector("#variant-payouts .variant-payout")
    result = tap.last["result"]
    assert result is not None and sum(result["payouts"]) == 400
    names = [text(page, f'#opponents .seat-box[data-seat="{s}"] .player-name') if s else "Ann"
             for s in range(4)]
    shown = page.evaluate("""() => [...document.querySelectorAll(
        '#variant-payouts .variant-payout')]
        .map((n) => [Number(n.dataset.seat), Number(n.dataset.chips), n.textContent])""")
    assert [(s, c) for s, c, _ in shown] == list(enumerate(result["payouts"]))
    for seat, _chips, line in shown:
        assert line.startswith(names[seat])
    # one hand settles the game: no "match" in the ending
    assert text(page, "#status-line") == EN["variant.game_over"]
    assert EN["table.match_over"] not in page.inner_text("#table-page")
    assert page.errors == []  # type: ignore[attr-defined]


def _await(page: Page, value: str) -> None:
    page.wait_for_function("(v) => document.getElementById('table-page').dataset.await === v",
                           arg=value)


def test_resign_with_a_confirmation_then_the_previous_sheet_after_a_rematch_and_a_reload(
        server: ServerProcess, browser: Browser) -> None:
    page, tap = tapped_page(browser, server.base, 1366, 900)
    create_table(page, "Ann", bots={1: "simple"})
    page.wait_for_selector("#resign-button")
    computer = text(page, '#opponents .seat-box[data-seat="1"] .player-name')
    page.click("#resign-button")
    dialog = page.locator("#resign-dialog")
    assert dialog.is_visible()
    assert fill("variant.resign_two", name=computer) in dialog.inner_text()
    version = tap.last["version"]
    page.click("#resign-dialog-cancel")  # nothing happens
    # the dialog goes on its close event, a task queued after the click
    page.wait_for_selector("#resign-dialog", state="detached", timeout=5000)
    assert page.locator("#resign-dialog").count() == 0
    page.wait_for_timeout(300)
    assert all(s["result"] is None and not s["resigned"] for s in tap.states)
    assert tap.last["version"] >= version
    page.click("#resign-button")
    page.click("#resign-dialog-confirm")
    _await(page, "over")
    assert tap.last["result"]["winner"] == 1 and tap.last["resigned"] == [0]
    over = fill("variant.resigned_over", names="Ann", over=EN["table.match_over"])
    assert text(page, "#status-line") == over
    assert text(page, "#match-winner") == fill("variant.resign_winner", name=computer,
                                               names="Ann")
    assert page.locator("#resign-button").count() == 0
    page.click("#rematch")
    page.wait_for_selector("#previous-match")
    _await(page, "act" if tap.last["view"]["to_move"] == 0 else "wait")
    summary = fill("variant.previous_match", name=computer)
    assert text(page, "#previous-match summary") == summary
    page.click("#previous-match summary")
    assert page.locator("#previous-sheet").is_visible()
    heads = page.locator("#previous-sheet thead th.player-name").all_inner_texts()
    assert heads == ["Ann", computer]
    assert page.locator("#score-sheet").count() == 0  # the new match has no hand yet
    page.reload()  # the server carries the previous sheet: it is back after a reload
    page.wait_for_selector("#previous-match")
    assert text(page, "#previous-match summary") == summary
    assert page.errors == []  # type: ignore[attr-defined]


def test_leave_during_a_match_with_a_confirmation_back_to_the_lobby(
        server: ServerProcess, browser: Browser) -> None:
    page, _tap = tapped_page(browser, server.base, 1366, 900)
    table_id = create_table(page, "Ann", bots={1: "simple"})
    page.wait_for_selector("#leave-match")
    page.click("#leave-match")
    assert EN["variant.leave_text"] in page.locator("#leave-dialog").inner_text()
    page.click("#leave-dialog-confirm")
    page.wait_for_selector("#create-form")
    assert "table=" not in page.url
    deadline = time.monotonic() + 10
    while True:  # the server has the leave before the page's socket closes; read it back
        with urllib.request.urlopen(f"{server.base}/api/tables/{table_id}",
                                    timeout=10) as answer:
            entry = json.loads(answer.read())
        if entry["seats"][0]["away"] or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert entry["seats"][0]["away"] is True and entry["status"] == "playing"
    assert page.errors == []  # type: ignore[attr-defined]
