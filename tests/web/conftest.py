"""Fixtures shared by the browser tests: one Chromium per test process (an xdist worker), and
each test's browser contexts closed when it ends.

Launching Chromium (and Playwright's driver) costs one to three seconds on a busy machine;
each module used to launch its own. The contexts (profiles) a test opens are closed after it,
so that no page of an ended test keeps playing, animating or reconnecting to a stopped server
while the next tests run.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from web_support import chromium

if TYPE_CHECKING:
    from playwright.sync_api import Browser


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """Chromium for every browser test of this process (tests open their own contexts)."""
    with chromium() as instance:
        yield instance


@pytest.fixture(autouse=True)
def _close_test_contexts(request: pytest.FixtureRequest) -> Iterator[None]:
    """Close the browser contexts a test opened (only for tests that use the browser)."""
    if "browser" not in request.fixturenames:
        yield
        return
    browser: Browser = request.getfixturevalue("browser")
    before = set(browser.contexts)
    yield
    for context in browser.contexts:
        if context not in before:
            context.close()
