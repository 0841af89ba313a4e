"""Every step of the bots' ladder, in every preset, measured with the tournament harness.

Run: ``.venv/bin/python benchmarks/ladder.py [--hands N] [--expert-hands N] [--matches N]
[--seed S] [--jobs K] [--steps a>b,...] [--presets name,...] [--json]``

A step ``upper>lower`` is *shown* in a preset when the upper level's 95% interval is above
even: for ``eaai`` the match win rate over duplicate matches (the issue's yardstick), for the
other presets the net points per hand over duplicate hands; in the 3-4 player arena the upper
level plays against two or three copies of the lower one. The table says, per step and
preset, the figure, its interval and the verdict: ``shown``, ``level`` (the interval
contains even) or ``reversed``. The expert's step gets more hands: its edge in classic and
arena is about half a point a hand. Long: about 40 minutes on 2 cores with the defaults, so
it is not part of the test run (docs/benchmarks.md, "Strength of the computer players").
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from typing import Any

from ginrummy.rules import Ruleset
from ginrummy.tournament import TournamentConfig, Unit, run_tournament

STEPS = ("simple>random", "beginner>simple", "intermediate>beginner",
         "intermediate>simple", "expert>intermediate")
"""The ladder's steps, weakest first; ``intermediate>simple`` too, since ``simple`` and
``beginner`` come out level."""


@dataclass(frozen=True)
class Table:
    """One preset variant: how to build its rules and how many seats the step uses."""

    name: str
    preset: str
    overrides: tuple[tuple[str, Any], ...] = ()
    players: int = 2

    def rules(self) -> Ruleset:
        """The rules of this variant."""
        options = dict(self.overrides)
        if self.players != 2:
            options["players"] = self.players
        return Ruleset.preset(self.preset, **options)

    @property
    def by_matches(self) -> bool:
        """Whether the step is judged on whole matches (``eaai``, the issue's yardstick)."""
        return self.preset == "eaai"


TABLES = (
    Table("eaai", "eaai"),
    Table("classic", "classic"),
    Table("playok", "playok"),
    Table("playok+oklahoma", "playok", (("oklahoma_knock_limit", True),)),
    Table("arena", "arena"),
    Table("arena3", "arena", players=3),
    Table("arena4", "arena", players=4),
)


def measure(step: str, table: Table, deals: int, seed: int, jobs: int) -> dict[str, Any]:
    """Play one step at one table; the upper level's figure, interval and verdict."""
    upper, lower = step.split(">")
    players = (upper, *[lower] * (table.players - 1))
    config = TournamentConfig(players, table.rules(), deals, seed, jobs=jobs,
                              unit=Unit.MATCH if table.by_matches else Unit.HAND)
    start = time.perf_counter()
    result = run_tournament(config)
    stats = result.player_stats()[0]
    if table.by_matches:
        measure_name, value, (low, high), even = ("match win rate", stats.win_rate,
                                                  stats.win_rate_ci, 0.5)
    else:
        measure_name, value, (low, high), even = ("points per hand", stats.points_per_hand,
                                                  stats.points_per_hand_ci, 0.0)
    if low is not None and low > even:
        verdict = "shown"
    elif high is not None and high < even:
        verdict = "reversed"
    else:
        verdict = "level"
    return {"step": step, "table": table.name, "players": list(players), "deals": deals,
            "games": len(result.games), "measure": measure_name, "value": value,
            "interval": [low, high], "verdict": verdict,
            "seconds": round(time.perf_counter() - start, 1)}


def _format(row: dict[str, Any]) -> str:
    low, high = row["interval"]
    if row["measure"] == "match win rate":
        figure = f"{row['value']:.1%} [{low:.1%}, {high:.1%}] of matches"
    else:
        figure = f"{row['value']:+.2f} [{low:+.2f}, {high:+.2f}] pts/hand"
    return (f"{row['step']:<22} {row['table']:<16} {figure:<36} {row['verdict']:<9}"
            f" {row['deals']} deals, {row['seconds']} s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=4000,
                        help="duplicate hands (or 3-4 player deals) per step without the "
                             "expert (default 4000)")
    parser.add_argument("--expert-hands", type=int, default=3000,
                        help="the same for the expert's step (default 3000)")
    parser.add_argument("--matches", type=int, default=300,
                        help="duplicate matches per step under eaai (default 300)")
    parser.add_argument("--seed", type=int, default=61)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--steps", default=",".join(STEPS),
                        help=f"comma-separated steps (default: {','.join(STEPS)})")
    parser.add_argument("--presets", default=",".join(t.name for t in TABLES),
                        help="comma-separated tables (default: all)")
    parser.add_argument("--json", action="store_true", help="one JSON object at the end")
    args = parser.parse_args(argv)
    steps = [s.strip() for s in args.steps.split(",") if s.strip()]
    names = {t.name: t for t in TABLES}
    try:
        tables = [names[n.strip()] for n in args.presets.split(",") if n.strip()]
    except KeyError as error:
        parser.error(f"unknown table {error.args[0]!r}; known: {', '.join(names)}")
    for step in steps:
        if step.count(">") != 1:
            parser.error(f"a step is upper>lower, got {step!r}")
    for count in (args.hands, args.expert_hands, args.matches):
        if count < 2:
            parser.error("every count must be at least 2 (an interval needs two deals)")
    rows = []
    for step in steps:
        for table in tables:
            deals = (args.matches if table.by_matches
                     else args.expert_hands if step.startswith("expert") else args.hands)
            try:
                row = measure(step, table, deals, args.seed, args.jobs)
            except ValueError as error:
                parser.error(str(error))
            rows.append(row)
            if not args.json:
                print(_format(row), flush=True)
    if args.json:
        json.dump({"seed": args.seed, "rows": rows}, sys.stdout, indent=1)
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
