"""Intervals and groups (leaderboard.uncertainty): known values, the blocked paired test,
each pair tested on its own terms and drawn as a compact letter display, ties that are not
tests, and letters that mean the same whatever joins the board."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from icgbench.leaderboard.uncertainty import (
    interval,
    label_of,
    letter_display,
    letters,
    paired_p,
    places,
    separable,
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


def _shares(letter: str, other: str) -> bool:
    return bool(set(letter) & set(other))


def test_letters_join_exactly_the_pairs_that_are_not_separable_and_a_tie_is_not_a_test():
    """a is far ahead of b; b and c differ by noise; c and d are identical on every cohort
    (a tie, not a test: they share a letter)."""
    base = [0.8, 0.82, 0.79, 0.81, 0.83]
    values = {"a": _cohorts(base), "b": _cohorts([x - 0.2 for x in base]),
              "c": _cohorts([x - 0.2 + 0.003 * (-1) ** i for i, x in enumerate(base)])}
    values["d"] = dict(values["c"])
    assert letters(values, ["a", "b", "c", "d"]) == ["A", "B", "B", "B"]
    assert not separable(values["c"], values["d"])
    assert separable_pairs(values, ["a", "b", "c", "d"]) == (3, 6)


def test_a_chain_of_ties_draws_overlapping_letters():
    """a ~ b and b ~ c but a and c apart: b carries both letters."""
    base = [0.50, 0.52, 0.49, 0.51, 0.53, 0.50]
    noise = [0.02, -0.02, 0.02, -0.02, 0.02, -0.02]
    values = {"a": _cohorts([x + 0.02 for x in base]),
              "b": _cohorts([x + 0.01 + n for x, n in zip(base, noise, strict=True)]),
              "c": _cohorts(base)}
    assert separable(values["a"], values["c"])
    assert not separable(values["a"], values["b"]) and not separable(values["b"], values["c"])
    assert letters(values, ["a", "b", "c"]) == ["A", "AB", "B"]


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 8).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.booleans(), min_size=n * (n - 1) // 2,
                         max_size=n * (n - 1) // 2))))
def test_the_letter_display_is_exact_for_any_pattern_of_verdicts(case):
    """Whatever the verdicts, two models share a letter if and only if their pair is not
    separable, and every model has a letter."""
    n, flags = case
    apart = [p for p, f in zip(itertools.combinations(range(n), 2), flags, strict=True) if f]
    drawn = letter_display(n, apart)
    assert all(drawn) and len(drawn) == n
    for i, j in itertools.combinations(range(n), 2):
        assert _shares(drawn[i], drawn[j]) == ((i, j) not in apart), (apart, drawn)


def test_whether_two_models_share_a_letter_does_not_depend_on_a_third():
    """Adding an unrelated model anywhere in the ranking changes no pair's verdict (each
    pair is tested on its own cohorts, with no adjustment for the board's size)."""
    rng = __import__("numpy").random.default_rng(__import__("numpy").random.SeedSequence(5))
    values = {f"m{i}": _cohorts(list(0.5 + 0.01 * i + 0.02 * rng.standard_normal(8)))
              for i in range(5)}
    order = sorted(values, key=lambda m: -sum(values[m].values()))
    before = dict(zip(order, letters(values, order), strict=True))
    values["new"] = _cohorts(list(0.52 + 0.001 * rng.standard_normal(8)))
    order2 = sorted(values, key=lambda m: -sum(values[m].values()))
    after = dict(zip(order2, letters(values, order2), strict=True))
    for a, b in itertools.combinations(order, 2):
        assert _shares(before[a], before[b]) == _shares(after[a], after[b]), (a, b)


def test_letters_are_named_a_to_z_then_aa():
    assert [label_of(k) for k in (1, 2, 26, 27, 28, 52, 53)] == [
        "A", "B", "Z", "AA", "AB", "AZ", "BA"]


def test_equal_means_share_the_better_place():
    assert places([0.9, 0.8, 0.8, 0.8, 0.5]) == [1, 2, 2, 2, 5]
    assert places([0.61539, 0.61539 + 1e-12]) == [1, 1]  # sums in another order: no lead
    assert places([]) == []
