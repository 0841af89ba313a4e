"""The advisor: the expert's ranked actions, with their estimated values, for one view.

``advise(view, legal)`` runs the expert's search (:mod:`ginrummy.bots.expert`) on the view of
the player to move and returns every candidate it evaluated: the action the expert would play
first, then the others by value. (The expert keeps its default, the ``intermediate``
player's choice, unless the search shows another candidate better by a clear margin and may
play it, see ``OVERRIDES``: so the second may have a higher mean value than the first.) A
value is the mean score of the hand, in points from that player's seat (match points won
minus lost; in the single-hand game, the others' mean penalty minus its own), over the
sampled worlds. Like a bot, the advisor sees only the view: it
cannot use hidden cards.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ginrummy.actions import Action
from ginrummy.bots.expert import DEFAULT_BUDGET_MS, ExpertBot
from ginrummy.views import PlayerView

__all__ = ["Advice", "advise"]


@dataclass(frozen=True)
class Advice:
    """One candidate action: its estimated value (points of the hand for the player to move),
    the number of sampled worlds behind it, and a short note (``deadwood 12``, ``knock``)."""

    action: Action
    value: float
    samples: int
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values (the action in record notation)."""
        return {"action": str(self.action), "value": round(self.value, 2),
                "samples": self.samples, "note": self.note}


def advise(view: PlayerView, legal: Sequence[Action], budget_ms: float = DEFAULT_BUDGET_MS,
           seed: int = 0, safety_stop: bool = True) -> list[Advice]:
    """The expert's candidates for ``view`` ranked best first: the first is what
    ``ExpertBot(seed, budget_ms, safety_stop)`` plays in this position. ``ValueError`` when
    it is not ``view.seat``'s turn or there is nothing to choose from."""
    if view.seat is None:
        raise ValueError("advice needs a player's view, not a spectator's")
    if view.to_move != view.seat:
        raise ValueError(f"seat {view.seat} is not to move (seat {view.to_move} is)")
    expert = ExpertBot(seed, budget_ms, safety_stop)
    expert.rank_all = True
    analysis = expert.analyse(view, legal)
    return [Advice(e.action, e.value, e.samples, e.note) for e in analysis.evaluations]
