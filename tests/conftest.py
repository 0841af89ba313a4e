"""Test configuration shared by the whole suite.

The rules tests import their helpers with ``from helpers import ...`` (this directory is on
``sys.path`` because it holds this conftest). Hypothesis runs without per-example deadlines:
one example is a whole hand or match, whose duration varies.
"""

from __future__ import annotations

import os

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
