"""examples/train_linear.py learns: after a few hundred hands it beats random clearly."""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_linear_agent_learns_to_beat_random() -> None:
    spec = importlib.util.spec_from_file_location("train_linear",
                                                  ROOT / "examples/train_linear.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    args = argparse.Namespace(hands=300, eval_every=300, eval_hands=40, lr=0.01, seed=1)
    result = module.train(args)
    first, last = result["curve"][0], result["curve"][-1]
    assert abs(first["vs_random"]) < 15          # untrained: a random player
    assert last["vs_random"] > 25                # trained: wins clearly against random
    assert last["vs_simple"] > first["vs_simple"] + 15


def test_the_untrained_greedy_agent_plays_uniformly_among_the_legal_ids() -> None:
    """Zero weights make every legal id equally likely: the greedy evaluation then picks
    among them at random (it used to take the lowest id and never knock)."""
    import numpy as np

    from ginrummy.env import GinRummyGym

    spec = importlib.util.spec_from_file_location("train_linear",
                                                  ROOT / "examples/train_linear.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    policy = module.LinearPolicy()
    game = GinRummyGym(opponents="random", seat=0)
    rng = np.random.default_rng(0)
    picks = []
    for seed in range(20):
        _, decisions = module.play_hand(game, policy, rng, seed, True)
        picks += [d[1] for d in decisions if len(d[0]) > 2]
    assert len(picks) > 100 and np.mean([p == 0 for p in picks]) < 0.5
    assert module.wilson(50, 100) == (0.404, 0.596)


def test_the_learning_curve_is_drawn_with_the_env_extra(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """``--png`` writes the learning curve (matplotlib comes with the ``env`` extra, which
    declares it: pyproject.toml), never "matplotlib is not installed"."""
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    assert any(dep.startswith("matplotlib") for dep in extras["env"])
    spec = importlib.util.spec_from_file_location("train_linear",
                                                  ROOT / "examples/train_linear.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    png = tmp_path / "curve.png"
    module.main(["--hands", "20", "--eval-every", "10", "--eval-hands", "4", "--png", str(png)])
    assert "not installed" not in capsys.readouterr().out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _example() -> Any:
    spec = importlib.util.spec_from_file_location("train_linear",
                                                  ROOT / "examples/train_linear.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.soak  # 3,000 hands of training (volume): scripts/soak, in .ci/run
def test_a_short_run_of_the_observation_policy_beats_its_untrained_self() -> None:
    """3,000 hands on the fast vector env (half the games against uniform random ids, seed
    1) take the greedy network from about 0 points a hand against random (it starts uniform
    over the legal ids) to well above: about +25 here, on the same deals before and after."""
    from ginrummy.env.fast_vector import numba_available

    if not numba_available():
        pytest.skip("the observation policy trains on the fast vector env: needs numba")
    module = _example()
    untrained = module.ObservationPolicy(1)
    before = module.against_random_fast(untrained, 1500, seed=3)
    result = module.train_observation(argparse.Namespace(
        hands=3000, num_envs=128, rollout=16, lr=0.01, seed=1, eval_every=0, eval_hands=0,
        against_random=0.5))
    after = module.against_random_fast(result["policy"], 1500, seed=3)
    assert abs(before) < 5
    assert after > before + 15
    assert result["hands"] >= 3000 and result["history"][-1]["entropy"] < 1.4
