"""Train a linear policy on the masked actions with REINFORCE (numpy only, CPU, minutes).

The agent sees :mod:`ginrummy.env`'s observation and action mask; its policy is a softmax
over the legal action ids of ``theta . phi(observation, id)``, a linear function of ten
features of each legal id read from the observation (:func:`action_features`). It plays
two-player ``eaai`` hands against the ``random`` computer player (a random seat each hand),
and learns from each hand's points
(zero-sum, divided by 25) minus a running baseline. Every ``--eval-every`` training hands it
plays ``--eval-hands`` greedy hands against ``random`` and against ``simple`` (the same deals
for every checkpoint; ties between equally likely ids broken at random, so the untrained agent
plays uniformly among the legal ids) and records its points per hand and its share of hands
won with a 95% Wilson interval; the learning curve goes to ``--png``
(matplotlib, which the ``env`` extra installs) and the figures to standard output.

    python examples/train_linear.py [--hands 2000] [--seed 1] \
        [--png docs/img/env-learning-curve.png]
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import numpy as np
import numpy.typing as npt

from ginrummy.cards import CARD_VALUES
from ginrummy.env import GinRummyGym
from ginrummy.env.actions import (
    BIG_GIN_ID,
    DISCARD_BASE,
    DRAW_STOCK_ID,
    KNOCK_BASE,
    LAYOFF_ID,
    PASS_ID,
    TAKE_ID,
)
from ginrummy.solver import deadwood_mask

Array = npt.NDArray[np.float64]
OBS_LR = 0.1
"""The observation weights learn at this fraction of ``--lr`` (387 inputs a kind, against ten
features)."""


FEATURES = ("stock", "take", "pass", "take gain", "discard", "knock", "gin",
            "deadwood after", "card value", "layoff")


def action_features(observation: Array, legal: npt.NDArray[np.intp]) -> Array:
    """Each legal id's features, from the observation alone: the id's kind, and for a card
    the least deadwood the agent's own cards (observation 0-51) keep after it, for taking
    the top discard (52-103) how much it lowers that deadwood."""
    hand = _mask(observation[:52])
    top = _mask(observation[52:104])
    now = deadwood_mask(hand) if hand.bit_count() <= 10 else 0
    out = np.zeros((len(legal), len(FEATURES)))
    for row, action_id in enumerate(legal):
        if action_id == DRAW_STOCK_ID:
            out[row, 0] = 1.0
        elif action_id in (TAKE_ID, PASS_ID):
            grown = hand | top
            best = min(deadwood_mask(grown & ~(1 << c)) for c in range(52)
                       if grown >> c & 1 and 1 << c != top)
            out[row, 1 if action_id == TAKE_ID else 2] = 1.0
            out[row, 3] = (now - best) / 10 if action_id == TAKE_ID else 0.0
        elif action_id == LAYOFF_ID:
            out[row, 9] = 1.0
        elif action_id == BIG_GIN_ID:
            out[row, 5] = out[row, 6] = 1.0
        else:
            knock = action_id >= KNOCK_BASE
            card = action_id - (KNOCK_BASE if knock else DISCARD_BASE)
            after = deadwood_mask(hand & ~(1 << card))
            out[row, 5 if knock else 4] = 1.0
            out[row, 6] = float(knock and after == 0)
            out[row, 7] = after / 10
            out[row, 8] = CARD_VALUES[card] / 10
    return out


def _mask(plane: Array) -> int:
    mask = 0
    for card in np.flatnonzero(plane):
        mask |= 1 << int(card)
    return mask


KINDS = 7  # stock, take, pass, discard, knock, big gin, layoff


def action_kinds(legal: npt.NDArray[np.intp]) -> npt.NDArray[np.intp]:
    """Each legal id's kind (0-6), which picks its row of the observation weights."""
    kinds = np.full(len(legal), 3)
    kinds[legal == DRAW_STOCK_ID] = 0
    kinds[legal == TAKE_ID] = 1
    kinds[legal == PASS_ID] = 2
    kinds[(legal >= KNOCK_BASE) & (legal < BIG_GIN_ID)] = 4
    kinds[legal == BIG_GIN_ID] = 5
    kinds[legal == LAYOFF_ID] = 6
    return kinds


class LinearPolicy:
    """``softmax(features @ theta + W[kind] @ observation)`` over the legal ids: the ten
    features of :func:`action_features`, and the whole observation tensor weighed by one row
    of ``W`` per kind of id (so the policy learns from the observation itself too)."""

    def __init__(self, observation_size: int = 387) -> None:
        self.theta = np.zeros(len(FEATURES))
        self.w = np.zeros((KINDS, observation_size))

    def probabilities(self, features: Array, kinds: npt.NDArray[np.intp] | None = None,
                      observation: Array | None = None) -> Array:
        """The policy's probability of each legal id (rows of ``features``)."""
        logits = features @ self.theta
        if kinds is not None and observation is not None:
            logits = logits + self.w[kinds] @ observation
        logits -= logits.max()
        weights = np.exp(logits)
        return weights / weights.sum()


def play_hand(env: GinRummyGym, policy: LinearPolicy, rng: np.random.Generator, seed: int,
              greedy: bool) -> tuple[float, list[tuple[Array, int, Array, Any, Any]]]:
    """One hand: the agent's total reward and its decisions (features, pick, p, kinds,
    observation)."""
    observation, _ = env.reset(seed=seed)
    decisions = []
    total = 0.0
    done = False
    while not done:
        legal = np.flatnonzero(observation["action_mask"])
        tensor = observation["observation"].astype(np.float64)
        features = action_features(tensor, legal)
        kinds = action_kinds(legal)
        probs = policy.probabilities(features, kinds, tensor)
        if greedy:  # the likeliest id, ties broken at random: untrained, uniform play
            pick = int(rng.choice(np.flatnonzero(probs >= probs.max() * (1 - 1e-9))))
        else:
            pick = int(rng.choice(len(legal), p=probs))
        decisions.append((features, pick, probs, kinds, tensor))
        observation, reward, terminated, truncated, _ = env.step(int(legal[pick]))
        total += float(reward)
        done = terminated or truncated
    return total, decisions


