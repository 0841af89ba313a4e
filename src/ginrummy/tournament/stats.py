"""Confidence intervals and percentiles (standard library only).

The games of one duplicate deal share their cards, so they are not independent: the
tournament's intervals treat the *deal* as the unit of observation (see docs/tournament.md).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from statistics import NormalDist


def z_value(confidence: float = 0.95) -> float:
    """The two-sided normal quantile (1.959964 for 95%)."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def mean_interval(values: Sequence[float], confidence: float = 0.95
                  ) -> tuple[float, float | None, float | None]:
    """The mean and its normal interval ``mean +/- z * s / sqrt(n)`` (``s`` the sample
    standard deviation); the bounds are ``None`` with fewer than two values."""
    n = len(values)
    if n == 0:
        raise ValueError("no values")
    mean = math.fsum(values) / n
    if n < 2:
        return mean, None, None
    half = z_value(confidence) * statistics.stdev(values, mean) / math.sqrt(n)
    return mean, mean - half, mean + half


def ratio_interval(numerators: Sequence[float], denominators: Sequence[float],
                   confidence: float = 0.95) -> tuple[float, float | None, float | None]:
    """``sum(x) / sum(y)`` over clusters ``(x_i, y_i)`` and its normal interval by the delta
    method (the standard error of a ratio estimator: residuals ``x_i - r * y_i``)."""
    n = len(numerators)
    if n == 0 or n != len(denominators):
        raise ValueError("need as many numerators as denominators, at least one")
    total = math.fsum(denominators)
    if total <= 0:
        raise ValueError("the denominators add up to zero")
    ratio = math.fsum(numerators) / total
    if n < 2:
        return ratio, None, None
    residuals = math.fsum((x - ratio * y) ** 2 for x, y in zip(numerators, denominators,
                                                                strict=True))
    mean_y = total / n
    half = z_value(confidence) * math.sqrt(residuals / (n * (n - 1))) / mean_y
    return ratio, ratio - half, ratio + half


def wilson_interval(successes: float, trials: int, confidence: float = 0.95
                    ) -> tuple[float, float]:
    """The Wilson score interval of a proportion (ties may count as fractions)."""
    if trials < 1:
        raise ValueError("no trials")
    if not 0 <= successes <= trials:
        raise ValueError(f"{successes} successes out of {trials} trials")
    z = z_value(confidence)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    low = 0.0 if successes == 0 else max(0.0, centre - half)  # exact at the ends
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return low, high


def percentiles(values: Sequence[float], points: Sequence[int] = (50, 95, 99)
                ) -> dict[str, float]:
    """``{"p50": ..., ...}`` by linear interpolation between order statistics (the
    ``inclusive`` method, numpy's default); empty input gives an empty dict."""
    if not values:
        return {}
    if len(values) == 1:
        return {f"p{p}": float(values[0]) for p in points}
    cuts = statistics.quantiles(values, n=100, method="inclusive")
    return {f"p{p}": cuts[p - 1] for p in points}
