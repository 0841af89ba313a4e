"""Train a policy on the observation and the action mask (numpy only, CPU, minutes).

Two policies (``--policy``):

* ``observation`` (default): a small network on the whole 387-number observation
  (:class:`ObservationPolicy`: one hidden layer and a direct linear layer to a logit per
  action id, masked softmax, and a value), trained by advantage actor-critic on the compiled
  vector env (``make_vector``: the same observation and ids; its caller plays every seat, so
  half the games have one seat playing uniformly random ids and the rest is self-play);
* ``features``: the linear policy of ten hand-built features of each legal id read from the
  observation (:func:`action_features`, with the solver's deadwood), plus the observation
  weighed by kind of id, trained by REINFORCE against ``random`` on ``GinRummyGym``.

Every ``--eval-every`` training hands it plays ``--eval-hands`` greedy hands against the real
``random`` and ``simple`` computer players (``GinRummyGym``, a random seat each hand, the same
deals for every checkpoint; ties between equally likely ids broken at random, so the untrained
agent plays uniformly among the legal ids) and records its points per hand (95% interval) and
its share of hands won (95% Wilson interval); ``--final-hands`` adds a last, longer
evaluation. The learning curve goes to ``--png`` (matplotlib, which the ``env`` extra
installs) and the figures to standard output.

    python examples/train_linear.py [--policy observation|features] [--hands 60000] \
        [--seed 1] [--final-hands 1000] [--png docs/img/env-learning-curve.png]
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import numpy as np
import numpy.typing as npt

from ginrummy.cards import CARD_VALUES
from ginrummy.env import NUM_ACTIONS, OBS_SIZE, GinRummyGym
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
Batch = npt.NDArray[Any]
"""Rows of observations and what the network computes from them (float32 or float64)."""
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
        probs: Array = weights / weights.sum()
        return probs


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
    return {"curve": curve, "seconds": round(time.perf_counter() - start, 1), "policy": policy,
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


def plot(result: dict[str, object], refs: dict[str, float], path: str,
         policy: str = "features") -> None:
    """The learning curve as a PNG (needs matplotlib)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    curve = result["curve"]
    assert isinstance(curve, list)
    x = [row["hands"] for row in curve]
    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    name = "observation agent" if policy == "observation" else "ten-feature agent"
    ax.plot(x, [row["vs_random"] for row in curve], "o-", label=f"{name} vs random")
    ax.plot(x, [row["vs_simple"] for row in curve], "s-", label=f"{name} vs simple")
    ax.axhline(refs["simple_vs_random"], ls="--", c="C0", label="simple vs random")
    ax.axhline(refs["random_vs_simple"], ls=":", c="C1", label="random vs simple")
    ax.axhline(0, c="grey", lw=0.5)
    ax.set_xlabel("training hands (fast vector env: half self-play, half against random)"
                  if policy == "observation"
                  else "training hands (against random)")
    ax.set_ylabel("points per hand (zero-sum)")
    ax.set_title("actor-critic, network on the observation (eaai, 2 players)"
                 if policy == "observation" else
                 "REINFORCE, ten-feature linear policy (eaai, 2 players)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)


HIDDEN = 64
"""Units of the observation policy's hidden layer."""


NEIGHBOURS = 5 * 52
"""Inputs :func:`neighbour_planes` adds."""


def neighbour_planes(obs: Batch) -> Batch:
    """Five planes of 52 read from the observation's own cards (0-51), for every card c:
    how many cards of c's rank the observer holds (other than c, / 3), and whether it holds
    the cards one and two ranks below and above c in its suit: what a meld around c needs,
    without the solver."""
    held = obs[:, :52].reshape(-1, 4, 13)
    same_rank = (held.sum(axis=1, keepdims=True) - held) / 3
    below1 = np.zeros_like(held)
    below1[:, :, 1:] = held[:, :, :-1]
    below2 = np.zeros_like(held)
    below2[:, :, 2:] = held[:, :, :-2]
    above1 = np.zeros_like(held)
    above1[:, :, :-1] = held[:, :, 1:]
    above2 = np.zeros_like(held)
    above2[:, :, :-2] = held[:, :, 2:]
    planes: Batch = np.concatenate([same_rank, below1, below2, above1, above2], axis=1)
    return planes.reshape(len(obs), NEIGHBOURS)


class ObservationPolicy:
    """A small network on the whole observation: ``relu(obs @ W1 + b1)`` feeds a softmax over
    the 109 ids (masked to the legal ones) and a value (the acting seat's expected points /
    25). The output layers start at zero, so the untrained policy is uniform over the legal
    ids; numpy only, trained with Adam."""

    def __init__(self, seed: int = 0, hidden: int = HIDDEN, neighbours: bool = False) -> None:
        rng = np.random.default_rng(seed)
        self.neighbours = neighbours
        width = OBS_SIZE + (NEIGHBOURS if neighbours else 0)
        self.params: dict[str, Batch] = {
            "w1": rng.normal(0.0, np.sqrt(2.0 / width), (width, hidden)).astype(np.float32),
            "b1": np.zeros(hidden, np.float32),
            "wp": np.zeros((hidden, NUM_ACTIONS), np.float32),
            "bp": np.zeros(NUM_ACTIONS, np.float32),
            "wd": np.zeros((width, NUM_ACTIONS), np.float32),
            "wv": np.zeros(hidden, np.float32),
            "bv": np.zeros(1, np.float32),
        }
        self._moments = {k: (np.zeros_like(v), np.zeros_like(v))
                         for k, v in self.params.items()}
        self._updates = 0

    def inputs(self, obs: Batch) -> Batch:
        """The network's inputs: the observation, and with ``neighbours`` its
        :func:`neighbour_planes`."""
        return np.hstack([obs, neighbour_planes(obs)]) if self.neighbours else obs

    def forward(self, obs: Batch, masks: npt.NDArray[np.int8]) -> tuple[Batch, Batch, Batch]:
        """The hidden layer, the legal ids' probabilities and the value of each row."""
        p = self.params
        obs = self.inputs(obs)
        hidden = np.maximum(obs @ p["w1"] + p["b1"], 0.0)
        logits = hidden @ p["wp"] + obs @ p["wd"] + p["bp"]
        logits = np.where(masks > 0, logits, -np.inf)
        logits -= logits.max(axis=1, keepdims=True)
        weights = np.exp(logits)
        probs = weights / weights.sum(axis=1, keepdims=True)
        return hidden, probs, hidden @ p["wv"] + p["bv"][0]

    def act(self, obs: Batch, masks: npt.NDArray[np.int8], rng: np.random.Generator,
            greedy: bool = False) -> npt.NDArray[np.intp]:
        """One id per row: sampled, or the likeliest (ties broken at random)."""
        _, probs, _ = self.forward(obs, masks)
        if greedy:
            best = probs >= probs.max(axis=1, keepdims=True) * (1 - 1e-9)
            probs = best / best.sum(axis=1, keepdims=True)
        cumulative = probs.cumsum(axis=1)
        draws = rng.random((len(obs), 1)) * cumulative[:, -1:]
        picks = (cumulative <= draws).sum(axis=1)
        chosen: npt.NDArray[np.intp] = np.minimum(picks, NUM_ACTIONS - 1)
        return chosen

    def update(self, obs: Batch, masks: npt.NDArray[np.int8], actions: npt.NDArray[np.intp],
               returns: Batch, lr: float, entropy: float = 0.01,
               value_weight: float = 0.5) -> dict[str, float]:
        """One Adam step on ``-log p(a) * advantage + value_weight * (V - G)^2 - entropy *
        H`` averaged over the rows; the advantage is ``G - V`` (the baseline)."""
        p = self.params
        n = len(obs)
        hidden, probs, value = self.forward(obs, masks)
        obs = self.inputs(obs)
        advantage = (returns - value).astype(np.float32)
        onehot = np.zeros_like(probs)
        onehot[np.arange(n), actions] = 1.0
        logp = np.log(np.where(probs > 0, probs, 1.0))
        plogp = probs * logp
        entropy_now = -plogp.sum(axis=1)
        # d(-H)/d logits = p * (log p + H); d(-log p(a) A)/d logits = (p - onehot) * A
        d_logits = (probs - onehot) * advantage[:, None] + entropy * (
            plogp + probs * entropy_now[:, None])
        d_logits /= n
        d_value = (value_weight * 2.0 * (value - returns) / n).astype(np.float32)
        d_logits = d_logits.astype(np.float32)
        grads = {"wp": hidden.T @ d_logits, "bp": d_logits.sum(axis=0), "wd": obs.T @ d_logits,
                 "wv": hidden.T @ d_value, "bv": np.array([d_value.sum()])}
        d_hidden = (d_logits @ p["wp"].T + d_value[:, None] * p["wv"][None, :]) * (hidden > 0)
        grads["w1"] = obs.T @ d_hidden
        grads["b1"] = d_hidden.sum(axis=0)
        self._adam(grads, lr)
        return {"value_loss": float(np.mean((value - returns) ** 2)),
                "entropy": float(entropy_now.mean())}

    def _adam(self, grads: dict[str, Batch], lr: float, beta1: float = 0.9,
              beta2: float = 0.999) -> None:
        self._updates += 1
        t = self._updates
        for key, grad in grads.items():
            m, v = self._moments[key]
            m *= beta1
            m += (1 - beta1) * grad
            v *= beta2
            v += (1 - beta2) * grad * grad
            step = lr * (m / (1 - beta1 ** t)) / (np.sqrt(v / (1 - beta2 ** t)) + 1e-8)
            self.params[key] -= step


def returns_of(rewards: Array, done: npt.NDArray[np.bool_], seats: npt.NDArray[np.int64],
               bootstrap: Array) -> Array:
    """Each decision's return: the points its seat got when the hand ended (rewards come
    only then), or, for hands still going at the end of the rollout, ``bootstrap`` (per
    game and seat: the value of the next decision, negated for the other seat, the game
    being zero-sum). ``rewards`` is (T, N, 2), ``done`` and ``seats`` (T, N)."""
    steps, games = done.shape
    out = np.empty((steps, games))
    ahead = bootstrap.copy()
    rows = np.arange(games)
    for t in range(steps - 1, -1, -1):
        ahead = np.where(done[t][:, None], rewards[t], ahead)
        out[t] = ahead[rows, seats[t]]
    return out


def train_observation(args: argparse.Namespace) -> dict[str, object]:
    """Training on the fast vector env (``make_vector``: numba when installed): in a share
    ``--against-random`` of the ``--num-envs`` games one seat plays uniformly random legal
    ids (its decisions are not learnt from), in the others both seats play the policy;
    every ``--rollout`` steps one update from the policy's decisions (advantage actor-critic: the
    hand's points / 25 against the value baseline) until ``--hands`` hands have ended, with
    a greedy evaluation against the real ``random`` and ``simple`` every ``--eval-every``
    hands (``--eval-hands`` each; not counted in the training time). Returns the policy, the
    curve, the training hands and seconds, and the losses along the way."""
    from ginrummy.env import make_vector

    rng = np.random.default_rng(args.seed)
    policy = ObservationPolicy(args.seed, getattr(args, "hidden", HIDDEN),
                               getattr(args, "neighbours", False))
    games = make_vector(args.num_envs, reward_scale=1 / 25)
    obs, masks, seats = games.reset(seed=args.seed)
    index = np.arange(args.num_envs)
    share = getattr(args, "against_random", 0.0)
    random_seat = np.where(index < round(args.num_envs * share), 1 - index % 2, -1)
    hands = 0
    history: list[dict[str, float]] = []
    curve: list[dict[str, object]] = []
    spent, cpu_spent = 0.0, 0.0
    next_eval = 0
    while True:
        if args.eval_every and hands >= next_eval:
            curve.append(checkpoint(policy, hands, spent, args.eval_hands))
            print(json.dumps(curve[-1]), flush=True)
            next_eval += args.eval_every
        if hands >= args.hands:
            break
        start, cpu = time.perf_counter(), time.process_time()
        batch_obs, batch_masks, batch_seats, batch_actions = [], [], [], []
        batch_rewards, batch_done, batch_learn = [], [], []
        for _ in range(args.rollout):
            actions = policy.act(obs, masks, rng)
            by_random = seats == random_seat
            if by_random.any():
                noise = rng.random(masks.shape) * masks
                actions = np.where(by_random, noise.argmax(axis=1), actions)
            batch_learn.append(~by_random)
            batch_obs.append(obs)
            batch_masks.append(masks)
            batch_seats.append(seats)
            batch_actions.append(actions)
            obs, masks, seats, rewards, terminated, truncated = games.step(actions)
            batch_rewards.append(rewards)
            batch_done.append(terminated | truncated)
        done = np.array(batch_done)
        hands += int(done.sum())
        _, _, value = policy.forward(obs, masks)
        bootstrap = np.where(np.arange(2)[None, :] == seats[:, None], value[:, None],
                             -value[:, None])
        returns = returns_of(np.array(batch_rewards), done, np.array(batch_seats), bootstrap)
        learn = np.concatenate(batch_learn)
        stats = policy.update(np.concatenate(batch_obs)[learn],
                              np.concatenate(batch_masks)[learn],
                              np.concatenate(batch_actions)[learn],
                              returns.reshape(-1)[learn], args.lr)
        history.append({"hands": hands, **stats})
        spent += time.perf_counter() - start
        cpu_spent += time.process_time() - cpu
    return {"policy": policy, "hands": hands, "history": history, "curve": curve,
            "seconds": round(spent, 1), "cpu_seconds": round(cpu_spent, 1)}


def against_random_fast(policy: ObservationPolicy, hands: int, seed: int = 0,
                        num_envs: int = 128) -> float:
    """Points per hand (zero-sum, not divided) of the greedy policy against uniformly random
    legal ids on the fast vector env (the policy seat 0 in even games, seat 1 in odd ones):
    a quick measure for tests; the real bots are in :func:`evaluate_observation`."""
    from ginrummy.env import make_vector

    rng = np.random.default_rng(seed)
    games = make_vector(num_envs)
    obs, masks, seats = games.reset(seed=seed)
    mine = np.arange(num_envs) % 2
    total, ended = 0.0, 0
    while ended < hands:
        actions = policy.act(obs, masks, rng, greedy=True)
        noise = rng.random(masks.shape) * masks
        actions = np.where(seats == mine, actions, noise.argmax(axis=1))
        obs, masks, seats, rewards, terminated, truncated = games.step(actions)
        done = terminated | truncated
        total += float(rewards[done, mine[done]].sum())
        ended += int(done.sum())
    return total / ended


def checkpoint(policy: ObservationPolicy, hands: int, seconds: float, eval_hands: int
               ) -> dict[str, object]:
    """A row of the learning curve: greedy play against ``random`` and ``simple``."""
    row: dict[str, object] = {"hands": hands, "seconds": round(seconds, 1)}
    for opponent in ("random", "simple"):
        result = evaluate_observation(policy, opponent, eval_hands)
        row[f"vs_{opponent}"] = result["points"]
        row[f"vs_{opponent}_95"] = result["points_95"]
        row[f"won_vs_{opponent}"] = result["won"]
        row[f"won_vs_{opponent}_95"] = result["won_95"]
    return row


def play_observation_hand(env: GinRummyGym, policy: ObservationPolicy,
                          rng: np.random.Generator, seed: int) -> float:
    """One greedy hand of the observation policy through the Python env: its points."""
    observation, _ = env.reset(seed=seed)
    total, done = 0.0, False
    while not done:
        tensor = observation["observation"][None, :]
        mask = observation["action_mask"][None, :]
        action = int(policy.act(tensor, mask, rng, greedy=True)[0])
        observation, reward, terminated, truncated, _ = env.step(action)
        total += float(reward)
        done = terminated or truncated
    return total


def summary(points: list[float]) -> dict[str, object]:
    """Points per hand with a 95% normal interval, and the share of hands won (Wilson)."""
    values = np.array(points)
    half = 1.96 * values.std(ddof=1) / np.sqrt(len(values)) if len(values) > 1 else 0.0
    wins = int((values > 0).sum())
    mean = float(values.mean())
    return {"points": round(mean, 2),
            "points_95": (round(mean - half, 2), round(mean + half, 2)),
            "won": round(wins / len(values), 3), "won_95": wilson(wins, len(values))}


def evaluate_observation(policy: ObservationPolicy, opponent: str, hands: int,
                         seed: int = 0) -> dict[str, object]:
    """Greedy hands against the real computer player ``opponent`` (``GinRummyGym``, a
    random seat each hand), on the same deals as :func:`evaluate`."""
    env = GinRummyGym(opponents=opponent, seat=None)
    rng = np.random.default_rng(seed)
    return summary([play_observation_hand(env, policy, rng, 10_000_000 + i)
                    for i in range(hands)])


def evaluate_features(policy: LinearPolicy, opponent: str, hands: int,
                      seed: int = 0) -> dict[str, object]:
    """:func:`evaluate_observation` for the ten-feature policy."""
    env = GinRummyGym(opponents=opponent, seat=None)
    rng = np.random.default_rng(seed)
    return summary([play_hand(env, policy, rng, 10_000_000 + i, True)[0]
                    for i in range(hands)])


def main(argv: list[str] | None = None) -> None:
    """Train, evaluate, print the figures as JSON lines, write the PNG."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policy", choices=("observation", "features"), default="observation",
                        help="observation: the network on the whole observation, self-play on "
                             "the fast vector env; features: the ten-feature linear policy "
                             "against random on GinRummyGym")
    parser.add_argument("--hands", type=int, default=None,
                        help="training hands (default: 60,000 observation, 2,000 features)")
    parser.add_argument("--eval-every", type=int, default=None,
                        help="hands between evaluations (default: a fifth of --hands "
                             "observation, 250 features)")
    parser.add_argument("--eval-hands", type=int, default=200)
    parser.add_argument("--final-hands", type=int, default=0,
                        help="hands of a last evaluation against each opponent (0: none)")
    parser.add_argument("--lr", type=float, default=None,
                        help="learning rate (default: 0.003 observation, 0.01 features)")
    parser.add_argument("--num-envs", type=int, default=256)
    parser.add_argument("--rollout", type=int, default=32, help="vector steps per update")
    parser.add_argument("--against-random", type=float, default=0.5,
                        help="share of the vector's games where one seat plays uniformly "
                             "random ids (not learnt from); the rest is self-play")
    parser.add_argument("--against-knocker", type=float, default=0.0,
                        help="share of the games where one seat plays the policy but knocks "
                             "whenever it may (not learnt from), as simple does")
    parser.add_argument("--hidden", type=int, default=HIDDEN, help="hidden units")
    parser.add_argument("--neighbours", action="store_true",
                        help="add the neighbour planes of the agent's cards to the inputs")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--png", default=None, help="where to write the learning curve")
    args = parser.parse_args(argv)
    observation = args.policy == "observation"
    if args.hands is None:
        args.hands = 60_000 if observation else 2000
    if args.eval_every is None:
        args.eval_every = max(1, args.hands // 5) if observation else 250
    if args.lr is None:
        args.lr = 0.003 if observation else 0.01
    result = train_observation(args) if observation else train(args)
    out: dict[str, object] = {"policy": args.policy, "training_hands": args.hands,
                              "training_seconds": result["seconds"]}
    if observation:
        out["training_cpu_seconds"] = result["cpu_seconds"]
    else:
        out["theta"] = result["theta"]
    if args.final_hands:
        for opponent in ("random", "simple"):
            if observation:
                policy = result["policy"]
                assert isinstance(policy, ObservationPolicy)
                out[f"final_vs_{opponent}"] = evaluate_observation(policy, opponent,
                                                                   args.final_hands)
            else:
                linear = result["policy"]
                assert isinstance(linear, LinearPolicy)
                out[f"final_vs_{opponent}"] = evaluate_features(linear, opponent,
                                                                args.final_hands)
    refs = reference(args.eval_hands)
    out["reference"] = refs
    print(json.dumps(out))
    if args.png:
        try:
            plot(result, refs, args.png, args.policy)
        except ImportError:
            print("matplotlib is not installed: no PNG (pip install 'ginrummy[env]')")


if __name__ == "__main__":
    main()
