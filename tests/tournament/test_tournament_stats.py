"""The statistics on known inputs: intervals, percentiles, and the per-deal aggregation."""

from __future__ import annotations

import math

import pytest

from ginrummy.rules import Ruleset
from ginrummy.tournament import GameResult, TournamentConfig, TournamentResult
from ginrummy.tournament.core import COUNTS
from ginrummy.tournament.stats import (
    mean_interval,
    percentiles,
    ratio_interval,
    wilson_interval,
    z_value,
)


def test_z_value() -> None:
    assert z_value(0.95) == pytest.approx(1.959964, abs=1e-6)
    assert z_value(0.99) == pytest.approx(2.575829, abs=1e-6)
    with pytest.raises(ValueError, match="confidence"):
        z_value(1.0)


def test_mean_interval() -> None:
    mean, low, high = mean_interval([0.0, 1.0, 0.0, 1.0])
    half = 1.959964 * math.sqrt(1 / 3) / 2  # sample sd sqrt(1/3), n = 4
    assert mean == 0.5
    assert low == pytest.approx(0.5 - half, abs=1e-6)
    assert high == pytest.approx(0.5 + half, abs=1e-6)
    assert mean_interval([3.0]) == (3.0, None, None)
    assert mean_interval([2.0, 2.0, 2.0]) == (2.0, 2.0, 2.0)
    with pytest.raises(ValueError):
        mean_interval([])


def test_wilson_interval() -> None:
    low, high = wilson_interval(5, 10)
    assert (low, high) == (pytest.approx(0.236593, abs=1e-6), pytest.approx(0.763407, abs=1e-6))
    low, high = wilson_interval(0, 20)
    assert low == 0.0 and high == pytest.approx(0.161125, abs=1e-6)
    low, high = wilson_interval(81, 100)
    # by hand: centre (0.81 + z²/200) / (1 + z²/100) = 0.79853, half-width 0.07632
    assert (low, high) == (pytest.approx(0.722212, abs=1e-5), pytest.approx(0.874852, abs=1e-5))
    assert wilson_interval(20, 20)[1] == 1.0
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


def test_ratio_interval() -> None:
    # every cluster has the same ratio: no uncertainty
    assert ratio_interval([2.0, 4.0, 6.0], [1.0, 2.0, 3.0]) == (2.0, 2.0, 2.0)
    # equal denominators: the ordinary mean interval of x / y
    ratio, low, high = ratio_interval([1.0, 3.0, 2.0, 6.0], [2.0, 2.0, 2.0, 2.0])
    mean, m_low, m_high = mean_interval([0.5, 1.5, 1.0, 3.0])
    assert ratio == mean == 1.5
    assert (low, high) == (pytest.approx(m_low), pytest.approx(m_high))
    # hand computation: r = 12 / 6 = 2, residuals 4-2*1=2, 2-2*2=-2, 6-2*3=0
    ratio, low, high = ratio_interval([4.0, 2.0, 6.0], [1.0, 2.0, 3.0])
    half = 1.959964 * math.sqrt(8 / 6) / 2
    assert ratio == 2.0 and high == pytest.approx(2.0 + half, abs=1e-6)
    assert ratio_interval([5.0], [2.0]) == (2.5, None, None)


def test_percentiles() -> None:
    values = [float(v) for v in range(1, 102)]  # 1..101
    assert percentiles(values) == {"p50": 51.0, "p95": 96.0, "p99": 100.0}
    assert percentiles([4.0, 2.0]) == {"p50": 3.0, "p95": pytest.approx(3.9),
                                        "p99": pytest.approx(3.98)}
    assert percentiles([7.0]) == {"p50": 7.0, "p95": 7.0, "p99": 7.0}
    assert percentiles([]) == {}


def _game(deal: int, rotation: int, winner: int | None, points: tuple[int, int],
          hands: int) -> GameResult:
    zero = (0, 0)
    return GameResult(deal=deal, rotation=rotation, seats=(rotation, 1 - rotation),
                      first_dealer=0, winner=winner, hands=hands, scores=points, points=points,
                      counts={name: zero for name in COUNTS}
                      | {"gin": (hands, 0), "undercut_suffered": (0, 1)},
                      outcomes={"gin": hands}, decisions=(3, 3),
                      latencies=((0.001, 0.002, 0.003), (0.004, 0.004, 0.004)))


def test_player_stats_use_the_deal_as_the_unit() -> None:
    config = TournamentConfig(("simple", "random"), Ruleset.preset("eaai"), deals=2, seed=1)
    games = (
        _game(0, 0, 0, (100, 20), 4), _game(0, 1, 0, (110, 90), 6),  # player 0 wins both
        _game(1, 0, 1, (50, 100), 5), _game(1, 1, 0, (100, 0), 5),   # one each
    )
    result = TournamentResult(config, games, seconds=2.0)
    first, second = result.player_stats()
    assert first.win_rate == 0.75 and first.wins == 3.0 and first.games == 4
    half = 1.959964 * math.sqrt(0.125) / math.sqrt(2)  # sd of the deal scores [1, 0.5]
    assert first.win_rate_ci[0] == pytest.approx(0.75 - half, abs=1e-6)
    assert first.win_rate_ci[1] == 1.0  # clamped
    assert second.win_rate == 0.25 and second.win_rate_ci[0] == 0.0
    assert first.win_rate_wilson == pytest.approx(wilson_interval(3, 4))
    # net points: deal 0: (100-20)+(110-90)=100 over 10 hands; deal 1: -50+100=50 over 10
    assert first.points_per_hand == pytest.approx(150 / 20)
    assert second.points_per_hand == pytest.approx(-150 / 20)
    assert first.hands == 20
    assert first.rates()["gin"] == 1.0 and second.rates()["undercut_suffered"] == 0.2
    assert result.hands_per_game()[0] == 5.0
    latency = result.latency_ms()
    assert latency[0]["decisions"] == 12 and latency[0]["p50"] == pytest.approx(2.0)
    assert latency[1]["p99"] == pytest.approx(4.0)
    assert result.games_per_second() == 2.0


def test_a_game_without_winner_is_a_tie() -> None:
    config = TournamentConfig(("simple", "random"), Ruleset.preset("eaai"), deals=1, seed=1)
    result = TournamentResult(config, (_game(0, 0, None, (0, 0), 1),
                                       _game(0, 1, 1, (0, 30), 1)), seconds=1.0)
    first, second = result.player_stats()
    assert first.wins == 0.5 and second.wins == 1.5
    assert first.win_rate_ci == (None, None)  # one deal: no interval
