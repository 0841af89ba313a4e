"""The web client on protocol 3 (docs/protocol.md, `delta`), chosen with localStorage's
`ginrummy.protocol` = "3": it applies the server's deltas to its last state
(`js/connection.js`'s `applyDelta`, a port of `ginrummy.server.core.delta.apply_delta`) and
plays a whole match, reloaded mid-hand, as on protocol 2; nothing it is sent names a card it
may not know."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

import pytest
from web_support import (
    FrameRecorder,
    ServerProcess,
    browser_missing,
    create_table,
    leaks,
    my_turn,
    new_page,
    play_turn,
    play_until,
    running_server,
    wait_for_await,
)

from ginrummy.server.core.delta import apply_delta, state_delta

if browser_missing():
    pytest.skip(browser_missing() or "", allow_module_level=True)

from playwright.sync_api import Browser, Page

DELTAS = 'localStorage.setItem("ginrummy.protocol", "3")'


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running_server(tmp_path_factory.mktemp("deltas")) as process:
        yield process


def hand_cards(page: Page) -> list[str]:
    return sorted(page.eval_on_selector_all("#my-hand .card", "cs => cs.map(c => c.dataset.card)"))


def test_a_match_on_deltas_reloaded_mid_hand(server: ServerProcess, browser: Browser) -> None:
    frames = FrameRecorder()
    context, page = new_page(browser, server.base, recorder=frames, motion=False)
    context.add_init_script(DELTAS)
    create_table(page, "Ann", preset="classic", bots={1: "simple"}, options={"target": "10"})
    my_turn(page)
    play_turn(page)
    my_turn(page)
    # mid-hand: the page shows what the states made of the deltas say
    state = frames.states()[-1].message
    assert frames.deltas > 0
    assert page.get_attribute("#table-page", "data-version") == str(state["version"])
    assert hand_cards(page) == sorted(state["view"]["hand"])
    before = hand_cards(page)
    deltas = frames.deltas
    page.reload()
    page.wait_for_selector("#my-hand .card")
    my_turn(page)
    assert hand_cards(page) == before  # the same hand, from a whole state after the reload
    for _ in range(12):  # then the match to its end, on deltas
        play_until([page], {"next", "over"})
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
    state = {"type": "state", "table": {"id": "t", "version": 1}, "version": 1, "seat": 0,
             "view": None, "legal": [], "hints": None, "clock": None}
    for version in range(2, 40):
        view = state["view"] or {"seat": 0, "phase": "draw", "hand": ["As"], "log": []}
        new_view = {**view, "phase": rng.choice(["draw", "discard"]),
                    "hand": rng.sample(["As", "2s", "Kd", "7h"], rng.randrange(1, 4)),
                    "log": [*view["log"], *([{"seat": 1, "action": "stock", "card": None}]
                                            if rng.random() < 0.5 else [])]}
        if rng.random() < 0.1:
            new_view["log"] = []  # a new hand
        new = {**state, "version": version + rng.randrange(2) - 1,
               "table": {"id": "t", "version": version, "status": rng.choice(["a", "b"])},
               "view": None if rng.random() < 0.05 else new_view,
               "legal": rng.choice([[], ["stock"]]), "clock": rng.choice([None, {"ms": 1}])}
        new["version"] = max(new["version"], state["version"])
        new["table"]["version"] = new["version"]
        delta = state_delta(state, new)
        assert json.dumps(apply_delta(state, delta)) == json.dumps(new)
        cases.append((state, delta, json.dumps(new)))
        state = new
    made = page.evaluate("""async (cases) => {
        const { applyDelta } = await import("/js/connection.js");
        const out = cases.map(([state, delta]) => JSON.stringify(applyDelta(state, delta)));
        const [state, delta] = cases[0];
        const stale = applyDelta(state, { ...delta, base: delta.base + 7 });
        return { out, stale };
    }""", [[s, d] for s, d, _ in cases])
    expected = [json.dumps(json.loads(text), separators=(",", ":")) for _, _, text in cases]
    assert made["out"] == expected
    assert made["stale"] is None

