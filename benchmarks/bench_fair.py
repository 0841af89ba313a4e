"""Uniformity of the provably fair shuffle (``ginrummy.fair.deck``): a chi-square test that every
position of the deal order holds each of the 52 cards equally often.

    python benchmarks/bench_fair.py [--decks 100000] [--seed 1] [--json]

Deals ``--decks`` decks from seeds drawn from ``random.Random(seed)`` (a 32-byte server seed and
two 32-byte client seeds per deck), counts card by position (52 x 52 cells, each expecting
decks / 52), and reports for each position Pearson's chi-square over the 52 cards (51 degrees
of freedom) with its p-value, how many positions fall below p = 0.01 and 0.001 (about 0.52 and
0.05 expected by chance), the smallest and largest p-value, the whole table's chi-square
(51 x 51 = 2601 degrees of freedom: rows and columns both sum to the number of decks), the
chance that the integer drawer rejects a 32-bit word, and the speed. p-values come from
SciPy when it is installed, else from the Wilson-Hilferty approximation (said in the output).
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from ginrummy import fair
from ginrummy.cards import NUM_CARDS


def wilson_hilferty_sf(stat: float, df: int) -> float:
    """P(chi-square with ``df`` degrees of freedom >= ``stat``), Wilson-Hilferty approximation."""
    if stat <= 0:
        return 1.0
    z = ((stat / df) ** (1 / 3) - (1 - 2 / (9 * df))) / math.sqrt(2 / (9 * df))
    return 1.0 - statistics.NormalDist().cdf(z)


def chi2_sf() -> tuple[Callable[[float, int], float], str]:
    """The chi-square survival function to use and its name."""
    try:
        from scipy.stats import chi2  # type: ignore[import-untyped]
    except ImportError:
        return wilson_hilferty_sf, "Wilson-Hilferty approximation"
    return (lambda stat, df: float(chi2.sf(stat, df))), "scipy.stats.chi2.sf"


def expected_rejection_share() -> float:
    """The chance a word is rejected, averaged over the 51 draws of a deal."""
    draws = range(2, NUM_CARDS + 1)
    rejected = [1 - fair.rejection_limit(n) / 2**32 for n in draws]
    return sum(rejected) / len(rejected)


def count_positions(decks: int, seed: int) -> tuple[list[list[int]], int, float]:
    """Card counts by position, words drawn (rejections aside), seconds."""
    rng = random.Random(seed)
    counts = [[0] * NUM_CARDS for _ in range(NUM_CARDS)]
    words = 0
    start = time.perf_counter()
    for _ in range(decks):
        server_seed = rng.randbytes(fair.SEED_BYTES)
        client_seeds = [rng.randbytes(fair.SEED_BYTES), rng.randbytes(fair.SEED_BYTES)]
        order = fair.deck(server_seed, client_seeds)
        for position, card in enumerate(order):
            counts[position][card] += 1
        words += NUM_CARDS - 1
    seconds = time.perf_counter() - start
    return counts, words, seconds


def chi_square(row: list[int], expected: float) -> float:
    """Pearson's statistic of counts against one expected count."""
    return sum((c - expected) ** 2 / expected for c in row)


def run(decks: int, seed: int) -> dict[str, Any]:
    """The measured figures."""
    counts, words, seconds = count_positions(decks, seed)
    sf, method = chi2_sf()
    expected = decks / NUM_CARDS
    stats = [chi_square(row, expected) for row in counts]
    p_values = [sf(s, NUM_CARDS - 1) for s in stats]
    total = sum(stats)
    return {
        "decks": decks, "seed": seed, "p_value_method": method,
        "per_position": {"df": NUM_CARDS - 1,
                         "chi2_min": round(min(stats), 2), "chi2_max": round(max(stats), 2),
                         "p_min": round(min(p_values), 4), "p_max": round(max(p_values), 4),
                         "below_0.01": sum(p < 0.01 for p in p_values),
                         "below_0.001": sum(p < 0.001 for p in p_values),
                         "p_values": [round(p, 4) for p in p_values]},
        "table": {"chi2": round(total, 1), "df": (NUM_CARDS - 1) ** 2,
                  "p": round(sf(total, (NUM_CARDS - 1) ** 2), 4)},
        "rejection_chance_per_word": expected_rejection_share(),
        "seconds": round(seconds, 2), "decks_per_second": round(decks / seconds),
        "words_drawn": words,
        "python": platform.python_version(),
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--decks", type=int, default=100_000, help="decks to deal (100000)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the seeds (1)")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = parser.parse_args(argv)
    if args.decks < NUM_CARDS:
        parser.error(f"--decks must be at least {NUM_CARDS}")
    result = run(args.decks, args.seed)
    if args.json:
        print(json.dumps(result))
        return 0
    pos, table = result["per_position"], result["table"]
    print(f"{result['decks']} decks (seed {result['seed']}) in {result['seconds']} s, "
          f"{result['decks_per_second']} decks/s; p-values: {result['p_value_method']}")
    print(f"per position (52 cards, {pos['df']} df): chi2 {pos['chi2_min']}..{pos['chi2_max']}, "
          f"p {pos['p_min']}..{pos['p_max']}, {pos['below_0.01']} of 52 below 0.01, "
          f"{pos['below_0.001']} below 0.001")
    print(f"whole table: chi2 {table['chi2']} with {table['df']} df, p = {table['p']}")
    print(f"a 32-bit word is rejected with chance {result['rejection_chance_per_word']:.2e} "
          f"(the mean over the 51 draws of a deal: too rare to count here)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
