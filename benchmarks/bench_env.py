"""Environment steps per second with random legal actions, single process, side by side:

* ``ginrummy``: ``ginrummy.env.env()`` (the wrapped AEC environment, a 2-player eaai hand)
  stepped in PettingZoo's loop: ``last()`` (observation and mask) then ``step``;
* ``ginrummy-vector``: :class:`ginrummy.env.VectorGinRummy` with ``--num-envs`` games, one
  call per step of every game (a step = one decision of one game);
* ``ginrummy-vector-fast``: :class:`ginrummy.env.FastVectorGinRummy`, the same games on the
  compiled (numba) core, in the same loop (skipped when numba is not installed); the report
  adds its ratio to ``ginrummy-vector`` in each round;
* ``openspiel``: OpenSpiel's ``gin_rummy`` through its Python API (``pyspiel``), the
  observation tensor of the player to move read at each decision as the others do;
  chance nodes (deals, stock draws) are played but not counted;
* ``pettingzoo``: PettingZoo 1.26.1's ``gin_rummy_v4`` (the RLCard wrapper) in the same loop
  as ours; it runs in the interpreter given by ``--pettingzoo-python`` (a venv with
  ``pettingzoo[classic]==1.26.1``: 1.27 dropped the game).

Only decisions are counted, per second of the process's CPU time (``time.process_time``: on a
shared machine wall-clock time mostly measures the other processes). A round gives each
contender ``--seconds`` of wall-clock time, in turns of ``--slice`` seconds (the contenders
alternate, so that all of them meet the same load); ``--rounds`` rounds, and the report gives
each one's median and range, each round's ratio to ``ginrummy``, and ``ginrummy`` against
each peer round by round (PettingZoo runs in a process of its own, kept alive and given its
turns in the same rotation). ``--only ginrummy,ginrummy-vector`` runs just those.

    python benchmarks/bench_env.py --pettingzoo-python /tmp/pz126/bin/python [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import time
from collections.abc import Callable, Iterator
from typing import Any

Runs = Iterator[int]
"""A contender: each ``next`` plays on (an episode, or one call of the vector) and gives the
decisions it played."""


def ginrummy_runs() -> Runs:
    """``ginrummy.env.env()`` in PettingZoo's loop."""
    import numpy as np

    from ginrummy.env import env

    return _aec_runs(env(), np.random.default_rng(1))


def _aec_runs(game: Any, rng: Any) -> Runs:
    import numpy as np

    episode = 0
    while True:
        steps = 0
        game.reset(seed=episode)
        episode += 1
        for _agent in game.agent_iter():
            observation, _reward, terminated, truncated, _info = game.last()
            if terminated or truncated:
                action = None
            else:
                legal = np.flatnonzero(observation["action_mask"])
                action = int(legal[rng.integers(len(legal))])
                steps += 1
            game.step(action)
        yield steps


def vector_runs(num_envs: int, backend: str = "python") -> Runs:
    """:class:`VectorGinRummy` (all games' decisions counted), or with ``backend="numba"``
    :class:`FastVectorGinRummy`."""
    import numpy as np

    from ginrummy.env import make_vector

    games = make_vector(num_envs, backend)
    rng = np.random.default_rng(1)
    _obs, masks, _seats = games.reset(seed=1)
    while True:
        actions = (rng.random(masks.shape) * masks).argmax(axis=1)
        _obs, masks, _seats, _rewards, _terminated, _truncated = games.step(actions)
        yield num_envs


def openspiel_runs() -> Runs:
    """OpenSpiel's gin_rummy through pyspiel."""
    import pyspiel

    game = pyspiel.load_game("gin_rummy")
    rng = random.Random(1)
    while True:
        steps = 0
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(rng.random() * len(outcomes))][0])
                continue
            state.observation_tensor(state.current_player())
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.random() * len(legal))])
            steps += 1
        yield steps


def pettingzoo_runs() -> Runs:
    """PettingZoo 1.26.1's gin_rummy_v4 (run in its own venv)."""
    import numpy as np
    from pettingzoo.classic import gin_rummy_v4  # type: ignore[import-untyped]

    return _aec_runs(gin_rummy_v4.env(), np.random.default_rng(1))


def measure(runs: Runs, seconds: float) -> tuple[int, float]:
    """Decisions played and CPU seconds spent in ``seconds`` of wall-clock time."""
    steps = 0
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        steps += next(runs)
    return steps, time.process_time() - cpu


