"""Every computer level against every other: the cross-table of docs/bots.md (issue 29).

Run: ``.venv/bin/python benchmarks/crosstable.py [--matches N] [--seed S] [--jobs K]
[--levels a,b,...] [--preset P] [--json]``

Each pair of levels plays ``--matches`` duplicate deals of ``--preset`` (default ``eaai``,
whole matches; each deal played once per seat, so twice as many matches) with the tournament
harness (:func:`ginrummy.tournament.run_tournament`, the same one as ``ginrummy tournament``),
every pair on the same seed. The table gives, for the row's level against the column's, the
share of matches won with its 95% interval over the deals, and the net points per hand. The
lower-left half mirrors the upper-right (a pair is played once). Long: the expert's pairs
take most of the time (20 ms a move), so it is not part of the test run.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from itertools import combinations
from typing import Any

from ginrummy.rules import PRESETS, Ruleset
from ginrummy.tournament import TournamentConfig, Unit, run_tournament

LEVELS = ("random", "simple", "beginner", "intermediate", "expert")
"""The ladder, weakest first (docs/bots.md)."""


def play_pair(first: str, second: str, preset: str, deals: int, seed: int,
              jobs: int) -> dict[str, Any]:
    """``first`` against ``second``: ``first``'s match win rate and net points per hand,
    each with its 95% interval, and the seconds the pair took."""
    config = TournamentConfig((first, second), Ruleset.preset(preset), deals, seed,
                              jobs=jobs, unit=Unit.MATCH)
    start = time.perf_counter()
    stats = run_tournament(config).player_stats()[0]
    return {"row": first, "column": second, "deals": deals, "games": stats.games,
            "win_rate": stats.win_rate, "win_rate_ci": list(stats.win_rate_ci),
            "points_per_hand": stats.points_per_hand,
            "points_per_hand_ci": list(stats.points_per_hand_ci),
            "seconds": round(time.perf_counter() - start, 1)}


def mirrored(pair: dict[str, Any]) -> dict[str, Any]:
    """The same pair seen from its column's level (a two-player duplicate game: the other
    player's share and points are one less and the opposite)."""
    low, high = pair["win_rate_ci"]
    plow, phigh = pair["points_per_hand_ci"]
    return {**pair, "row": pair["column"], "column": pair["row"],
            "win_rate": 1 - pair["win_rate"], "win_rate_ci": [1 - high, 1 - low],
            "points_per_hand": -pair["points_per_hand"],
            "points_per_hand_ci": [-phigh, -plow]}


def markdown(levels: list[str], pairs: list[dict[str, Any]]) -> str:
    """The cross-table: a row per level, a column per opponent."""
    cells = {(p["row"], p["column"]): p for p in pairs}
    cells.update({(m["row"], m["column"]): m for m in map(mirrored, pairs)})
    lines = ["| row against column | " + " | ".join(levels) + " |",
             "|---|" + "---|" * len(levels)]
    for row in levels:
        out = []
        for column in levels:
            cell = cells.get((row, column))
            if cell is None:
                out.append("")
                continue
            low, high = cell["win_rate_ci"]
            out.append(f"{cell['win_rate']:.1%} [{low:.1%}, {high:.1%}], "
                       f"{cell['points_per_hand']:+.2f}")
        lines.append(f"| **{row}** | " + " | ".join(out) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=200,
                        help="duplicate deals per pair (twice as many matches; default 200)")
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--levels", default=",".join(LEVELS),
                        help=f"comma-separated levels, weakest first (default: {','.join(LEVELS)})")
    parser.add_argument("--preset", default="eaai", choices=sorted(PRESETS))
    parser.add_argument("--json", action="store_true", help="one JSON object at the end")
    args = parser.parse_args(argv)
    levels = [name.strip() for name in args.levels.split(",") if name.strip()]
    if len(levels) < 2 or len(set(levels)) != len(levels):
        parser.error("--levels needs at least two different levels")
    if args.matches < 2:
        parser.error("--matches must be at least 2 (an interval needs two deals)")
    pairs = []
    for weaker, stronger in combinations(levels, 2):
        try:
            pair = play_pair(stronger, weaker, args.preset, args.matches, args.seed, args.jobs)
        except ValueError as error:
            parser.error(str(error))
        pairs.append(pair)
        if not args.json:
            low, high = pair["win_rate_ci"]
            print(f"{stronger} against {weaker}: {pair['win_rate']:.1%} [{low:.1%}, "
                  f"{high:.1%}] of {pair['games']} matches, {pair['points_per_hand']:+.2f} "
                  f"points a hand ({pair['seconds']} s)", flush=True)
    if args.json:
        json.dump({"preset": args.preset, "seed": args.seed, "matches": args.matches,
                   "levels": levels, "pairs": pairs}, sys.stdout, indent=1)
        print()
    else:
        print()
        print(markdown(levels, pairs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
