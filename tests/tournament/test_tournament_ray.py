"""The Ray backend on a local Ray (2 CPUs) gives exactly the local backend's result."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import replace

import pytest
from tournament_helpers import CliRun, deterministic

from ginrummy.rules import Ruleset
from ginrummy.tournament import Backend, TournamentConfig, run_tournament

ray = pytest.importorskip("ray")


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    """One local Ray for the module's tests."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()



def test_ray_equals_local(local_ray: None) -> None:
    local = TournamentConfig(("simple", "random"), Ruleset.preset("eaai"), deals=10, seed=21)
    on_ray = replace(local, backend=Backend.RAY, jobs=2)
    seen: list[int] = []
    ray_result = run_tournament(on_ray, seen.append)
    assert sum(seen) == 20  # every game reported to the progress callback
    assert ray.is_initialized()  # a session it did not start is left running
    local_result = run_tournament(local)
    assert ray_result.games == local_result.games
    assert deterministic(ray_result.to_dict()) == deterministic(local_result.to_dict())
    assert ray_result.to_dict()["settings"]["backend"] == "ray"


def test_cli_ray_backend(local_ray: None, cli: Callable[..., CliRun]) -> None:
    argv = ("tournament", "--players", "simple,random,simple", "--preset", "arena",
            "--matches", "4", "--seed", "8", "--json", "--no-progress")
    on_ray = cli(*argv, "--backend", "ray")
    assert on_ray.code == 0, on_ray.err
    local = cli(*argv)
    assert deterministic(json.loads(on_ray.out)) == deterministic(json.loads(local.out))