Slicer = Callable[[float], tuple[int, float]]
"""A contender's turn: given seconds of wall-clock time, the decisions it played and the CPU
seconds they took."""


def in_process(runs: Runs) -> Slicer:
    """A contender of this process, measured by :func:`measure`."""
    return lambda seconds: measure(runs, seconds)


class PettingZooWorker:
    """PettingZoo's contender in a process of its own (its venv), kept alive for the whole
    benchmark and given its turns in the same rotation as the others, so that it meets the
    same load: each turn a line with the seconds goes in and ``steps cpu`` comes back."""

    def __init__(self, python: str) -> None:
        self.process = subprocess.Popen(
            [python, __file__, "--pettingzoo-worker"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True, bufsize=1)

    def __call__(self, seconds: float) -> tuple[int, float]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(f"{seconds}\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError("the PettingZoo worker stopped (is pettingzoo[classic]==1.26.1 "
                               "installed in --pettingzoo-python?)")
        steps, cpu = line.split()
        return int(steps), float(cpu)

    def close(self) -> None:
        """End the worker."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)


def pettingzoo_worker() -> None:
    """The worker's side: one turn per line of standard input, until it closes."""
    import sys

    runs = pettingzoo_runs()
    settle([runs])
    for line in sys.stdin:
        steps, cpu = measure(runs, float(line))
        print(steps, cpu, flush=True)


def settle(contenders: list[Runs]) -> None:
    """Start every contender (imports, compiling, the first episode), then move every object
    alive to the garbage collector's permanent generation (``gc.freeze``): one process holds
    all the contenders (numba's compiler, OpenSpiel, 256 games of each vector), and without
    it each full collection during a contender's turn walks the others' objects too (it cost
    ``env()`` about a fifth of its steps here); the PettingZoo worker does the same."""
    import gc

    for runs in contenders:
        next(runs)
    gc.collect()
    gc.freeze()


def interleaved_round(contenders: dict[str, Slicer], seconds: float, slice_seconds: float
                      ) -> dict[str, float]:
    """Each contender's decisions per CPU second over ``seconds`` of wall-clock time, run in
    turns of ``slice_seconds`` so that all of them meet the same load."""
    totals = {name: [0, 0.0] for name in contenders}
    for _ in range(max(1, round(seconds / slice_seconds))):
        for name, turn in contenders.items():
            steps, cpu = turn(slice_seconds)
            totals[name][0] += steps
            totals[name][1] += cpu
    return {name: steps / cpu for name, (steps, cpu) in totals.items()}


def clone_times(rounds: int, positions: int = 200) -> dict[str, list[float]]:
    """Microseconds per copy of a state, each round over the same ``positions`` positions of
    random two-player eaai hands: ``Hand.copy`` (a replay), ``Hand.clone`` (field by field),
    ``copy.deepcopy`` of the AEC env, and OpenSpiel's ``state.clone()`` (its own hands)."""
    import copy
    import random
    import time

    from ginrummy import Ruleset
    from ginrummy.engine import Hand
    from ginrummy.env import raw_env

    rng = random.Random(0)
    hands: list[Hand] = []
    while len(hands) < positions:
        hand = Hand.deal(Ruleset.preset("eaai"), dealer=0, seed=rng.getrandbits(32))
        for _ in range(rng.randint(0, 40)):
            if hand.over:
                break
            hand.apply(rng.choice(hand.legal_actions()))
        hands.append(hand)
    game = raw_env()
    game.reset(seed=1)
    contenders: dict[str, Any] = {
        "Hand.copy": lambda: [h.copy() for h in hands],
        "Hand.clone": lambda: [h.clone() for h in hands],
        "deepcopy(env)": lambda: [copy.deepcopy(game) for _ in range(positions // 10)],
    }
    try:
        import pyspiel

        states: list[Any] = []
        spiel = pyspiel.load_game("gin_rummy")
        while len(states) < positions:
            state = spiel.new_initial_state()
            for _ in range(rng.randint(21, 80)):
                if state.is_terminal():
                    break
                state.apply_action(rng.choice(state.legal_actions()))
            states.append(state)
        contenders["OpenSpiel clone()"] = lambda: [st.clone() for st in states]
    except ImportError:
        pass
    counts = {"deepcopy(env)": positions // 10}
    out: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(rounds):
        for name, run in contenders.items():
            start, repeats = time.process_time(), 0
            while time.process_time() - start < 0.5:
                run()
                repeats += 1
            elapsed = time.process_time() - start
            out[name].append(elapsed / (repeats * counts.get(name, positions)) * 1e6)
    return out


def main(argv: list[str] | None = None) -> None:
    """Run the rounds and print the table (or JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="per contender per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--slice", type=float, default=0.5,
                        help="seconds of each turn within a round (contenders alternate)")
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--pettingzoo-python", help="python of a pettingzoo 1.26.1 venv")
    parser.add_argument("--only", help="comma-separated contenders to run (default: all)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--pettingzoo-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--clone", action="store_true",
                        help="microseconds per copy of a state instead (3 rounds)")
    args = parser.parse_args(argv)
    if args.clone:
        for name, times in clone_times(args.rounds).items():
            print(f"{name:<20}{statistics.median(times):>9.1f} us  "
                  f"(rounds: {', '.join(f'{t:.1f}' for t in times)})")
        return
    if args.pettingzoo_worker:
        pettingzoo_worker()
        return
    contenders: dict[str, Runs] = {
        "ginrummy": ginrummy_runs(),
        "ginrummy-vector": vector_runs(args.num_envs),
        "ginrummy-vector-fast": vector_runs(args.num_envs, "numba"),
        "openspiel": openspiel_runs(),
    }
    from ginrummy.env.fast_vector import numba_available

    if not numba_available():
        del contenders["ginrummy-vector-fast"]
    if args.only:
        wanted = args.only.split(",")
        unknown = sorted(set(wanted) - set(contenders) - {"pettingzoo"})
        if unknown or "ginrummy" not in wanted:
            raise SystemExit(f"--only: unknown contenders {unknown} (choose among "
                             f"{sorted(contenders)} and pettingzoo; ginrummy, the reference, "
                             f"is needed)")
        contenders = {name: runs for name, runs in contenders.items() if name in wanted}
    python = args.pettingzoo_python
    if args.only and "pettingzoo" not in args.only.split(","):
        python = None
    settle(list(contenders.values()))
    turns: dict[str, Slicer] = {name: in_process(runs) for name, runs in contenders.items()}
    worker = PettingZooWorker(python) if python else None
    if worker is not None:
        turns["pettingzoo"] = worker
    results: dict[str, list[float]] = {name: [] for name in turns}
    try:
        for _ in range(args.rounds):
            for name, rate in interleaved_round(turns, args.seconds, args.slice).items():
                results[name].append(rate)
    finally:
        if worker is not None:
            worker.close()
    plain_runs = results["ginrummy"]
    summary: dict[str, dict[str, Any]] = {
        name: {"median": statistics.median(v), "min": min(v), "max": max(v), "runs": v,
               "round_ratios": [x / p for x, p in zip(v, plain_runs, strict=True)]}
        for name, v in results.items()}
    plain = summary["ginrummy"]["median"]
    if args.json:
        print(json.dumps(summary, indent=2))
        return
    print(f"{'environment':<22}{'steps/CPU s':>12}{'range':>22}{'vs ginrummy':>14}"
          f"   {'each round vs ginrummy':<24}")
    for name, row in summary.items():
        rounds = " ".join(f"{r:.2f}x" for r in row["round_ratios"])
        print(f"{name:<22}{row['median']:>12,.0f}{row['min']:>11,.0f}-{row['max']:<10,.0f}"
              f"{row['median'] / plain:>13.2f}x   {rounds}")
    for peer in ("pettingzoo", "openspiel"):
        if peer in results:
            ratios = [g / p for g, p in zip(plain_runs, results[peer], strict=True)]
            print(f"ginrummy vs {peer}: {statistics.median(ratios):.2f}x "
                  f"(each round: {' '.join(f'{r:.2f}x' for r in ratios)})")
    if "ginrummy-vector-fast" in results and "ginrummy-vector" in results:
        ratios = [f / v for f, v in zip(results["ginrummy-vector-fast"],
                                        results["ginrummy-vector"], strict=True)]
        print(f"ginrummy-vector-fast vs ginrummy-vector: {statistics.median(ratios):.2f}x "
              f"(each round: {' '.join(f'{r:.2f}x' for r in ratios)})")


if __name__ == "__main__":
    main()
