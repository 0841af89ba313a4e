"""Any format to and from plain JSON, by its ``format`` field."""

from __future__ import annotations

from typing import Any

from ginrummy.contest.arena import ArenaSeries
from ginrummy.contest.common import ContestError
from ginrummy.contest.knockout import Knockout
from ginrummy.contest.swiss import Swiss

Contest = Knockout | Swiss | ArenaSeries
"""A tournament's state, whatever its format."""

_READERS: dict[str, Any] = {"knockout": Knockout.from_json, "swiss": Swiss.from_json,
                            "arena": ArenaSeries.from_json}

FORMATS = tuple(_READERS)
"""The format names: ``knockout``, ``swiss``, ``arena``."""


def to_json(contest: Contest) -> dict[str, Any]:
    """The state as plain JSON (``json.dumps`` takes it as it is)."""
    return contest.to_json()


def from_json(data: Any) -> Contest:
    """The state of :func:`to_json`, checked; :class:`ContestError` for anything else."""
    name = data.get("format") if isinstance(data, dict) else None
    if not isinstance(name, str) or name not in _READERS:
        raise ContestError(f"unknown tournament format {name!r}: one of {', '.join(FORMATS)}")
    contest: Contest = _READERS[name](data)
    return contest
