"""Fixtures shared by the browser tests: one Chromium per test process (an xdist worker) for
a run of browser tests in a row, and each test's browser contexts closed when it ends.

Launching Chromium (and Playwright's driver) costs one to three seconds on a busy machine;
each module used to launch its own. The shared one is stopped as soon as the next test of
the process does not use it: Playwright's sync API keeps an event loop running in the main
thread while it is started, so a later test that runs its own loop (``asyncio.run``) or its
own Playwright would fail. The contexts (profiles) a test opens are closed after it, so that
no page of an ended test keeps playing, animating or reconnecting to a stopped server while
the next tests run.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from web_support import chromium

if TYPE_CHECKING:
    from playwright.sync_api import Browser


class _SharedChromium:
    """The process's Chromium while browser tests follow each other."""

    def __init__(self) -> None:
        self.stack: contextlib.ExitStack | None = None
        self.browser: Browser | None = None

    def get(self) -> Browser:
        if self.browser is None:
            stack = contextlib.ExitStack()
            self.browser = stack.enter_context(chromium())
            self.stack = stack
        return self.browser

    def stop(self) -> None:
        stack, self.stack, self.browser = self.stack, None, None
        if stack is not None:
            stack.close()


_shared = _SharedChromium()


@pytest.fixture
def browser() -> Browser:
    """Chromium for every browser test of this process (tests open their own contexts)."""
    return _shared.get()


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """After the test's own teardown: stop the shared Chromium when the next test of this
    process does not use it (or none follows)."""
    if nextitem is None or "browser" not in getattr(nextitem, "fixturenames", ()):
        _shared.stop()


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
