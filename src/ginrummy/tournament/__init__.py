"""Duplicate tournaments between bots: ``run_tournament(TournamentConfig) -> TournamentResult``.

Every deal (deck orders, reshuffles, first dealer, bot seeds) is played once per seat
rotation, so each player holds every seat's cards; statistics treat the deal as the unit.
See docs/tournament.md.
"""

from __future__ import annotations

import time

from ginrummy.tournament.backends import RAY_INSTALL, BackendUnavailable, Progress, run_games
from ginrummy.tournament.core import (
    Backend,
    GameResult,
    TournamentConfig,
    Unit,
    play_deal,
    play_game,
)
from ginrummy.tournament.result import PlayerStats, TournamentResult


def run_tournament(config: TournamentConfig, progress: Progress | None = None
                   ) -> TournamentResult:
    """Play every game of ``config``; ``progress(games)`` is called as games finish."""
    start = time.perf_counter()
    games = run_games(config, progress)
    return TournamentResult(config, tuple(games), time.perf_counter() - start)


__all__ = [
    "RAY_INSTALL",
    "Backend",
    "BackendUnavailable",
    "GameResult",
    "PlayerStats",
    "TournamentConfig",
    "TournamentResult",
    "Unit",
    "play_deal",
    "play_game",
    "run_tournament",
]
