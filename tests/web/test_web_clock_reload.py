"""A move the turn clock played still reads as the clock's after a reload, and for a spectator
who arrives later (issue 13, point 5), in a real browser (Chromium through Playwright) against
a real `ginrummy serve`.

The live `notice` is gone by then: the page marks the log line from the state's
`clock_moves`, which the server rebuilds from the stored events (docs/protocol.md, `state`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from web_support import (
    ServerProcess,
    browser_missing,
    create_table,
    new_page,
    running_server,
    wait_for_await,
    wait_for_first_state,
)

if browser_missing():
    pytest.skip(browser_missing() or "", allow_module_level=True)

from playwright.sync_api import Browser, Page

PLAYED_FOR_ANN = r"Time ran out: the computer .+ for Ann\."
"""The English log line of a move the clock played for Ann (catalogue keys clock.played.*)."""

CLOCK_SECONDS = 5
"""The shortest turn clock the create form accepts (`min_clock_seconds`, docs/protocol.md)."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running_server(tmp_path_factory.mktemp("clock_reload")) as process:
        yield process


def clock_lines(page: Page) -> dict[int, str]:
    """The move log's lines marked as the clock's: their log index and text."""
    lines = page.evaluate("""() => [...document.querySelectorAll('#log li.clock-played')]
        .map((li) => [Number(li.dataset.index), li.textContent.trim()])""")
    return {int(index): str(text) for index, text in lines}


def test_a_clock_move_reads_as_the_clocks_after_a_reload_and_for_a_late_spectator(
        server: ServerProcess, browser: Browser) -> None:
    """Ann lets a 5 s clock run out against the computer: the log line says the computer
    played for her. She reloads the page (the notice is gone): the same line still says so,
    and so does a spectator's page opened afterwards; every other line of the log reads as
    an ordinary move."""
    ann_context, ann = new_page(browser, server.base)
    table = create_table(ann, "Ann", bots={1: "simple"}, clock=CLOCK_SECONDS)
    wait_for_await([ann], {"act"}, timeout=30)
    ann.locator(".toast.clock-notice").first.wait_for(timeout=20_000)  # the live notice
    ann.locator("#log li.clock-played").first.wait_for(timeout=5_000)
    before = clock_lines(ann)
    assert before and all(re.fullmatch(PLAYED_FOR_ANN, text) for text in before.values())

    ann.reload()
    wait_for_first_state(ann)
    ann.locator("#log li.clock-played").first.wait_for(timeout=5_000)
    after = clock_lines(ann)
    # the clock may have played for Ann again meanwhile (a turn every 5 s): never fewer
    assert set(before) <= set(after), (before, after)
    assert all(re.fullmatch(PLAYED_FOR_ANN, text) for text in after.values()), after
    others = ann.evaluate("""() => [...document.querySelectorAll('#log li.log-move')]
        .filter((li) => !li.classList.contains('clock-played')).map((li) => li.textContent)""")
    assert others and not any("Time ran out" in text for text in others), others

    _, eve = new_page(browser, server.base)
    eve.goto(f"/?table={table}")
    wait_for_first_state(eve)
    eve.locator("#log li.clock-played").first.wait_for(timeout=5_000)
    seen = clock_lines(eve)
    assert set(before) <= set(seen), (before, seen)
    assert all(re.fullmatch(PLAYED_FOR_ANN, text) for text in seen.values()), seen
    assert ann.errors == [], ann.errors  # type: ignore[attr-defined]
    assert eve.errors == [], eve.errors  # type: ignore[attr-defined]
    ann_context.close()
