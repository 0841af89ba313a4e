"""Complete hands per second: ``ginrummy simulate`` against OpenSpiel's C++ game loop.

Run: ``.venv/bin/python benchmarks/bench_game.py [--hands N] [--rounds R] [--json]``
(needs ``pip install open_spiel``; ``scripts/bench`` installs it).

Two workloads, each measured in alternating rounds in the same run, reported as a ratio
(ours / OpenSpiel, higher is faster for us):

* ``random``: uniform random players on both sides (``ginrummy simulate --players
  random,random``) against ``pyspiel.evaluate_bots`` with two ``make_uniform_random_bot``;
* ``simple``: the simple baseline on both sides against two
  ``make_simple_gin_rummy_bot``.

Both play the ``eaai`` rules (OpenSpiel's gin_rummy defaults: knock 10, gin 25, undercut 25,
first-turn upcard offer). Our figure is the engine time ``simulate --json`` reports
(``seconds``, without interpreter start-up); OpenSpiel's is the time around its loop.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from statistics import median

ROOT = Path(__file__).resolve().parent.parent


def openspiel_hands_per_second(kind: str, hands: int, seed: int) -> float:
    """Hands per second of OpenSpiel's C++ loop with two bots of ``kind``."""
    import pyspiel

    game = pyspiel.load_game("gin_rummy")
    if kind == "random":
        bots = [pyspiel.make_uniform_random_bot(p, seed + p) for p in range(2)]
    else:
        bots = [pyspiel.make_simple_gin_rummy_bot(game.get_parameters(), p) for p in range(2)]
    start = time.perf_counter()
    for i in range(hands):
        pyspiel.evaluate_bots(game.new_initial_state(), bots, seed + i)
    return hands / (time.perf_counter() - start)


def ours_hands_per_second(kind: str, hands: int, seed: int) -> tuple[float, dict[str, object]]:
    """Hands per second reported by ``ginrummy simulate --json``."""
    cmd = [sys.executable, "-m", "ginrummy.cli.main", "simulate", "--players", f"{kind},{kind}",
           "--hands", str(hands), "--seed", str(seed), "--preset", "eaai", "--json"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=ROOT).stdout
    data = json.loads(out)
    return float(data["hands"]) / float(data["seconds"]), data


def main(argv: list[str] | None = None) -> int:
    """Measure and print the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=500, help="hands per round and side")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        print("open_spiel is not installed: pip install open_spiel", file=sys.stderr)
        return 2
    report: dict[str, dict[str, object]] = {}
    for kind in ("random", "simple"):
        ours: list[float] = []
        theirs: list[float] = []
        ratios: list[float] = []
        outcomes: dict[str, object] = {}
        for r in range(args.rounds):
            # the machine's speed drifts: each round times both back to back, in turn order
            seed = args.seed + 1000 * r
            if r % 2:
                rate, data = ours_hands_per_second(kind, args.hands, seed)
                peer = openspiel_hands_per_second(kind, args.hands, seed)
            else:
                peer = openspiel_hands_per_second(kind, args.hands, seed)
                rate, data = ours_hands_per_second(kind, args.hands, seed)
            ours.append(rate)
            theirs.append(peer)
            ratios.append(rate / peer)
            outcomes = dict(data.get("outcomes", {}))  # type: ignore[call-overload]
        report[kind] = {
            "ginrummy_hands_per_second": round(median(ours), 1),
            "openspiel_hands_per_second": round(median(theirs), 1),
            "ratio": round(median(ratios), 2),
            "ratio_min": round(min(ratios), 2),
            "ratio_max": round(max(ratios), 2),
            "rounds": args.rounds,
            "hands_per_round": args.hands,
            "ginrummy_outcomes_last_round": outcomes,
        }
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        for kind, row in report.items():
            print(f"{kind:7s} ginrummy {row['ginrummy_hands_per_second']:>9} hands/s   "
                  f"OpenSpiel {row['openspiel_hands_per_second']:>9} hands/s   "
                  f"ratio {row['ratio']}x (rounds {row['ratio_min']}-{row['ratio_max']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
