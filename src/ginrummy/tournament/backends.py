"""Where the deals are played: this process, a pool of local processes, or a Ray cluster.

Every deal is a pure function of the configuration and its index, so the backends only split
the deals into chunks and put the games back in order: the result is the same whatever the
backend and the number of jobs.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any

import ginrummy
from ginrummy.extras import install_hint
from ginrummy.tournament.core import Backend, GameResult, TournamentConfig, play_deal, play_deals

Progress = Callable[[int], None]
"""``progress(games)``: called as games finish, with how many just finished."""

RAY_INSTALL = install_hint("ray")


class BackendUnavailable(ValueError):
    """The backend asked for cannot run here (e.g. Ray is not installed)."""


def chunk_deals(deals: int, workers: int, per_worker: int = 8) -> list[range]:
    """Deals split into contiguous chunks, about ``per_worker`` chunks per worker (for load
    balancing and a smooth progress bar), at most 64 deals per chunk."""
    if deals < 1 or workers < 1:
        raise ValueError("need at least one deal and one worker")
    size = max(1, min(64, -(-deals // (workers * per_worker))))
    return [range(start, min(deals, start + size)) for start in range(0, deals, size)]


def run_games(config: TournamentConfig, progress: Progress | None = None) -> list[GameResult]:
    """Every game of the tournament on the configured backend, ordered by deal and rotation."""
    report = progress or _ignore
    if config.backend is Backend.RAY:
        return run_ray(config, report)
    if config.jobs == 1:
        games: list[GameResult] = []
        for deal in range(config.deals):
            for game in play_deal(config, deal):
                games.append(game)
                report(1)
        return games
    return run_processes(config, report)


def run_processes(config: TournamentConfig, progress: Progress) -> list[GameResult]:
    """The deals on ``config.jobs`` local processes."""
    chunks = chunk_deals(config.deals, config.jobs)
    results: dict[int, list[GameResult]] = {}
    with ProcessPoolExecutor(max_workers=min(config.jobs, len(chunks))) as pool:
        pending: dict[Future[list[GameResult]], int] = {
            pool.submit(play_deals, config, chunk): chunk.start for chunk in chunks}
        try:
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    start = pending.pop(future)
                    results[start] = future.result()
                    progress(len(results[start]))
        except BaseException:  # Ctrl-C, or a game failed: stop the workers now
            _stop_workers(pool)
            raise
    return _in_order(results)


def _stop_workers(pool: ProcessPoolExecutor) -> None:
    """Cancel the queued chunks and terminate the running ones (``shutdown`` alone would wait
    for the chunks already handed to the workers)."""
    terminate = getattr(pool, "terminate_workers", None)  # Python 3.14+
    if terminate is not None:
        terminate()
        return
    # before 3.14: the pool's own process list (shutdown forgets it, so read it first)
    processes: list[Any] = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.terminate()


def import_ray() -> Any:
    """The ``ray`` module, or :class:`BackendUnavailable` saying how to install it."""
    try:
        return importlib.import_module("ray")
    except ImportError:
        raise BackendUnavailable(
            f"--backend ray needs Ray, which is not installed: {RAY_INSTALL}") from None


def run_ray(config: TournamentConfig, progress: Progress) -> list[GameResult]:
    """The deals as Ray tasks: on the running Ray session if there is one, else on the cluster
    at ``config.ray_address`` (ginrummy shipped to it as a ``py_module``), else on a new local
    Ray with ``config.jobs`` CPUs, shut down afterwards."""
    ray = import_ray()
    started = False
    if not ray.is_initialized():
        if config.ray_address:
            ray.init(address=config.ray_address, log_to_driver=False, logging_level=logging.WARNING,
                     runtime_env={"py_modules": [str(Path(ginrummy.__file__).parent)]})
        else:
            ray.init(num_cpus=config.jobs, include_dashboard=False, log_to_driver=False,
                     logging_level=logging.WARNING)
        started = True
    try:
        cpus = max(1, int(ray.cluster_resources().get("CPU", config.jobs)))
        task = ray.remote(num_cpus=1)(play_deals)
        chunks = chunk_deals(config.deals, cpus)
        pending = {task.remote(config, list(chunk)): chunk.start for chunk in chunks}
        results: dict[int, list[GameResult]] = {}
        try:
            while pending:
                done, _ = ray.wait(list(pending), num_returns=1)
                for ref in done:
                    start = pending.pop(ref)
                    results[start] = ray.get(ref)
                    progress(len(results[start]))
        except BaseException:
            for ref in pending:
                ray.cancel(ref)
            raise
    finally:
        if started:
            ray.shutdown()
    return _in_order(results)


def _in_order(results: dict[int, list[GameResult]]) -> list[GameResult]:
    return [game for start in sorted(results) for game in results[start]]


def _ignore(games: int) -> None:
    """No progress report."""


__all__ = ["RAY_INSTALL", "BackendUnavailable", "Progress", "chunk_deals", "import_ray",
           "run_games", "run_processes", "run_ray"]
