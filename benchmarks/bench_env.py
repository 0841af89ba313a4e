"""Environment steps per second with random legal actions, single process, side by side:

* ``ginrummy``: ``ginrummy.env.env()`` (the wrapped AEC environment, a 2-player eaai hand)
  stepped in PettingZoo's loop: ``last()`` (observation and mask) then ``step``;
* ``ginrummy-vector``: :class:`ginrummy.env.VectorGinRummy` with ``--num-envs`` games, one
  call per step of every game (a step = one decision of one game);
* ``openspiel``: OpenSpiel's ``gin_rummy`` through its Python API (``pyspiel``), the
  observation tensor of the player to move read at each decision as the others do;
  chance nodes (deals, stock draws) are played but not counted;
* ``pettingzoo``: PettingZoo 1.26.1's ``gin_rummy_v4`` (the RLCard wrapper) in the same loop
  as ours; it runs in the interpreter given by ``--pettingzoo-python`` (a venv with
  ``pettingzoo[classic]==1.26.1``: 1.27 dropped the game).

Only decisions are counted, per second of the process's CPU time (``time.process_time``: on a
shared machine wall-clock time mostly measures the other processes). Each contender runs
``--seconds`` of wall-clock time per round, ``--rounds`` rounds in turn; the report gives each
one's median and range, and each round's ratio to ``ginrummy`` of the same round (the two ran
seconds apart, under the same load). ``--only ginrummy,ginrummy-vector`` runs just those.

    python benchmarks/bench_env.py --pettingzoo-python /tmp/pz126/bin/python [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable


def bench_ginrummy(seconds: float) -> float:
    """Decisions per second of ``ginrummy.env.env()`` in PettingZoo's loop."""
    import numpy as np

    from ginrummy.env import env

    game = env()
    rng = np.random.default_rng(1)
    return _aec_loop(game, rng, seconds)


def _aec_loop(game: object, rng: object, seconds: float) -> float:
    import numpy as np

    steps = 0
    episode = 0
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        game.reset(seed=episode)  # type: ignore[attr-defined]
        episode += 1
        for _agent in game.agent_iter():  # type: ignore[attr-defined]
            observation, _reward, terminated, truncated, _info = game.last()  # type: ignore[attr-defined]
            if terminated or truncated:
                action = None
            else:
                legal = np.flatnonzero(observation["action_mask"])
                action = int(legal[rng.integers(len(legal))])  # type: ignore[attr-defined]
                steps += 1
            game.step(action)  # type: ignore[attr-defined]
    return steps / (time.process_time() - cpu)


def bench_vector(seconds: float, num_envs: int) -> float:
    """Decisions per second of :class:`VectorGinRummy` (all games' decisions counted)."""
    import numpy as np

    from ginrummy.env import VectorGinRummy

    games = VectorGinRummy(num_envs)
    rng = np.random.default_rng(1)
    _obs, masks, _seats = games.reset(seed=1)
    steps = 0
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        actions = (rng.random(masks.shape) * masks).argmax(axis=1)
        _obs, masks, _seats, _rewards, _terminated, _truncated = games.step(actions)
        steps += num_envs
    return steps / (time.process_time() - cpu)


def bench_openspiel(seconds: float) -> float:
    """Decisions per second of OpenSpiel's gin_rummy through pyspiel."""
    import pyspiel

    game = pyspiel.load_game("gin_rummy")
    rng = random.Random(1)
    steps = 0
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
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
    return steps / (time.process_time() - cpu)


def bench_pettingzoo(seconds: float) -> float:
    """Decisions per second of PettingZoo 1.26.1's gin_rummy_v4 (run in its own venv)."""
    import numpy as np
    from pettingzoo.classic import gin_rummy_v4

    return _aec_loop(gin_rummy_v4.env(), np.random.default_rng(1), seconds)


def _pettingzoo_round(python: str, seconds: float) -> float:
    out = subprocess.run([python, __file__, "--only-pettingzoo", "--seconds", str(seconds)],
                         check=True, capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    """Run the rounds and print the table (or JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="per contender per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--pettingzoo-python", help="python of a pettingzoo 1.26.1 venv")
    parser.add_argument("--only", help="comma-separated contenders to run (default: all)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--only-pettingzoo", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.only_pettingzoo:
        print(bench_pettingzoo(args.seconds))
        return
    contenders: dict[str, Callable[[], float]] = {
        "ginrummy": lambda: bench_ginrummy(args.seconds),
        "ginrummy-vector": lambda: bench_vector(args.seconds, args.num_envs),
        "openspiel": lambda: bench_openspiel(args.seconds),
    }
    if args.pettingzoo_python:
        python = args.pettingzoo_python
        contenders["pettingzoo"] = lambda: _pettingzoo_round(python, args.seconds)
    if args.only:
        wanted = args.only.split(",")
        unknown = sorted(set(wanted) - set(contenders))
        if unknown or "ginrummy" not in wanted:
            raise SystemExit(f"--only: unknown contenders {unknown} (choose among "
                             f"{sorted(contenders)}; ginrummy, the reference, is needed)")
        contenders = {name: run for name, run in contenders.items() if name in wanted}
    results: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(args.rounds):
        for name, run in contenders.items():
            results[name].append(run())
    plain_runs = results["ginrummy"]
    summary = {name: {"median": statistics.median(v), "min": min(v), "max": max(v),
                      "runs": v,
                      "round_ratios": [x / p for x, p in zip(v, plain_runs, strict=True)]}
               for name, v in results.items()}
    plain = summary["ginrummy"]["median"]
    if args.json:
        print(json.dumps(summary, indent=2))
        return
    print(f"{'environment':<18}{'steps/CPU s':>16}{'range':>22}{'vs ginrummy':>14}"
          f"   {'each round vs ginrummy':<24}")
    for name, row in summary.items():
        rounds = " ".join(f"{r:.2f}x" for r in row["round_ratios"])
        print(f"{name:<18}{row['median']:>16,.0f}{row['min']:>11,.0f}-{row['max']:<10,.0f}"
              f"{row['median'] / plain:>13.2f}x   {rounds}")


if __name__ == "__main__":
    sys.exit(main())
