"""Confidence intervals: Wilson for shares, Student t for means.

Every interval of the tournaments' reports (``experiments.common.summary``), of the training scripts'
evaluations, and the reasoning benchmark's where a share is 0 or 1 (``cluedo_env.reasoning.score``),
is one of these, at 95% by default (``Z95``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = ["Z95", "mean_interval", "student_t_quantile", "wilson_interval"]

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
    every value is the same (no spread to estimate one from: a point would read as certainty, as twelve
    paired games all tied, or six all won by one side, would)."""
    n = len(values)
    if n == 0:
        return math.nan, math.nan, math.nan
    mean = float(np.mean(values))
    sd = float(np.std(values, ddof=1)) if n > 1 else 0.0
    if n < 2 or sd == 0:
        return mean, math.nan, math.nan
    half = student_t_quantile(n - 1, z) * sd / math.sqrt(n)
    return mean, mean - half, mean + half
