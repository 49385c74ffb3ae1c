"""Intervals and ties (leaderboard.uncertainty): known values, the multiplicity rule, and a
ranking that marks only the real differences."""

from __future__ import annotations

import math

import pytest
from scipy import stats

from icgbench.leaderboard.uncertainty import (
    holm,
    interval,
    paired_p,
    separable_pairs,
    tied_with_leader,
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
    assert paired_p(_cohorts([1, 2]), _cohorts([1, 2])) == 1.0
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


def test_a_model_is_tied_with_the_leader_unless_its_gap_is_significant():
    leader = [0.80, 0.82, 0.79, 0.81, 0.83]
    values = {
        "leader": _cohorts(leader),
        "close": _cohorts([x - 0.001 * (-1) ** i for i, x in enumerate(leader)]),
        "far": _cohorts([x - 0.2 for x in leader]),
        "short": {("linear_lowhet", 0): 0.1},  # one shared cohort: cannot be separated
    }
    assert tied_with_leader(values, "leader") == {"close", "short"}


def test_separable_adjacent_pairs_are_counted_after_holm():
    base = [0.8, 0.82, 0.79, 0.81, 0.83]
    values = {"a": _cohorts(base), "b": _cohorts([x - 0.1 for x in base]),
              "c": _cohorts([x - 0.1 + 0.002 * (-1) ** i for i, x in enumerate(base)])}
    assert separable_pairs(values, ["a", "b", "c"]) == (1, 2)
