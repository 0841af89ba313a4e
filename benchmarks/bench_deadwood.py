"""Speed of the least-deadwood solver against OpenSpiel's C++ one, called from Python.

    python benchmarks/bench_deadwood.py [--hands 20000] [--rounds 5] [--seed 1] [--clock cpu]
        [--json]
    python benchmarks/bench_deadwood.py --baseline /tmp/base/src [--rounds 15]

Each round deals fresh random 10-card hands and times, on the same hands and in alternating
order, ``ginrummy.solver.deadwood`` (a list of card ints, as OpenSpiel gets),
``ginrummy.solver.deadwood_mask`` (the bitmask hot path) and OpenSpiel's
``pyspiel.gin_rummy.GinRummyUtils(13, 4, 10).min_deadwood`` (a list of its card ints; its
suits run s c d h, ours s h d c). Every result is checked against OpenSpiel's. It also times
``knock_options`` on 11-card hands. Exit status 2 if open_spiel is not installed
(``--ours-only`` skips it).

``--baseline SRC`` compares this tree's solver with another's (``SRC``: the ``src`` folder of,
say, ``git worktree add /tmp/base <commit>``), both loaded in one process and timed on the same
hands, alternating every 500 hands, in CPU time; it prints each figure's medians and the median (and
range) of the rounds' ratios, this tree / baseline.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
import types
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ginrummy.solver import deadwood, deadwood_mask, knock_options

# our suit (s h d c) -> OpenSpiel suit (s c d h)
_OS_SUIT = (0, 3, 2, 1)


def to_openspiel(card: int) -> int:
    return _OS_SUIT[card // 13] * 13 + card % 13


def per_call(fn: Callable[[Any], object], args: Sequence[Any],
             clock: Callable[[], float] = time.perf_counter) -> float:
    """Seconds per call of ``fn`` over ``args``, loop included."""
    start = clock()
    for arg in args:
        fn(arg)
    return (clock() - start) / len(args)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20000, help="hands per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--ours-only", action="store_true",
                        help="time ginrummy alone (no OpenSpiel needed)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="wall-clock time (default) or this process's CPU time, steadier "
                             "on a shared, loaded machine")
    parser.add_argument("--baseline", metavar="SRC",
                        help="compare with the solver of another source tree's src folder")
    args = parser.parse_args(argv)
    if args.baseline:
        return compare(args.baseline, args.hands, args.rounds, args.seed, args.json)
    theirs_fn: Callable[[Any], object] | None = None
    if not args.ours_only:
        try:
            import pyspiel  # type: ignore[import-not-found, import-untyped, unused-ignore]
        except ImportError:
            print("open_spiel is not installed: pip install open_spiel (or the 'bench' extra) "
                  "to compare against its C++ solver, or pass --ours-only", file=sys.stderr)
            return 2
        theirs_fn = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10).min_deadwood
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    rng = random.Random(args.seed)
    ours_s: list[float] = []
    mask_s: list[float] = []
    theirs_s: list[float] = []
    knock_s: list[float] = []
    for round_no in range(args.rounds):
        hands = [rng.sample(range(52), 10) for _ in range(args.hands)]
        masks = [sum(1 << c for c in hand) for hand in hands]
        if theirs_fn is None:
            if round_no % 2:
                ours_s.append(per_call(deadwood, hands, clock))
                mask_s.append(per_call(deadwood_mask, masks, clock))
            else:
                mask_s.append(per_call(deadwood_mask, masks, clock))
                ours_s.append(per_call(deadwood, hands, clock))
        else:
            os_hands = [[to_openspiel(c) for c in hand] for hand in hands]
            for hand, os_hand in zip(hands[:2000], os_hands[:2000], strict=True):
                if deadwood(hand) != theirs_fn(os_hand):
                    print(f"disagreement on {hand}: ours {deadwood(hand)}, "
                          f"OpenSpiel {theirs_fn(os_hand)}", file=sys.stderr)
                    return 1
            if round_no % 2:
                theirs_s.append(per_call(theirs_fn, os_hands, clock))
                ours_s.append(per_call(deadwood, hands, clock))
                mask_s.append(per_call(deadwood_mask, masks, clock))
            else:
                mask_s.append(per_call(deadwood_mask, masks, clock))
                ours_s.append(per_call(deadwood, hands, clock))
                theirs_s.append(per_call(theirs_fn, os_hands, clock))
        eleven = [sum(1 << c for c in rng.sample(range(52), 11)) for _ in range(args.hands)]
        knock_s.append(per_call(knock_options, eleven, clock))
    ours = statistics.median(ours_s)
    mask = statistics.median(mask_s)
    knock = statistics.median(knock_s)
    result: dict[str, Any] = {
        "python": platform.python_version(),
        "hands_per_round": args.hands,
        "rounds": args.rounds,
        "clock": args.clock,
        "deadwood_us": round(ours * 1e6, 3),
        "deadwood_mask_us": round(mask * 1e6, 3),
        "knock_options_11_cards_us": round(knock * 1e6, 3),
    }
    if theirs_s:
        theirs = statistics.median(theirs_s)
        # each round's ratio (both sides timed on the same hands, back to back): the spread
        round_ratios = [a / b for a, b in zip(ours_s, theirs_s, strict=True)]
        result |= {
            "openspiel_min_deadwood_us": round(theirs * 1e6, 3),
            "ratio_deadwood_vs_openspiel": round(ours / theirs, 3),
            "ratio_deadwood_mask_vs_openspiel": round(mask / theirs, 3),
            "ratio_deadwood_vs_openspiel_rounds": [round(r, 3) for r in round_ratios],
        }
    if args.json:
        print(json.dumps(result))
        return 0
    if not theirs_s:
        print(f"{args.rounds} rounds x {args.hands} fresh random 10-card hands, "
              f"Python {result['python']}, medians per call:")
        print(f"  ginrummy deadwood(list)      {result['deadwood_us']:8.3f} us")
        print(f"  ginrummy deadwood_mask(int)  {result['deadwood_mask_us']:8.3f} us")
        print(f"  knock_options on random 11-card hands {knock * 1e6:.3f} us")
        return 0
    print(f"{args.rounds} rounds x {args.hands} fresh random 10-card hands, "
          f"Python {result['python']}, medians per call:")
    print(f"  ginrummy deadwood(list)      {result['deadwood_us']:8.3f} us")
    print(f"  ginrummy deadwood_mask(int)  {result['deadwood_mask_us']:8.3f} us")
    print(f"  OpenSpiel min_deadwood(list) {result['openspiel_min_deadwood_us']:8.3f} us")
    print(f"  ratio ours/OpenSpiel: deadwood {result['ratio_deadwood_vs_openspiel']:.3f}, "
          f"deadwood_mask {result['ratio_deadwood_mask_vs_openspiel']:.3f}")
    print(f"  knock_options on random 11-card hands {result['knock_options_11_cards_us']:.3f} us")
    return 0


_CHUNK = 500
"""Hands per timed stretch in ``--baseline`` mode: the two sides alternate every stretch, so
that both meet the same load on a shared machine."""


def load_solver(src: str) -> tuple[Any, Any]:
    """The ``melds`` and ``knock`` modules of another tree's solver, loaded beside this one's
    under private names (they import only ``ginrummy.cards`` and each other)."""
    folder = Path(src).resolve() / "ginrummy" / "solver"
    modules = []
    for name in ("melds", "knock"):
        text = (folder / f"{name}.py").read_text()
        text = text.replace("ginrummy.solver.melds", "_baseline_solver_melds")
        module = types.ModuleType(f"_baseline_solver_{name}")
        sys.modules[module.__name__] = module
        exec(compile(text, str(folder / f"{name}.py"), "exec"), module.__dict__)
        modules.append(module)
    return modules[0], modules[1]


def compare(baseline: str, hands: int, rounds: int, seed: int, as_json: bool) -> int:
    """Time this tree's solver and ``baseline``'s (a ``src`` folder) in one process, on the
    same hands, alternating which goes first; the median of the rounds' ratios."""
    base_melds, base_knock = load_solver(baseline)
    pairs: dict[str, tuple[Callable[[Any], object], Callable[[Any], object], bool]] = {
        "deadwood_us": (deadwood, base_melds.deadwood, False),
        "deadwood_mask_us": (deadwood_mask, base_melds.deadwood_mask, True),
        "knock_options_11_cards_us": (knock_options, base_knock.knock_options, True),
    }
    rng = random.Random(seed)
    cpu = time.process_time  # this process's CPU time: steadier than the wall clock under load
    times: dict[str, tuple[list[float], list[float]]] = {k: ([], []) for k in pairs}
    for round_no in range(rounds):
        ten = [rng.sample(range(52), 10) for _ in range(hands)]
        eleven = [sum(1 << c for c in rng.sample(range(52), 11)) for _ in range(hands)]
        for name, (this_fn, base_fn, as_mask) in pairs.items():
            args: Sequence[Any] = ten
            if name == "knock_options_11_cards_us":
                args = eleven
            elif as_mask:
                args = [sum(1 << c for c in hand) for hand in ten]
            if [repr(this_fn(a)) for a in args[:500]] != [repr(base_fn(a)) for a in args[:500]]:
                print(f"{name}: the two solvers disagree", file=sys.stderr)
                return 1
            this_t = base_t = 0.0
            for k, start in enumerate(range(0, len(args), _CHUNK)):
                chunk = args[start:start + _CHUNK]
                if (round_no + k) % 2:
                    base_t += per_call(base_fn, chunk, cpu) * len(chunk)
                    this_t += per_call(this_fn, chunk, cpu) * len(chunk)
                else:
                    this_t += per_call(this_fn, chunk, cpu) * len(chunk)
                    base_t += per_call(base_fn, chunk, cpu) * len(chunk)
            times[name][0].append(this_t / len(args))
            times[name][1].append(base_t / len(args))
    result: dict[str, Any] = {"rounds": rounds, "hands_per_round": hands,
                              "baseline": str(Path(baseline).resolve())}
    for name, (this_s, base_s) in times.items():
        ratios = [a / b for a, b in zip(this_s, base_s, strict=True)]
        result[name] = {"this": round(statistics.median(this_s) * 1e6, 3),
                        "baseline": round(statistics.median(base_s) * 1e6, 3),
                        "ratio": round(statistics.median(ratios), 3),
                        "ratio_range": [round(min(ratios), 3), round(max(ratios), 3)]}
    if as_json:
        print(json.dumps(result))
        return 0
    print(f"{rounds} alternating rounds x {hands} hands; this tree vs {result['baseline']}:")
    for name in times:
        row = result[name]
        print(f"  {name:28s} {row['this']:8.3f} vs {row['baseline']:8.3f} us: ratio "
              f"{row['ratio']:.3f} (rounds {row['ratio_range'][0]}-{row['ratio_range'][1]})")
    return 0

if __name__ == "__main__":
    sys.exit(main())
