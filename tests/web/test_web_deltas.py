"""The web client on protocol 3 (docs/protocol.md, `delta`), its default: it applies the
server's deltas to its last state (`js/connection.js`'s `applyDelta`, a port of
`ginrummy.server.core.delta.apply_delta`), redraws only the parts of the table a delta
changed (the piles, the seats' counts, the hand, the log, the turn; the whole table on a
whole state or any other change), and plays a whole match, reloaded mid-hand; at every turn
the page shows what the state made of the deltas says, and nothing it is sent names a card
it may not know."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from web_support import (
    FrameRecorder,
    ServerProcess,
    browser_missing,
    create_table,
    hand_cards,
    leaks,
    my_turn,
    new_page,
    play_turn,
    running_server,
    wait_for_await,
)

from ginrummy.server.core.delta import apply_delta, state_delta

if browser_missing():
    pytest.skip(browser_missing() or "", allow_module_level=True)

from playwright.sync_api import Browser, Page

SHOWN_JS = """() => {
    const text = (sel) => document.querySelector(sel)?.textContent ?? null;
    const top = document.querySelector("#discard-pile .card[data-card]");
    return {
        version: Number(document.getElementById("table-page").dataset.version),
        stock: text("#stock .pile-count"),
        top: top ? top.dataset.card : null,
        counts: [...document.querySelectorAll("#opponents .seat-box[data-seat]")].map(
            (box) => [Number(box.dataset.seat), box.querySelector(".count")?.textContent ?? null]),
        moves: document.querySelectorAll("#log .log-move").length,
        status: text("#status-line"),
        head: document.querySelector(".table-name")?.dataset.kept ?? null,
        renders: { ...window.ginrummyRenders },
    };
}"""


def check_shown(page: Page, frames: FrameRecorder) -> dict[str, Any]:
    """What the page shows of the piles, the other seats, the log and the hand is what the
    state it was sent (made of deltas) says; returns what it shows."""
    shown = page.evaluate(SHOWN_JS)
    state = frames.wait_for(page, page.recipient,  # type: ignore[attr-defined]
                            lambda m: m.get("type") == "state"
                            and m.get("version") == shown["version"]).message
    view = state["view"]
    assert shown["stock"] == str(view["stock_size"]), (shown, view["stock_size"])
    assert shown["top"] == view["top_discard"]
    for seat, count in shown["counts"]:  # a knocker's seat shows its melds instead (R4.8)
        if view["knock"] is None or view["knock"]["knocker"] != seat:
            assert count is not None and str(view["seats"][seat]["count"]) in count, (seat, count)
    assert shown["moves"] == len(view["log"])
    assert hand_cards(page) == sorted(view["hand"])
    assert shown["status"]
    return shown


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running_server(tmp_path_factory.mktemp("deltas")) as process:
        yield process


def test_a_match_on_deltas_reloaded_mid_hand(server: ServerProcess, browser: Browser) -> None:
    """Protocol 3 without asking for it; the table's head is drawn once while the moves come
    as deltas (a mark put on it stays), and every turn shows what the state says."""
    # Three of Ann's turns and the computer's in one hand: deltas, drawn in part. A deal in
    # which the computer knocks within them ends the hand (and, at a target of 10, the
    # match), which draws the whole table: such a deal is left for a new table.
    for _ in range(5):
        frames = FrameRecorder()
        context, page = new_page(browser, server.base, recorder=frames, motion=False)
        create_table(page, "Ann", preset="classic", bots={1: "simple"}, options={"target": "10"})
        my_turn(page)
        page.evaluate("() => { document.querySelector('.table-name').dataset.kept = 'yes'; }")
        before_moves = check_shown(page, frames)["renders"]
        for _ in range(3):
            play_turn(page)
            if wait_for_await([page], {"act", "next", "over"}, timeout=30)[1] != "act":
                break
            shown = check_shown(page, frames)
        else:
            break
        context.close()
    else:
        raise AssertionError("in five deals the computer ended the hand within three turns")
    assert frames.deltas > 0 and frames.states()[0].message["type"] == "state"
    assert shown["head"] == "yes", "a delta of a move drew the whole table again"
    assert shown["renders"]["partial"] >= before_moves["partial"] + 6  # 2 moves a turn, at least
    assert shown["renders"]["full"] == before_moves["full"]
    before = hand_cards(page)
    deltas = frames.deltas
    page.reload()
    page.wait_for_selector("#my-hand .card")
    my_turn(page)
    assert hand_cards(page) == before  # the same hand, from a whole state after the reload
    assert page.evaluate("() => window.ginrummyRenders.full") >= 1  # a whole state: all drawn
    check_shown(page, frames)
    for _ in range(12):  # then the match to its end, on deltas, each turn checked
        for _ in range(400):
            _, await_ = wait_for_await([page], {"act", "next", "over"}, timeout=30)
            if await_ != "act":
                break
            check_shown(page, frames)
            play_turn(page)
        if page.get_attribute("#table-page", "data-await") == "over":
            break
        page.click("#next-hand")
        wait_for_await([page], {"act", "wait"})
    else:
        raise AssertionError("the match did not end")
    assert page.locator("#match-winner").inner_text().strip() != ""
    final = frames.states()[-1].message
    assert final["result"] is not None
    assert page.get_attribute("#table-page", "data-version") == str(final["version"])
    assert frames.deltas > deltas  # deltas again after the reload's whole state
    assert leaks(frames.frames) == []
    assert page.errors == []  # type: ignore[attr-defined]


def test_the_pages_reducer_is_the_servers(server: ServerProcess, browser: Browser) -> None:
    """`applyDelta` in the page makes, from random states and deltas between them, exactly
    what the Python reducer makes (key order included), and refuses a delta of another
    base."""
    _, page = new_page(browser, server.base, motion=False)
    page.goto("/")
    rng = random.Random(7)
    cases = []
    state = {"type": "state", "table": {"id": "t", "seats": [{"connected": True}], "version": 1},
             "version": 1, "seat": 0, "view": None, "legal": [], "hints": None, "clock": None}
    for version in range(2, 80):
        view = state["view"] or {"seat": 0, "phase": "draw", "hand": ["As"], "log": [],
                                 "seats": [{"seat": 0, "count": 1, "cards": ["As"]},
                                           {"seat": 1, "count": 1, "cards": None}]}
        hand = sorted(rng.sample(["As", "2s", "Kd", "7h", "9c"], rng.randrange(1, 5)))
        seats = [{**view["seats"][0], "count": len(hand), "cards": hand},
                 {**view["seats"][1], "count": rng.randrange(1, 3)}]
        new_view = {**view, "phase": rng.choice(["draw", "discard"]), "hand": hand,
                    "seats": seats,
                    "log": [*view["log"], *([{"seat": 1, "action": "stock", "card": None}]
                                            if rng.random() < 0.5 else [])]}
        if rng.random() < 0.1:
            new_view["log"] = []  # a new hand
        discards = [f"discard {card}" for card in hand if rng.random() < 0.8]
        new = {**state, "version": version + rng.randrange(2) - 1,
               "table": {"id": "t", "seats": [{"connected": rng.random() < 0.8}],
                         "version": version},
               "view": None if rng.random() < 0.05 else new_view,
               "legal": rng.choice([[], ["stock"], ["stock", "take"],
                                    [*discards, *rng.choice([[], ["knock Kd"]])]]),
               "hints": rng.choice([None, {"deadwood": rng.randrange(9), "unmatched": hand}]),
               "clock": rng.choice([None, {"seat": 0, "ms": rng.randrange(3)}])}
        new["version"] = max(new["version"], state["version"])
        new["table"]["version"] = new["version"]
        delta = state_delta(state, new)
        assert json.dumps(apply_delta(state, delta)) == json.dumps(new)
        cases.append((state, delta, json.dumps(new)))
        state = new
    kinds = {path for _, delta, _ in cases for path in [*delta, *(delta.get("view") or {})]}
    assert {"hand~", "seats.1.count", "log~", "hints.deadwood", "clock.ms"} <= kinds
    assert any(isinstance(delta.get("legal"), dict) for _, delta, _ in cases)
    made = page.evaluate("""async (cases) => {
        const { applyDelta } = await import("/js/connection.js");
        const out = cases.map(([state, delta]) => JSON.stringify(applyDelta(state, delta)));
        const [state, delta] = cases[0];
        const stale = applyDelta(state, { ...delta, base: delta.base + 7 });
        const misfit = applyDelta(state, { ...delta, "legal~": [5, 0, "x"] });
        return { out, stale, misfit };
    }""", [[s, d] for s, d, _ in cases])
    expected = [json.dumps(json.loads(text), separators=(",", ":")) for _, _, text in cases]
    assert made["out"] == expected
    assert made["stale"] is None
    assert made["misfit"] is None  # a splice past the list's end: a resync, not a throw

