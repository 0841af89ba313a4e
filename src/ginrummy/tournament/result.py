"""What a tournament measured: per-player statistics, the JSON report and a text summary."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ginrummy import __version__
from ginrummy.scoring import Outcome
from ginrummy.tournament.core import COUNTS, GameResult, TournamentConfig, Unit
from ginrummy.tournament.stats import mean_interval, percentiles, ratio_interval, wilson_interval

SCHEMA = "ginrummy.tournament/1"
CONFIDENCE = 0.95
Interval = tuple[float | None, float | None]


@dataclass(frozen=True)
class PlayerStats:
    """One player's figures over the whole tournament.

    ``wins`` counts a game without a winner (a void hand in ``hand`` mode) as ``1/n`` for each
    player. ``win_rate_ci`` is the normal interval over the per-deal mean scores (the deal is
    the independent unit); ``win_rate_wilson`` treats the games as independent, for reference.
    ``points_per_hand`` is net: the player's points minus the mean of the others', per hand,
    void hands included; its interval is the ratio estimator's over the deals.
    """

    player: int
    spec: str
    name: str
    budget_ms: float | None
    games: int
    wins: float
    win_rate: float
    win_rate_ci: Interval
    win_rate_wilson: tuple[float, float]
    hands: int
    points_per_hand: float
    points_per_hand_ci: Interval
    counts: dict[str, int]
    decisions: int

    def rates(self) -> dict[str, float]:
        """Each count of :data:`~ginrummy.tournament.core.COUNTS` per hand."""
        return {name: count / self.hands for name, count in self.counts.items()}

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values."""
        return {
            "player": self.player,
            "spec": self.spec,
            "name": self.name,
            "budget_ms": self.budget_ms,
            "games": self.games,
            "wins": self.wins,
            "win_rate": self.win_rate,
            "win_rate_ci": list(self.win_rate_ci),
            "win_rate_wilson": list(self.win_rate_wilson),
            "hands": self.hands,
            "points_per_hand": self.points_per_hand,
            "points_per_hand_ci": list(self.points_per_hand_ci),
            "counts": dict(self.counts),
            "rates": self.rates(),
            "decisions": self.decisions,
        }


