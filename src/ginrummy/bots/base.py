"""The bot protocol: a bot sees only a player's view and the legal actions.

Contract of every bot:

- ``choose`` receives a :class:`~ginrummy.views.PlayerView` (never the hidden state) and
  the legal actions, and returns a legal action (one of ``legal``, or another legal action
  such as a knock with a different arrangement or a different layoff);
- it is deterministic given the seed it was made with and the sequence of views it saw;
- a bot that searches honours ``budget_ms``, its per-move time budget in milliseconds
  (``None``: its default), and returns within it plus a small overrun.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from ginrummy.actions import Action
from ginrummy.views import PlayerView


@runtime_checkable
class Bot(Protocol):
    """A computer player (see the module docstring for the contract)."""

    name: str

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        """Pick an action for ``view.seat``."""
        ...
