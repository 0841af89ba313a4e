"""Speed of the per-seat views, this tree against another (the same games, alternating rounds).

    python benchmarks/bench_views.py --old-src /tmp/base_views/src [--rounds 9] [--json]
    python benchmarks/bench_views.py --old-src /tmp/base_views/src --simulate [--hands 300]

``--old-src`` is the ``src`` folder of another tree (``git worktree add /tmp/base_views
<commit>``). Each round runs one worker process per tree, in alternating order (the machine's
speed drifts), each worker importing its tree's ``ginrummy`` (``PYTHONPATH``). A worker plays
whole games with the simple bot (a classic match to 100 with two seats, arena hands with
three and four) and, at every decision, times:

* ``view``: ``view(match, seat)`` for every seat, ``--repeat`` times (what bots ask for at
  every decision);
* ``view_dict``: ``ViewCache.view_dict(match, seat, version)`` for every seat and a
  spectator, once per version (what the server builds after every action).

Every view JSON a worker builds is also hashed: both trees must produce the same bytes (the
run stops otherwise). It prints each figure's median per tree and the median (and range) of
the rounds' ratios, old time / new time (above 1: this tree is faster).

``--simulate`` instead times ``ginrummy simulate --preset eaai --json`` (the engine loop of
``benchmarks/bench_game.py``, ginrummy side) with random and simple players, in hands per
second (ratio: new / old).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
GAMES = (("classic", 2), ("arena", 3), ("arena", 4))


def worker(games: int, seed: int, repeat: int) -> dict[str, Any]:
    """Play the games and time the views (run in a process importing one tree)."""
    import random

    from ginrummy.bots import make_bot
    from ginrummy.engine import CHANCE
    from ginrummy.match import Match
    from ginrummy.rules import Ruleset
    from ginrummy.server.viewcache import ViewCache
    from ginrummy.views import view

    perf = time.perf_counter
    view_time = dict_time = 0.0
    view_calls = dict_calls = 0
    digest = hashlib.sha256()
    for g in range(games):
        for preset, players in GAMES:
            rules = Ruleset.preset(preset, players=players)
            game_seed = seed + 1000 * g + players
            match = Match(rules, seed=game_seed, pool_cents=100 if players > 2 else None)
            rng = random.Random(game_seed)
            bots = [make_bot("simple", game_seed + s) for s in range(players)]
            cache = ViewCache()
            version = 0
            seats: list[int | None] = [*range(players), None]
            while not match.over:
                if match.needs_deal:
                    match.start_hand()
                hand = match.hand
                version += 1
                start = perf()
                for _ in range(repeat):
                    for seat in range(players):
                        view(match, seat)
                view_time += perf() - start
                view_calls += repeat * players
                start = perf()
                dicts = [cache.view_dict(match, seat, version) for seat in seats]
                dict_time += perf() - start
                dict_calls += len(seats)
                for viewer, data in zip(seats, dicts, strict=True):
                    text = json.dumps(data)
                    if text != json.dumps(view(match, viewer).to_dict()):
                        raise AssertionError(f"ViewCache differs from view() for {viewer}")
                    digest.update(text.encode())
                if hand.over:
                    continue
                if hand.to_move == CHANCE:
                    match.apply(hand.reshuffle_order(rng))
                    continue
                mover = hand.to_move
                match.apply(bots[mover].choose(view(match, mover), hand.legal_actions()))
    return {"view_us": 1e6 * view_time / view_calls, "view_dict_us": 1e6 * dict_time / dict_calls,
            "view_calls": view_calls, "view_dict_calls": dict_calls,
            "digest": digest.hexdigest()}


def run(src: Path, args: list[str]) -> str:
    """Run this script (or a module) with ``src`` first on the path; its standard output."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    return subprocess.run([sys.executable, *args], check=True, capture_output=True, text=True,
                          env=env, cwd=ROOT).stdout


def simulate_rate(src: Path, players: str, hands: int, seed: int) -> float:
    """Hands per second reported by ``ginrummy simulate --json`` run from ``src``."""
    out = run(src, ["-m", "ginrummy.cli.main", "simulate", "--players", f"{players},{players}",
                    "--hands", str(hands), "--seed", str(seed), "--preset", "eaai", "--json"])
    data = json.loads(out)
    return float(data["hands"]) / float(data["seconds"])


def summary(old: list[float], new: list[float], ratios: list[float]) -> dict[str, float]:
    """Medians and the ratio's median and range."""
    return {"old": round(statistics.median(old), 3), "new": round(statistics.median(new), 3),
            "ratio": round(statistics.median(ratios), 3), "ratio_min": round(min(ratios), 3),
            "ratio_max": round(max(ratios), 3)}


def main(argv: list[str] | None = None) -> int:
    """Alternate the two trees' workers and print the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old-src", type=Path, default=Path("/tmp/base_views/src"))
    parser.add_argument("--new-src", type=Path, default=ROOT / "src")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--games", type=int, default=2, help="games of each kind per round")
    parser.add_argument("--repeat", type=int, default=5, help="view() calls per seat and state")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--simulate", action="store_true",
                        help="time `ginrummy simulate` (random and simple players) instead")
    parser.add_argument("--hands", type=int, default=300, help="hands per simulate run")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.games, args.seed, args.repeat)))
        return 0
    trees = {"old": args.old_src.resolve(), "new": args.new_src.resolve()}
    report: dict[str, Any] = {"old_src": str(trees["old"]), "new_src": str(trees["new"]),
                              "rounds": args.rounds}
    if args.simulate:
        for players in ("random", "simple"):
            rates: dict[str, list[float]] = {"old": [], "new": []}
            for r in range(args.rounds):
                for name in ("old", "new") if r % 2 == 0 else ("new", "old"):
                    rates[name].append(simulate_rate(trees[name], players, args.hands,
                                                     args.seed + r))
            ratios = [n / o for o, n in zip(rates["old"], rates["new"], strict=True)]
            report[f"simulate_{players}_hands_per_second"] = summary(
                rates["old"], rates["new"], ratios)
    else:
        times: dict[str, dict[str, list[float]]] = {
            "view_us": {"old": [], "new": []}, "view_dict_us": {"old": [], "new": []}}
        digests: set[str] = set()
        script = [str(Path(__file__).resolve()), "--worker", "--games", str(args.games),
                  "--seed", str(args.seed), "--repeat", str(args.repeat)]
        for r in range(args.rounds):
            for name in ("old", "new") if r % 2 == 0 else ("new", "old"):
                result = json.loads(run(trees[name], script))
                digests.add(result["digest"])
                for key, series in times.items():
                    series[name].append(result[key])
                report["calls_per_round"] = {"view": result["view_calls"],
                                             "view_dict": result["view_dict_calls"]}
        if len(digests) != 1:
            print("the two trees' view JSON differ", file=sys.stderr)
            return 1
        report["same_json"] = True
        for key, series in times.items():
            ratios = [o / n for o, n in zip(series["old"], series["new"], strict=True)]
            report[key] = summary(series["old"], series["new"], ratios)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        for key, row in report.items():
            print(f"{key}: {row}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