@dataclass(frozen=True)
class TournamentResult:
    """Every game of a tournament (ordered by deal, then rotation) and the wall time."""

    config: TournamentConfig
    games: tuple[GameResult, ...]
    seconds: float

    def deal_games(self) -> list[list[GameResult]]:
        """The games grouped by deal."""
        n = self.config.seats
        return [list(self.games[i:i + n]) for i in range(0, len(self.games), n)]

    def player_stats(self) -> list[PlayerStats]:
        """The statistics of every player."""
        return [self._stats_of(player) for player in range(self.config.seats)]

    def _stats_of(self, player: int) -> PlayerStats:
        config = self.config
        n = config.seats
        deal_scores: list[float] = []
        deal_points: list[float] = []
        deal_hands: list[float] = []
        for games in self.deal_games():
            deal_scores.append(math.fsum(_win_share(g, player, n) for g in games) / len(games))
            deal_points.append(math.fsum(_net_points(g, player, n) for g in games))
            deal_hands.append(sum(g.hands for g in games))
        win_rate, low, high = mean_interval(deal_scores, CONFIDENCE)
        played = len(self.games)
        wins = math.fsum(_win_share(g, player, n) for g in self.games)
        per_hand, p_low, p_high = ratio_interval(deal_points, deal_hands, CONFIDENCE)
        return PlayerStats(
            player=player,
            spec=config.players[player],
            name=config.player_name(player),
            budget_ms=config.budgets[player],
            games=played,
            wins=wins,
            win_rate=win_rate,
            win_rate_ci=(_clamp(low), _clamp(high)),
            win_rate_wilson=wilson_interval(wins, played, CONFIDENCE),
            hands=sum(g.hands for g in self.games),
            points_per_hand=per_hand,
            points_per_hand_ci=(p_low, p_high),
            counts={name: sum(g.counts[name][player] for g in self.games) for name in COUNTS},
            decisions=sum(g.decisions[player] for g in self.games),
        )

    def hands_per_game(self) -> tuple[float, float | None, float | None]:
        """The mean number of hands per game and its interval over the deals."""
        return mean_interval([sum(g.hands for g in games) / len(games)
                              for games in self.deal_games()], CONFIDENCE)

    def outcomes(self) -> dict[str, int]:
        """How many hands ended each way, over the whole tournament."""
        return {o.value: sum(g.outcomes[o.value] for g in self.games) for o in Outcome}

    def latency_ms(self) -> list[dict[str, float]]:
        """Per player: decisions, p50 / p95 / p99, mean and max of ``choose`` in ms."""
        out = []
        for player in range(self.config.seats):
            times = sorted(t * 1000 for g in self.games for t in g.latencies[player])
            entry: dict[str, float] = {"decisions": len(times)}
            if times:
                entry.update(percentiles(times))
                entry["mean"] = math.fsum(times) / len(times)
                entry["max"] = times[-1]
            out.append(entry)
        return out

    # ------------------------------------------------------------- report
    def to_dict(self) -> dict[str, Any]:
        """Everything as plain JSON values; wall-clock figures only under ``timing``."""
        config = self.config
        mean_hands, h_low, h_high = self.hands_per_game()
        return {
            "schema": SCHEMA,
            "version": __version__,
            "settings": {
                "players": [{"spec": spec, "name": config.player_name(p),
                             "budget_ms": config.budgets[p]}
                            for p, spec in enumerate(config.players)],
                "unit": config.unit.value,
                "deals": config.deals,
                "rotations": config.seats,
                "games": config.games,
                "seed": config.seed,
                "budget_ms": config.budget_ms,
                "jobs": config.jobs,
                "backend": config.backend.value,
                "preset": config.rules.name,
                "ruleset": config.rules.to_dict(),
                "confidence": CONFIDENCE,
            },
            "players": [stats.to_dict() for stats in self.player_stats()],
            "hands_per_game": {"mean": mean_hands, "ci": [h_low, h_high]},
            "outcomes": self.outcomes(),
            "deals": [{"deal": games[0].deal, "first_dealer": games[0].first_dealer,
                       "games": [g.to_dict() for g in games]} for games in self.deal_games()],
            "timing": {
                "seconds": self.seconds,
                "games_per_second": self.games_per_second(),
                "latency_ms": self.latency_ms(),
            },
        }

    def games_per_second(self) -> float | None:
        """Throughput of the run."""
        return len(self.games) / self.seconds if self.seconds > 0 else None

    def summary_lines(self) -> list[str]:
        """A table for people."""
        config = self.config
        unit = "matches" if config.unit is Unit.MATCH else "hands"
        arrangement = "seats swapped" if config.seats == 2 else f"{config.seats} seat rotations"
        rate = self.games_per_second()
        lines = [
            f"{config.rules.name}: {config.deals} duplicate {unit} ({arrangement}) = "
            f"{config.games} games, seed {config.seed}, "
            f"{self.seconds:.1f} s" + (f" ({rate:.1f} games/s)" if rate else ""),
            "",
            f"{'player':<16} {'win rate [95% CI]':<24} {'points/hand [95% CI]':<26} "
            f"{'gin':>6} {'knock':>6} {'undercut':>8} {'undercut':>8}",
            f"{'':<16} {'':<24} {'':<26} {'':>6} {'':>6} {'won':>8} {'suffered':>8}",
        ]
        labels = _labels(config.players)
        for stats, label in zip(self.player_stats(), labels, strict=True):
            rates = stats.rates()
            win = f"{100 * stats.win_rate:5.1f}% {_bracket(stats.win_rate_ci, 100, '%')}"
            points = f"{stats.points_per_hand:+7.2f} {_bracket(stats.points_per_hand_ci, 1, '')}"
            lines.append(f"{label:<16} {win:<24} {points:<26} "
                         f"{_pct(rates['gin']):>6} {_pct(rates['knock']):>6} "
                         f"{_pct(rates['undercut']):>8} {_pct(rates['undercut_suffered']):>8}")
        mean_hands, _, _ = self.hands_per_game()
        outcomes = self.outcomes()
        hands = sum(outcomes.values())
        lines += [
            "",
            f"hands per {'match' if config.unit is Unit.MATCH else 'game'}: {mean_hands:.2f}; "
            f"void hands: {_pct(outcomes['void'] / hands)} of {hands}",
            "",
            f"{'decision latency':<16} {'decisions':>10} {'p50 ms':>9} {'p95 ms':>9} "
            f"{'p99 ms':>9}",
        ]
        for entry, label in zip(self.latency_ms(), labels, strict=True):
            if not entry["decisions"]:
                lines.append(f"{label:<16} {0:>10}")
                continue
            lines.append(f"{label:<16} {int(entry['decisions']):>10} {entry['p50']:>9.3f} "
                         f"{entry['p95']:>9.3f} {entry['p99']:>9.3f}")
        return lines


def _win_share(game: GameResult, player: int, n: int) -> float:
    if game.winner is None:
        return 1 / n
    return 1.0 if game.winner == player else 0.0


def _net_points(game: GameResult, player: int, n: int) -> float:
    """The player's points minus the mean of the others' (zero-sum over the players)."""
    own = game.points[player]
    return own - (sum(game.points) - own) / (n - 1)


def _clamp(value: float | None) -> float | None:
    return None if value is None else min(1.0, max(0.0, value))


def _pct(value: float) -> str:
    return f"{100 * value:.1f}%"


def _bracket(interval: Interval, scale: float, suffix: str) -> str:
    low, high = interval
    if low is None or high is None:
        return "[n/a]"
    digits = 1 if suffix else 2
    return f"[{scale * low:.{digits}f}, {scale * high:.{digits}f}]{suffix}"


def _labels(specs: Sequence[str]) -> list[str]:
    """Player labels, numbered when a spec appears more than once."""
    return [spec if specs.count(spec) == 1 else f"{spec} #{i + 1}"
            for i, spec in enumerate(specs)]