def wilson(wins: int, hands: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate."""
    if not hands:
        return 0.0, 1.0
    rate = wins / hands
    centre = (rate + z * z / (2 * hands)) / (1 + z * z / hands)
    half = z * np.sqrt(rate * (1 - rate) / hands + z * z / (4 * hands * hands)) / (
        1 + z * z / hands)
    return round(float(centre - half), 3), round(float(centre + half), 3)


def evaluate(policy: LinearPolicy, opponent: str, hands: int, rng: np.random.Generator
             ) -> tuple[float, float, tuple[float, float]]:
    """Greedy play against ``opponent``: points per hand (zero-sum, not divided), the share
    of hands won and its 95% interval."""
    env = GinRummyGym(opponents=opponent, seat=None)
    points = [play_hand(env, policy, rng, 10_000_000 + i, True)[0] for i in range(hands)]
    wins = sum(p > 0 for p in points)
    return float(np.mean(points)), wins / hands, wilson(wins, hands)


def train(args: argparse.Namespace) -> dict[str, object]:
    """The training run; returns the curve and the reference figures."""
    rng = np.random.default_rng(args.seed)
    policy = LinearPolicy()
    env = GinRummyGym(opponents="random", seat=None, reward_scale=1 / 25)
    baseline = 0.0
    curve: list[dict[str, object]] = []
    start = time.perf_counter()
    for hand in range(args.hands + 1):
        if hand % args.eval_every == 0:
            row: dict[str, object] = {"hands": hand,
                                      "seconds": round(time.perf_counter() - start, 1)}
            for opponent in ("random", "simple"):
                points, rate, interval = evaluate(policy, opponent, args.eval_hands, rng)
                row[f"vs_{opponent}"] = round(points, 2)
                row[f"won_vs_{opponent}"] = rate
                row[f"won_vs_{opponent}_95"] = interval
            curve.append(row)
            print(json.dumps(row), flush=True)
        if hand == args.hands:
            break
        total, decisions = play_hand(env, policy, rng, args.seed * 1_000_003 + hand, False)
        advantage = total - baseline
        baseline += 0.01 * (total - baseline)
        for features, pick, probs, kinds, tensor in decisions:  # grad log p = phi(a) - E[phi]
            policy.theta += args.lr * advantage * (features[pick] - probs @ features)
            share = -probs
            share[pick] += 1.0
            np.add.at(policy.w, kinds, (args.lr * OBS_LR * advantage * share)[:, None]
                      * tensor[None, :])
    return {"curve": curve, "seconds": round(time.perf_counter() - start, 1),
            "theta": dict(zip(FEATURES, policy.theta.round(2).tolist(), strict=True))}


def reference(hands: int) -> dict[str, float]:
    """Points per hand of the computer players themselves: ``random`` and ``simple`` against
    ``random`` and ``simple``, on the evaluation deals."""
    from ginrummy.bots import make_bot
    from ginrummy.env.actions import encode

    out = {}
    for me in ("random", "simple"):
        for opponent in ("random", "simple"):
            env = GinRummyGym(opponents=opponent, seat=None)
            bot = make_bot(me, 7)
            total = 0.0
            for i in range(hands):
                env.reset(seed=10_000_000 + i)
                done = False
                while not done:
                    hand = env.game.hand
                    action = bot.choose(env.view(), hand.legal_actions())
                    _, reward, terminated, truncated, _ = env.step(encode(action))
                    total += float(reward)
                    done = terminated or truncated
            out[f"{me}_vs_{opponent}"] = total / hands
    return out


def plot(result: dict[str, object], refs: dict[str, float], path: str) -> None:
    """The learning curve as a PNG (needs matplotlib)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    curve = result["curve"]
    assert isinstance(curve, list)
    x = [row["hands"] for row in curve]
    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    ax.plot(x, [row["vs_random"] for row in curve], "o-", label="linear agent vs random")
    ax.plot(x, [row["vs_simple"] for row in curve], "s-", label="linear agent vs simple")
    ax.axhline(refs["simple_vs_random"], ls="--", c="C0", label="simple vs random")
    ax.axhline(refs["random_vs_simple"], ls=":", c="C1", label="random vs simple")
    ax.axhline(0, c="grey", lw=0.5)
    ax.set_xlabel("training hands (against random)")
    ax.set_ylabel("points per hand (zero-sum)")
    ax.set_title("REINFORCE, linear policy on ginrummy.env (eaai, 2 players)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)


def main(argv: list[str] | None = None) -> None:
    """Train, evaluate, print the figures as JSON lines, write the PNG."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--eval-every", type=int, default=250)
    parser.add_argument("--eval-hands", type=int, default=200)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--png", default=None, help="where to write the learning curve")
    args = parser.parse_args(argv)
    result = train(args)
    refs = reference(args.eval_hands)
    print(json.dumps({"reference": refs, "training_seconds": result["seconds"],
                      "theta": result["theta"]}))
    if args.png:
        try:
            plot(result, refs, args.png)
        except ImportError:
            print("matplotlib is not installed: no PNG (pip install 'ginrummy[env]')")


if __name__ == "__main__":
    main()
