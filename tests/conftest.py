"""Test configuration shared by the whole suite.

The rules tests import their helpers with ``from helpers import ...`` (this directory is on
``sys.path`` because it holds this conftest). Hypothesis runs without per-example deadlines:
one example is a whole hand or match, whose duration varies.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ginrummy",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("ginrummy")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """On CI (``CI=true``) a skipped test fails the run: nothing is skipped silently there
    (a test skips only when a service or browser it needs is missing, which CI provides)."""
    if os.environ.get("CI", "").lower() not in ("1", "true", "yes"):
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None or not hasattr(reporter, "stats"):
        return  # an xdist worker: the controller decides
    skipped = reporter.stats.get("skipped", [])
    if skipped and session.exitstatus == 0:
        for report in skipped:
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
            reporter.write_line(f"CI: skipped test not allowed: {report.nodeid}: {reason}")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED



# The browser test modules (tests/web/), longest first, by their serial seconds measured one
# file at a time on the busy 2-core test machine (`pytest tests/web/<module>.py --durations=0`,
# 2026-12-01, after the web tests' speed-ups): players 310, layout 129, browser 110, a11y 100,
# actions 51, notify 48, motion 48, layoffs 42, i18n 41, motion_together 40, variant 36,
# lobby 33, fair 32, chat_history 32, coach 28, clock_reload 25, loading 8. Placed by their
# share of the suite's run on 2026-12-06: small (28 tests), screen, hand and fair_checks;
# tutorial (issue 27.8, 11 tests) measured at 25 s on 2026-12-06.
# A module missing from this list runs after the listed ones, before the rest of the suite.
WEB_MODULES_LONGEST_FIRST = (
    "test_web_players", "test_web_layout", "test_web_small", "test_web_browser",
    "test_web_screen", "test_web_a11y", "test_web_hand", "test_web_fair_checks",
    "test_web_actions", "test_web_notify", "test_web_motion", "test_web_layoffs",
    "test_web_i18n", "test_web_motion_together", "test_web_variant", "test_web_lobby",
    "test_web_fair", "test_web_chat_history", "test_web_deltas", "test_web_coach",
    "test_web_tutorial", "test_web_clock_reload", "test_web_loading",
)
WEB_DIR = Path(__file__).parent / "web"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The browser test modules run first, longest first (each module still one block)."""
    rank = {name: index for index, name in enumerate(WEB_MODULES_LONGEST_FIRST)}
    web = [item for item in items if item.path.parent == WEB_DIR]
    rest = [item for item in items if item.path.parent != WEB_DIR]
    web.sort(key=lambda item: (rank.get(item.path.stem, len(rank)), str(item.path)))  # stable
    items[:] = web + rest


NUMBA_MODULES = frozenset({"tests/env/test_env_fast_vector.py", "tests/env/test_env_train.py"})
"""The modules that run the compiled vector env: one block on one worker, so that numba
compiles its core once in the run (about 8 s of CPU a process on a clean clone), not on
every worker."""


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadgroup`` (scripts/test): each browser module whole on one worker, the compiled
    vector env's modules together on one worker (:data:`NUMBA_MODULES`), every other test on
    its own, in the collection's order (the long browser modules first).

    A browser module on one worker sets up its server once, not on both workers; starting the
    long modules first lets the short tests of the rest of the suite fill in at the end instead
    of one long module ending last on one worker. (xdist's own loadgroup reads ``xdist_group``
    marks through node ids, which pytest 9 no longer lets it rename: the grouping is done here.)
    """
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling  # type: ignore[import-untyped]

    class BrowserModuleScheduling(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            if path in NUMBA_MODULES:
                return "numba"
            return path if path.startswith("tests/web/") else nodeid

    config.option.loadscopereorder = False  # keep the collection's order
    return BrowserModuleScheduling(config, log)
