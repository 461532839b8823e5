"""cluedo_env.intervals.paired_difference_interval: Tango's score interval of two paired win rates.

``experiments.compare`` gives the difference of two runs' win rates on the same deals with it. Checked
here against the score test written out another way, by its exact coverage, and on degenerate tables.
"""

from __future__ import annotations

import math

import pytest

from cluedo_env.intervals import Z95, mean_interval, paired_difference_interval


def score_statistic(only_b: int, only_a: int, n: int, delta: float) -> float:
    """Tango's squared score statistic at ``delta``, written independently of the module's closed form.

    The chance ``q`` that only A wins, given that only B wins with chance ``q + delta``, is found by
    maximising the log-likelihood numerically (ternary search: it is concave in ``q``), not by the
    quadratic's root. The statistic is ``(observed - expected)^2 / variance`` of ``only_b - only_a``.
    """

    def log_likelihood(q: float) -> float:
        total = 0.0
        for count, chance in ((only_b, q + delta), (only_a, q), (n - only_b - only_a, 1 - 2 * q - delta)):
            if count:
                total += count * math.log(chance) if chance > 0 else -math.inf
        return total

    low, high = max(0.0, -delta), (1 - delta) / 2  # every chance within [0, 1]
    for _ in range(200):
        left, right = low + (high - low) / 3, high - (high - low) / 3
        if log_likelihood(left) < log_likelihood(right):
            low = left
        else:
            high = right
    q = (low + high) / 2
    variance = n * ((2 * q + delta) - delta**2)  # Var(only_b - only_a) under the fitted chances
    return (only_b - only_a - n * delta) ** 2 / variance


def trinomial(n: int, only_b: float, only_a: float):
    """Every (only B won, only A won) count of ``n`` pairs with its exact chance."""
    tied = 1 - only_b - only_a
    for b in range(n + 1):
        for a in range(n - b + 1):
            chance = math.comb(n, b) * math.comb(n - b, a) * only_b**b * only_a**a * tied ** (n - a - b)
            yield b, a, chance


def test_the_reviewers_tables_stay_within_plus_minus_100_points():
    """The t interval gave +90.0 [+67.4, +112.6] for 9 of 10 pairs won by B alone, [-76.8, +210.1] for 2 of 3."""
    for only_b, n in [(1, 2), (2, 3), (4, 5), (9, 10), (19, 20), (29, 30), (3, 3), (10, 10)]:
        difference, low, high = paired_difference_interval(0, 0, only_b, n - only_b)
        assert -1 <= low <= difference <= high <= 1, (only_b, n)
        assert difference == only_b / n
        _, t_low, t_high = mean_interval([1] * only_b + [0] * (n - only_b))
        if not math.isnan(t_low):  # the control: the t interval went past 100 points
            assert t_high > 1, (only_b, n)
    assert paired_difference_interval(0, 0, 9, 1)[1:] == pytest.approx((0.37268768, 0.98212379))
    for n in range(1, 13):  # every table of up to 12 pairs
        for only_b in range(n + 1):
            for only_a in range(n - only_b + 1):
                difference, low, high = paired_difference_interval(0, only_a, only_b, n - only_a - only_b)
                assert -1 <= low <= difference <= high <= 1 and low < high, (n, only_b, only_a)


@pytest.mark.parametrize(
    ("n", "only_b", "only_a"), [(50, 0.10, 0.0), (100, 0.05, 0.0), (100, 0.03, 0.0), (40, 0.10, 0.01)]
)
def test_the_exact_coverage_is_near_95_where_the_t_interval_fell_short(n, only_b, only_a):
    """Coverage summed exactly over every table, no simulation. The interval depends on the tied pairs only
    through their number (checked below), so the trinomial of (only B, only A, tied) is every table."""
    truth = only_b - only_a
    covered = t_covered = t_given = 0.0
    for b, a, chance in trinomial(n, only_b, only_a):
        _, low, high = paired_difference_interval(0, a, b, n - a - b)
        covered += chance * (low <= truth <= high)
        _, t_low, t_high = mean_interval([1] * b + [-1] * a + [0] * (n - a - b))
        if not math.isnan(t_low):  # the t interval's coverage where it gave one at all
            t_given += chance
            t_covered += chance * (t_low <= truth <= t_high)
    assert 0.93 <= covered <= 0.99, covered
    assert t_covered / t_given < 0.93, "the control: the old t interval under-covers here"


