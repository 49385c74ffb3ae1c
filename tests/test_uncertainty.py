"""Intervals and groups (leaderboard.uncertainty): known values, the blocked paired test,
the multiplicity rule over adjacent pairs, and ties that are not tests."""

from __future__ import annotations

import math

import pytest
from scipy import stats

from icgbench.leaderboard.uncertainty import (
    adjacent_separable,
    groups,
    holm,
    interval,
    paired_p,
    places,
    separable_pairs,
)


def _cohorts(values: list[float]) -> dict[tuple[str, int], float]:
    return {("linear_lowhet", i): v for i, v in enumerate(values)}


def test_the_interval_is_students_t_over_cohorts():
    values = [0.6, 0.7, 0.9]
    low, high = interval(values)
    half = stats.t.ppf(0.975, 2) * stats.tstd(values) / math.sqrt(3)
    assert (low, high) == pytest.approx((0.7333333 - half, 0.7333333 + half))
    assert round(stats.t.ppf(0.975, 2), 4) == 4.3027
    assert interval([0.5]) is None and interval([]) is None
    assert interval([0.4, 0.4]) == (0.4, 0.4)


def test_the_paired_p_value_is_scipys():
    a, b = [0.81, 0.78, 0.83, 0.80, 0.79], [0.80, 0.75, 0.82, 0.77, 0.79]
    assert paired_p(_cohorts(a), _cohorts(b)) == pytest.approx(stats.ttest_rel(a, b).pvalue)
    assert paired_p(_cohorts([1, 2]), _cohorts([1, 2])) is None  # all equal: a tie, no test
    assert paired_p(_cohorts([2, 3]), _cohorts([1, 2])) == 0.0  # a constant gap
    assert paired_p(_cohorts([1]), _cohorts([1])) is None


def test_only_shared_cohorts_are_paired():
    a = {("v", 0): 0.9, ("v", 1): 0.8, ("w", 0): 0.1}
    b = {("v", 0): 0.7, ("v", 1): 0.7}
    assert paired_p(a, b) == pytest.approx(stats.ttest_rel([0.9, 0.8], [0.7, 0.7]).pvalue)


def test_holm_steps_down_and_stops_at_the_first_acceptance():
    # thresholds 0.05/4, 0.05/3, 0.05/2, 0.05/1
    assert holm({"a": 0.01, "b": 0.012, "c": 0.02, "d": 0.04}) == {"a", "b", "c", "d"}
    assert holm({"a": 0.01, "b": 0.02, "c": 0.001, "d": 0.5}) == {"c", "a", "b"}
    assert holm({"a": 0.03, "b": 0.03, "c": 0.001}) == {"c"}  # 0.03 > 0.05/2: stop there
    assert holm({"a": 0.06, "b": 0.001}) == {"b"}
    assert holm({"a": 0.013}) == {"a"} and holm({}) == set()


def test_the_paired_test_is_blocked_by_variant():
    """Differences 0.10, 0.12, 0.11 on variant v and -0.02, 0.00, -0.01 on w: the variant
    means (0.11, -0.01) leave residuals -0.01, 0.01, 0, -0.01, 0.01, 0 (sum of squares 4e-4)
    over 6 - 2 = 4 degrees of freedom: t = 0.05 / sqrt(1e-4 / 6) = 12.25. Unblocked, the
    spread between the variants swamps the mean gap."""
    a = {("v", 0): 0.60, ("v", 1): 0.62, ("v", 2): 0.61,
         ("w", 0): 0.38, ("w", 1): 0.40, ("w", 2): 0.39}
    b = {("v", 0): 0.50, ("v", 1): 0.50, ("v", 2): 0.50,
         ("w", 0): 0.40, ("w", 1): 0.40, ("w", 2): 0.40}
    t = 0.05 / math.sqrt(1e-4 / 6)
    assert paired_p(a, b) == pytest.approx(2 * stats.t.sf(t, 4), rel=1e-9)
    unblocked = stats.ttest_rel(list(a.values()), [b[c] for c in a]).pvalue
    assert paired_p(a, b) < 0.001 < unblocked


def test_adjacent_pairs_make_groups_and_a_tie_is_not_a_test():
    """a is far ahead of b; b and c differ by noise; c and d are identical on every cohort
    (a tie: left out of Holm's family, so it costs the other pairs nothing)."""
    base = [0.8, 0.82, 0.79, 0.81, 0.83]
    values = {"a": _cohorts(base), "b": _cohorts([x - 0.2 for x in base]),
              "c": _cohorts([x - 0.2 + 0.003 * (-1) ** i for i, x in enumerate(base)])}
    values["d"] = dict(values["c"])
    assert adjacent_separable(values, ["a", "b", "c", "d"]) == [True, False, False]
    assert groups(values, ["a", "b", "c", "d"]) == [1, 2, 2, 2]
    assert separable_pairs(values, ["a", "b", "c", "d"]) == (1, 3)
    # with the tie counted as a test at p = 1, Holm's first threshold would be 0.05 / 3;
    # left out, it is 0.05 / 2: a pair at p = 0.02 is separable only the documented way
    assert holm({"x": 0.02, "y": 0.5}) == {"x"} and holm({"x": 0.02, "y": 0.5, "z": 1.0}) == set()


def test_equal_means_share_the_better_place():
    assert places([0.9, 0.8, 0.8, 0.8, 0.5]) == [1, 2, 2, 2, 5]
    assert places([0.61539, 0.61539 + 1e-12]) == [1, 1]  # sums in another order: no lead
    assert places([]) == []


def test_separable_adjacent_pairs_are_counted_after_holm():
    base = [0.8, 0.82, 0.79, 0.81, 0.83]
    values = {"a": _cohorts(base), "b": _cohorts([x - 0.1 for x in base]),
              "c": _cohorts([x - 0.1 + 0.002 * (-1) ** i for i, x in enumerate(base)])}
    assert separable_pairs(values, ["a", "b", "c"]) == (1, 2)
