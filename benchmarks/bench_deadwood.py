"""Speed of the least-deadwood solver against OpenSpiel's C++ one, called from Python.

    python benchmarks/bench_deadwood.py [--hands 20000] [--rounds 5] [--seed 1] [--json]

Each round deals fresh random 10-card hands and times, on the same hands and in alternating
order, ``ginrummy.solver.deadwood`` (a list of card ints, as OpenSpiel gets),
``ginrummy.solver.deadwood_mask`` (the bitmask hot path) and OpenSpiel's
``pyspiel.gin_rummy.GinRummyUtils(13, 4, 10).min_deadwood`` (a list of its card ints; its
suits run s c d h, ours s h d c). Every result is checked against OpenSpiel's. It also times
``knock_options`` on 11-card hands. Exit status 2 if open_spiel is not installed.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from ginrummy.solver import deadwood, deadwood_mask, knock_options

# our suit (s h d c) -> OpenSpiel suit (s c d h)
_OS_SUIT = (0, 3, 2, 1)


def to_openspiel(card: int) -> int:
    return _OS_SUIT[card // 13] * 13 + card % 13


def per_call(fn: Callable[[Any], object], args: Sequence[Any]) -> float:
    """Seconds per call of ``fn`` over ``args``, loop included."""
    start = time.perf_counter()
    for arg in args:
        fn(arg)
    return (time.perf_counter() - start) / len(args)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20000, help="hands per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    try:
        import pyspiel  # type: ignore[import-not-found, import-untyped, unused-ignore]
    except ImportError:
        print("open_spiel is not installed: pip install open_spiel (or the 'bench' extra) "
              "to compare against its C++ solver", file=sys.stderr)
        return 2
    utils = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)
    theirs_fn = utils.min_deadwood
    rng = random.Random(args.seed)
    ours_s: list[float] = []
    mask_s: list[float] = []
    theirs_s: list[float] = []
    knock_s: list[float] = []
    for round_no in range(args.rounds):
        hands = [rng.sample(range(52), 10) for _ in range(args.hands)]
        masks = [sum(1 << c for c in hand) for hand in hands]
        os_hands = [[to_openspiel(c) for c in hand] for hand in hands]
        for hand, os_hand in zip(hands[:2000], os_hands[:2000], strict=True):
            if deadwood(hand) != theirs_fn(os_hand):
                print(f"disagreement on {hand}: ours {deadwood(hand)}, "
                      f"OpenSpiel {theirs_fn(os_hand)}", file=sys.stderr)
                return 1
        if round_no % 2:
            theirs_s.append(per_call(theirs_fn, os_hands))
            ours_s.append(per_call(deadwood, hands))
            mask_s.append(per_call(deadwood_mask, masks))
        else:
            mask_s.append(per_call(deadwood_mask, masks))
            ours_s.append(per_call(deadwood, hands))
            theirs_s.append(per_call(theirs_fn, os_hands))
        eleven = [sum(1 << c for c in rng.sample(range(52), 11)) for _ in range(args.hands)]
        knock_s.append(per_call(knock_options, eleven))
    ours = statistics.median(ours_s)
    mask = statistics.median(mask_s)
    theirs = statistics.median(theirs_s)
    knock = statistics.median(knock_s)
    result = {
        "python": platform.python_version(),
        "hands_per_round": args.hands,
        "rounds": args.rounds,
        "deadwood_us": round(ours * 1e6, 3),
        "deadwood_mask_us": round(mask * 1e6, 3),
        "openspiel_min_deadwood_us": round(theirs * 1e6, 3),
        "ratio_deadwood_vs_openspiel": round(ours / theirs, 3),
        "ratio_deadwood_mask_vs_openspiel": round(mask / theirs, 3),
        "knock_options_11_cards_us": round(knock * 1e6, 3),
    }
    if args.json:
        print(json.dumps(result))
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


if __name__ == "__main__":
    sys.exit(main())
