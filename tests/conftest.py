"""Test configuration shared by the whole suite.

The rules tests import their helpers with ``from helpers import ...`` (this directory is on
``sys.path`` because it holds this conftest). Hypothesis runs without per-example deadlines:
one example is a whole hand or match, whose duration varies.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ginrummy",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("ginrummy")
