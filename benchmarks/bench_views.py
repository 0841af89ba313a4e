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

``--isolate COMMIT`` measures this change alone: both trees are copies of ``--new-src`` made
at the start, the old one with ``views.py`` and ``server/play/viewcache.py`` as of ``COMMIT`` (the
other modules may have changed since ``--old-src``'s commit too).

``--simulate`` instead times ``ginrummy simulate --preset eaai --json`` (the engine loop of
``benchmarks/bench_game.py``, ginrummy side) with random and simple players, in hands per
second (ratio: new / old).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
GAMES = (("classic", 2), ("arena", 3), ("arena", 4))


def worker(games: int, seed: int, repeat: int) -> dict[str, Any]:
    """Play the games, then time the views on replays of them (run in a process importing
    one tree). Each state's time is the median of ``repeat`` timings, which keeps the other
    processes' bursts out of the figure."""
    import random

    from ginrummy.actions import Action
    from ginrummy.bots import make_bot
    from ginrummy.engine import CHANCE
    from ginrummy.match import Match
    from ginrummy.rules import Ruleset
    from ginrummy.server.play.viewcache import ViewCache
    from ginrummy.views import view

    perf = time.perf_counter
    median = statistics.median
    view_time = dict_time = 0.0
    view_calls = dict_calls = 0
    digest = hashlib.sha256()
    for g in range(games):
        for preset, players in GAMES:
            rules = Ruleset.preset(preset, players=players)
            game_seed = seed + 1000 * g + players
            pool = 100 if players > 2 else None
            # the game, as the list of its steps (None: deal the next hand)
            match = Match(rules, seed=game_seed, pool_cents=pool)
            rng = random.Random(game_seed)
            bots = [make_bot("simple", game_seed + s) for s in range(players)]
            steps: list[Any] = []
            while not match.over:
                if match.needs_deal:
                    match.start_hand()
                    steps.append(None)
                    continue
                hand = match.hand
                step: Action
                if hand.to_move == CHANCE:
                    step = hand.reshuffle_order(rng)
                else:
                    step = bots[hand.to_move].choose(view(match, hand.to_move),
                                                     hand.legal_actions())
                match.apply(step)
                steps.append(step)
            seats: list[int | None] = [*range(players), None]
            # view(): every seat at every state, the median of `repeat` timings
            match = Match(rules, seed=game_seed, pool_cents=pool)
            for step in steps:
                match.start_hand() if step is None else match.apply(step)
                times = []
                for _ in range(repeat):
                    start = perf()
                    for seat in range(players):
                        view(match, seat)
                    times.append(perf() - start)
                view_time += median(times)
                view_calls += players
            # ViewCache.view_dict: every seat and a spectator once per version, on `repeat`
            # replays with a fresh cache each; a version's time is the median of its replays
            per_version = [[0.0] * len(steps) for _ in range(repeat)]
            for r in range(repeat):
                match = Match(rules, seed=game_seed, pool_cents=pool)
                cache = ViewCache()
                for version, step in enumerate(steps, 1):
                    match.start_hand() if step is None else match.apply(step)
                    start = perf()
                    dicts = [cache.view_dict(match, seat, version) for seat in seats]
                    per_version[r][version - 1] = perf() - start
                    if r == 0:
                        for viewer, data in zip(seats, dicts, strict=True):
                            text = json.dumps(data)
                            if text != json.dumps(view(match, viewer).to_dict()):
                                raise AssertionError(f"ViewCache differs from view() for {viewer}")
                            digest.update(text.encode())
            dict_time += sum(median(column) for column in zip(*per_version, strict=True))
            dict_calls += len(seats) * len(steps)
    return {"view_us": 1e6 * view_time / view_calls, "view_dict_us": 1e6 * dict_time / dict_calls,
            "view_calls": view_calls, "view_dict_calls": dict_calls,
            "digest": digest.hexdigest()}


def run(src: Path, args: list[str]) -> str:
    """Run this script (or a module) with ``src`` first on the path; its standard output."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    return subprocess.run([sys.executable, *args], check=True, capture_output=True, text=True,
                          env=env, cwd=ROOT).stdout


VIEW_FILES = ("ginrummy/views.py", "ginrummy/server/play/viewcache.py")


def isolated_trees(new_src: Path, commit: str, into: Path) -> dict[str, Path]:
    """Two copies of ``new_src``, the old one with :data:`VIEW_FILES` as of ``commit``."""
    trees = {name: into / name / "src" for name in ("old", "new")}
    for tree in trees.values():
        shutil.copytree(new_src, tree, ignore=shutil.ignore_patterns("__pycache__"))
    for name in VIEW_FILES:
        text = subprocess.run(["git", "show", f"{commit}:src/{name}"], check=True, cwd=ROOT,
                              capture_output=True, text=True).stdout
        (trees["old"] / name).write_text(text)
    return trees


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
    parser.add_argument("--isolate", metavar="COMMIT",
                        help="compare copies of --new-src, the old with the view files of COMMIT")
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
    with tempfile.TemporaryDirectory() as tmp:
        if args.isolate:
            trees = isolated_trees(args.new_src.resolve(), args.isolate, Path(tmp))
        else:
            trees = {"old": args.old_src.resolve(), "new": args.new_src.resolve()}
        report = measure(args, trees)
        if report is None:
            print("the two trees' view JSON differ", file=sys.stderr)
            return 1
    if args.isolate:
        report["isolate"] = f"{args.new_src} with the view files of {args.isolate}"
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        for key, row in report.items():
            print(f"{key}: {row}")
    return 0


def measure(args: argparse.Namespace, trees: dict[str, Path]) -> dict[str, Any] | None:
    """The report of the rounds (``None`` if the trees' JSON differ)."""
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
            return None
        report["same_json"] = True
        for key, series in times.items():
            ratios = [o / n for o, n in zip(series["old"], series["new"], strict=True)]
            report[key] = summary(series["old"], series["new"], ratios)
    return report


if __name__ == "__main__":
    raise SystemExit(main())
