"""How strong is the coach's *best*? (issue 29, point 1; docs/coach.md, *What the measure is
worth*).

``PYTHONPATH=src python benchmarks/bench_coach_best.py [--player best|expert] [--budget-ms MS]
[--deals N] [--first S]`` plays ``--deals`` duplicate classic hands against
``intermediate``: each deal (seed ``S``, ``S+1``, ...) twice, the measured player in seat 0
then in seat 1 (seat 1 deals), and reports the measured player's mean points a hand (the
winner's points, counted against the loser) with its standard error over the deals.

- ``best``: a player that plays the coach's best at every decision
  (:func:`ginrummy.bots.evaluate.evaluate` at ``--budget-ms``, the deal's seed; the layoff
  the engine's best defence), i.e. a player the coach never calls wrong at that budget;
- ``expert``: :class:`ginrummy.bots.expert.ExpertBot` at ``--budget-ms`` (``safety_stop``
  off: reproducible).

Both are reproducible: the same arguments give the same figure on every machine.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from collections.abc import Sequence
from typing import Any

from ginrummy.actions import Action
from ginrummy.bots import make_bot
from ginrummy.bots.evaluate import evaluate
from ginrummy.bots.expert import ExpertBot
from ginrummy.engine import Hand, Phase, deal_order
from ginrummy.gameloop import play_hand, reshuffles_from
from ginrummy.rules import Ruleset
from ginrummy.views import PlayerView

MAX_DECISIONS = 400
"""A hand past this many decisions stops the run (never reached in practice)."""


class CoachBest:
    """Plays the coach's best (the evaluator's highest-valued choice) at every decision."""

    name = "coach-best"

    def __init__(self, seed: int, budget_ms: float) -> None:
        self.seed = seed
        self.budget_ms = budget_ms
        self._layoff = ExpertBot(seed, budget_ms, safety_stop=False)

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        """The evaluator's best; the engine's best defence at a layoff."""
        if view.phase is Phase.LAYOFF:
            return self._layoff.choose(view, legal)
        return evaluate(view, legal, self.budget_ms, self.seed).best.action


def duplicate(player: str, budget_ms: float, deals: int, first: int) -> dict[str, Any]:
    """The measured player's mean points a hand against ``intermediate`` over ``deals``
    duplicate deals, its standard error, and the CPU seconds taken."""
    rules = Ruleset.preset("classic")
    per_deal = []
    start = time.process_time()
    for deal in range(first, first + deals):
        total = 0
        for seat in (0, 1):
            measured = (CoachBest(deal, budget_ms) if player == "best"
                        else ExpertBot(deal, budget_ms, safety_stop=False))
            opponent = make_bot("intermediate", deal + 7)
            seats = [measured, opponent] if seat == 0 else [opponent, measured]
            hand = Hand(rules, 1, deal_order(rng=random.Random(deal)))
            play_hand(hand, seats, reshuffles_from(random.Random(deal + 1)), None,
                      MAX_DECISIONS)
            result = hand.result
            if result is not None and result.winner is not None:
                points = result.points[result.winner]
                total += points if result.winner == seat else -points
        per_deal.append(total / 2)
    mean = sum(per_deal) / len(per_deal)
    spread = sum((x - mean) ** 2 for x in per_deal) / max(1, len(per_deal) - 1)
    return {"points_per_hand": round(mean, 2),
            "error": round(math.sqrt(spread / len(per_deal)), 2),
            "cpu_s": round(time.process_time() - start, 1),
            "per_deal": per_deal}


def main() -> None:
    """Parse the options, measure, print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--player", choices=("best", "expert"), default="best")
    parser.add_argument("--budget-ms", type=float, default=100.0)
    parser.add_argument("--deals", type=int, default=160)
    parser.add_argument("--first", type=int, default=1000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    figures = duplicate(args.player, args.budget_ms, args.deals, args.first)
    if args.json:
        print(json.dumps({**vars(args), **figures}))
        return
    print(f"{args.player} at {args.budget_ms:g} ms against intermediate, {args.deals} duplicate "
          f"classic deals from seed {args.first}: {figures['points_per_hand']:+.2f} "
          f"± {figures['error']:.2f} points a hand ({figures['cpu_s']} s CPU)")


if __name__ == "__main__":
    main()
