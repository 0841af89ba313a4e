"""What the knock and layoff hints cost the server (docs/client.md, *Knocks and layoffs*).

Run: ``.venv/bin/python benchmarks/bench_knock_hints.py [--hands 200]``.

Two ``simple`` bots play ``--hands`` classic hands (seeds 0..N-1); at every discard step where
a knock is legal, and at every layoff step, the mover's ``hints`` are built as the server
builds them (best of 3 x 20 calls each), with and without the knock arrangements. Prints the
median, 95th percentile and largest time per state, in milliseconds.
"""

from __future__ import annotations

import argparse
import timeit
from collections.abc import Callable

import ginrummy.server.play.messages as messages
from ginrummy.bots import make_bot
from ginrummy.engine import Hand, Phase
from ginrummy.rules import Ruleset
from ginrummy.views import view

BEST = {"deadwood": 0, "melds": [], "unmatched": []}


def time_of(call: Callable[[], object]) -> float:
    return min(timeit.repeat(call, number=20, repeat=3)) / 20 * 1e3


def positions(hands: int) -> tuple[list[Hand], list[Hand]]:
    """Copies of every knock position and every layoff step of ``hands`` bot hands."""
    rules = Ruleset.preset("classic")
    knocks: list[Hand] = []
    layoffs: list[Hand] = []
    for seed in range(hands):
        hand = Hand.deal(rules, 0, seed=seed)
        bots = [make_bot("simple", seed * 2 + i) for i in range(2)]
        while not hand.over:
            legal = hand.legal_actions()
            if hand.to_move < 0:
                hand.apply(legal[0])
                continue
            if hand.phase is Phase.DISCARD and any(str(a).startswith(("knock", "gin"))
                                                   for a in legal):
                knocks.append(hand.copy())
            elif hand.phase is Phase.LAYOFF:
                layoffs.append(hand.copy())
            hand.apply(bots[hand.to_move].choose(view(hand, hand.to_move), legal))
    return knocks, layoffs


def summary(name: str, times: list[float]) -> str:
    times = sorted(times)
    return (f"{name}: {len(times)} states, median {times[len(times) // 2]:.3f} ms, "
            f"p95 {times[int(len(times) * 0.95)]:.3f} ms, max {times[-1]:.3f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200)
    args = parser.parse_args()
    knocks, layoffs = positions(args.hands)
    with_arrangements = [time_of(lambda h=h: messages._hints(h, h.to_move, BEST))
                         for h in knocks]
    layoff_times = [time_of(lambda h=h: messages._hints(h, h.to_move, BEST)) for h in layoffs]
    original = messages.knock_arrangements
    messages.knock_arrangements = lambda option: []  # type: ignore[assignment]
    try:
        without = [time_of(lambda h=h: messages._hints(h, h.to_move, BEST)) for h in knocks]
    finally:
        messages.knock_arrangements = original
    print(summary("knock hints with the arrangements", with_arrangements))
    print(summary("knock hints without them", without))
    print(summary("layoff hints", layoff_times))


if __name__ == "__main__":
    main()