def test_the_tied_pairs_count_only_by_their_number():
    for both in range(8):
        assert paired_difference_interval(both, 2, 5, 7 - both) == paired_difference_interval(0, 2, 5, 7)


@pytest.mark.parametrize(
    ("both", "only_a", "only_b", "neither"), [(3, 0, 9, 0), (500, 37, 80, 1383), (4, 6, 1, 9)]
)
def test_the_bounds_are_where_the_score_test_starts_to_reject(both, only_a, only_b, neither):
    """Worked against the statistic above: z^2 at each bound, below inside the interval, above outside it."""
    n = both + only_a + only_b + neither
    difference, low, high = paired_difference_interval(both, only_a, only_b, neither)
    for bound, outward in ((low, -1), (high, 1)):
        assert score_statistic(only_b, only_a, n, bound) == pytest.approx(Z95**2, rel=1e-6)
        assert score_statistic(only_b, only_a, n, bound + outward * 1e-4) > Z95**2
        assert score_statistic(only_b, only_a, n, bound - outward * 1e-4) < Z95**2
    assert score_statistic(only_b, only_a, n, difference) == pytest.approx(0, abs=1e-9)
    # At 0 the statistic is McNemar's (b - c)^2 / (b + c): the interval leaves out 0 where that test rejects.
    mcnemar = (only_b - only_a) ** 2 / (only_b + only_a)
    assert score_statistic(only_b, only_a, n, 0.0) == pytest.approx(mcnemar)
    assert (low > 0 or high < 0) == (mcnemar > Z95**2)


def test_degenerate_tables_give_the_documented_intervals():
    z2 = Z95**2
    # No pair: no difference, and every difference is possible.
    difference, low, high = paired_difference_interval(0, 0, 0, 0)
    assert math.isnan(difference) and (low, high) == (-1.0, 1.0)
    # Every pair tied, however split between both won and neither won: -/+ z^2 / (n + z^2).
    for both, neither in [(12, 0), (0, 12), (6, 6)]:
        assert paired_difference_interval(both, 0, 0, neither) == pytest.approx(
            (0, -z2 / (12 + z2), z2 / (12 + z2))
        )
    # 12 tied pairs: -/+24.2 points.
    assert paired_difference_interval(6, 0, 0, 6)[2] == pytest.approx(0.2424940)
    # Every pair won by one side alone: that side's bound is 1 and the other (n - z^2) / (n + z^2).
    for n in (1, 3, 10):
        edge = (n - z2) / (n + z2)
        assert paired_difference_interval(0, 0, n, 0) == pytest.approx((1, edge, 1))
        assert paired_difference_interval(0, n, 0, 0) == pytest.approx((-1, -1, -edge))


@pytest.mark.parametrize(
    ("counts", "message"),
    [
        ((-1, 0, 0, 0), "both must be a whole number >= 0 (a count of pairs), got -1"),
        ((0, 2.5, 0, 0), "only_a must be a whole number >= 0 (a count of pairs), got 2.5"),
        ((0, 0, True, 0), "only_b must be a whole number >= 0 (a count of pairs), got True"),
    ],
)
def test_counts_that_are_not_counts_are_refused(counts, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        paired_difference_interval(*counts)
    with pytest.raises(ValueError, match="z must be a normal quantile > 0"):
        paired_difference_interval(1, 1, 1, 1, z=0)
