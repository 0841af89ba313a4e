"""The bot protocol: a bot sees only a player's view and the legal actions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from ginrummy.actions import Action
from ginrummy.views import PlayerView


@runtime_checkable
class Bot(Protocol):
    """A computer player. ``choose`` must return one of ``legal`` (or another legal action,
    e.g. a knock with a different arrangement or a different layoff)."""

    name: str

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        """Pick an action for ``view.seat``."""
        ...
