"""Confidence intervals: Wilson for shares, Student t for means, Tango's score interval for paired shares.

Every interval of the tournaments' reports (``experiments.common.summary``), of the training scripts'
evaluations, of ``experiments.compare``, and the reasoning benchmark's where a share is 0 or 1
(``cluedo_env.reasoning.score``), is one of these, at 95% by default (``Z95``).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

import numpy as np

__all__ = ["Z95", "mean_interval", "paired_difference_interval", "student_t_quantile", "wilson_interval"]

Z95 = 1.959963984540054  # standard normal quantile at 0.975: two-sided 95%


def wilson_interval(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion (Wilson 1927).

    With ``p = successes / trials`` and ``n = trials``::

        centre = (p + z^2 / 2n) / (1 + z^2 / n)
        half   = z / (1 + z^2 / n) * sqrt(p (1 - p) / n + z^2 / 4n^2)

    Unlike the normal ("Wald") interval it stays inside [0, 1] and keeps its
    coverage near 0 and 1 and for small ``n``. ``trials = 0`` gives ``(0, 1)``.

    Args:
        successes: Number of successes, ``0 <= successes <= trials``.
        trials: Number of trials.
        z: Normal quantile of the confidence level (1.96 for 95%).
    """
    if not 0 <= successes <= trials:
        raise ValueError(f"need 0 <= successes <= trials, got {successes} of {trials}")
    if trials == 0:
        return 0.0, 1.0
    p, n = successes / trials, trials
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    # The bounds are exactly 0 and 1 at no success and all successes (rounding aside).
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return low, high


def student_t_quantile(df: int, z: float = Z95) -> float:
    """Two-sided Student t quantile matching the normal quantile ``z`` (1.96 -> 97.5%).

    Exact for ``df`` 1 and 2; above, the Cornish-Fisher expansion of
    Abramowitz & Stegun 26.7.5 (within 0.005 of the tables from ``df = 3``).
    """
    if df < 1:
        raise ValueError(f"df must be >= 1, got {df}")
    p = 0.5 * (1 + math.erf(z / math.sqrt(2)))
    if df == 1:
        return math.tan(math.pi * (p - 0.5))
    if df == 2:
        return (2 * p - 1) * math.sqrt(2 / (4 * p * (1 - p)))
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    return z + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4


def mean_interval(values: Sequence[float], z: float = Z95) -> tuple[float, float, float]:
    """Mean and its Student t interval ``mean -/+ t * sd / sqrt(n)``; NaN bounds below 2 values, and where
    every value is the same (no spread to estimate one from: a point would read as certainty). For the
    difference of two paired win rates, whose values are -1, 0 and 1, ``paired_difference_interval``."""
    n = len(values)
    if n == 0:
        return math.nan, math.nan, math.nan
    mean = float(np.mean(values))
    sd = float(np.std(values, ddof=1)) if n > 1 else 0.0
    if n < 2 or sd == 0:
        return mean, math.nan, math.nan
    half = student_t_quantile(n - 1, z) * sd / math.sqrt(n)
    return mean, mean - half, mean + half


def _tango_z(only_b: int, only_a: int, n: int, delta: float) -> float:
    """Tango's score statistic of ``only_b`` and ``only_a`` discordant pairs of ``n`` at the difference ``delta``.

    ``(only_b - only_a - n * delta) / sqrt(n * (2 q + delta * (1 - delta)))``, where ``q`` is the maximum-likelihood
    chance that only A wins given the difference ``delta`` (the larger root of
    ``2n q^2 + (-only_b - only_a + (2n - only_b + only_a) delta) q - only_a delta (1 - delta) = 0``). Falls as
    ``delta`` grows; infinite where the variance is 0 and the counts are not those of ``delta``.
    """
    b = -only_b - only_a + (2 * n - only_b + only_a) * delta
    c = -only_a * delta * (1 - delta)
    q = (math.sqrt(max(0.0, b * b - 8 * n * c)) - b) / (4 * n)
    variance = n * (2 * q + delta * (1 - delta))
    numerator = only_b - only_a - n * delta
    if variance <= 0 or numerator == 0:
        return 0.0 if numerator == 0 else math.copysign(math.inf, numerator)
    return numerator / math.sqrt(variance)


def paired_difference_interval(
    both: int, only_a: int, only_b: int, neither: int, z: float = Z95
) -> tuple[float, float, float]:
    """Difference of two paired shares, B's minus A's, with Tango's score interval (Tango 1998).

    The counts are those of the 2x2 table of ``n`` pairs (a pair: the same deal played by A and by B): both
    won, only A won, only B won, neither won. The difference is ``(only_b - only_a) / n``. The interval is
    every difference ``delta`` the score test does not reject: ``|Z(delta)| <= z``, with ::

        Z(delta) = (only_b - only_a - n delta) / sqrt(n (2 q + delta (1 - delta)))

    where ``q`` is the maximum-likelihood chance of "only A won" among tables whose difference is ``delta``
    (a closed form; Tango, Statistics in Medicine 17:891, 1998). ``Z(0)`` is McNemar's statistic
    ``(only_b - only_a) / sqrt(only_b + only_a)``, so the interval leaves out 0 where McNemar's test (without
    continuity correction) rejects. The bounds are found by bisection and lie within [-1, 1]; the interval
    has a width wherever ``n > 0``: with no discordant pair it is ``-/+ z^2 / (n + z^2)`` (12 pairs all tied:
    -/+ 24.2 points), with every pair won by B alone its upper bound is 1. Unlike the Student t interval
    of the mean of the pairs' differences it keeps its coverage near 95% for few pairs and few discordant
    ones. ``n = 0`` gives a NaN difference and ``(-1, 1)``.

    Args:
        both: Pairs both won (a whole number >= 0, as are the three counts after it).
        only_a: Pairs only A won.
        only_b: Pairs only B won.
        neither: Pairs neither won.
        z: Normal quantile of the confidence level (1.96 for 95%).

    Returns:
        ``(difference, low, high)`` as fractions (not percent).
    """
    counts = {"both": both, "only_a": only_a, "only_b": only_b, "neither": neither}
    for name, value in counts.items():
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
            raise ValueError(f"{name} must be a whole number >= 0 (a count of pairs), got {value!r}")
    if not z > 0:
        raise ValueError(f"z must be a normal quantile > 0 (1.96 for 95%), got {z!r}")
    n = both + only_a + only_b + neither
    if n == 0:
        return math.nan, -1.0, 1.0
    difference = (only_b - only_a) / n

    def bound(inside: float, outside: float) -> float:
        """The edge between ``inside`` (not rejected) and ``outside`` (rejected, or the end of [-1, 1])."""
        if abs(_tango_z(only_b, only_a, n, outside)) <= z:
            return outside
        for _ in range(64):  # the interval halves each step: far below a double's resolution of [-1, 1]
            middle = (inside + outside) / 2
            if abs(_tango_z(only_b, only_a, n, middle)) <= z:
                inside = middle
            else:
                outside = middle
        return inside

    return difference, bound(difference, -1.0), bound(difference, 1.0)
