"""Helpers of the tournament tests: a fixture that runs ``ginrummy`` with argv, and the
report without its wall-clock figures (what must not depend on timing or jobs)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from ginrummy.cli.main import main


@dataclass
class CliRun:
    """The outcome of one ``main(argv)`` call."""

    code: int
    out: str
    err: str


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., CliRun]:
    """``cli("tournament", "--players", ...)`` runs ``main`` and captures its output."""

    def run(*argv: str) -> CliRun:
        code = main(list(argv))
        captured = capsys.readouterr()
        return CliRun(code, captured.out, captured.err)

    return run


def deterministic(data: dict[str, Any]) -> dict[str, Any]:
    """A JSON report without ``timing`` and the settings of where it ran (jobs, backend)."""
    data = dict(data)
    del data["timing"]
    data["settings"] = {k: v for k, v in data["settings"].items() if k not in ("jobs", "backend")}
    return data
