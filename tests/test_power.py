"""The power analysis (icgbench.bench.power): the t-test's power and its inverse, the
blocked spread, and the command on the committed board."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

from conftest import ROOT
from icgbench.bench.power import (
    TARGET_POWER,
    blocked_variance,
    detectable,
    power,
)
from icgbench.cli import main
from icgbench.generator import variant_names


def test_power_is_the_two_sided_t_tests():
    """At no difference it is the level; against 20,000 simulated tests (n = 30, effect
    0.5 sd) within three standard errors."""
    assert power(0.0, 1.0, 10) == pytest.approx(0.05, abs=1e-12)
    rng = np.random.default_rng(np.random.SeedSequence(37))
    samples = rng.normal(0.5, 1.0, size=(20_000, 30))
    p = stats.ttest_1samp(samples, 0.0, axis=1).pvalue
    simulated = float(np.mean(p < 0.05))
    assert power(0.5, 1.0, 30) == pytest.approx(simulated, abs=3 * np.sqrt(0.25 / 20_000))
    assert power(0.5, 1.0, 31) > power(0.5, 1.0, 30) and power(0.1, 0.0, 5) == 1.0
    assert power(0.5, 1.0, 30, df=20) < power(0.5, 1.0, 30)  # fewer degrees of freedom
    assert power(100.0, 1.0, 30) == 1.0  # far beyond the noncentral t's numerics


def test_the_detectable_difference_is_where_the_power_reaches_eighty_percent():
    for variance, n, df in ((0.01, 30, 24), (0.04, 360, 354), (1.0, 5, 4)):
        d = detectable(variance, n, df)
        assert power(d, variance, n, df=df) == pytest.approx(TARGET_POWER, abs=1e-6)
        assert power(0.9 * d, variance, n, df=df) < TARGET_POWER
    # about (z_0.975 + z_0.8) sd / sqrt(n) for many cohorts
    assert detectable(0.01, 10_000, 9_994) == pytest.approx(2.8016 * 0.1 / 100, rel=1e-3)
    assert detectable(0.0, 10, 9) == 0.0 and math.isinf(detectable(1.0, 1, 0))


def test_the_spread_is_blocked_by_variant():
    diffs = {("v", 0): 0.10, ("v", 1): 0.12, ("v", 2): 0.11,
             ("w", 0): -0.02, ("w", 1): 0.00, ("w", 2): -0.01}
    variance, df = blocked_variance(diffs)
    assert df == 4 and variance == pytest.approx(4e-4 / 4)
    one = {("v", 0): 1.0, ("w", 0): 3.0}
    assert blocked_variance(one) == (pytest.approx(2.0), 1)  # one cohort a variant


@pytest.mark.slow
def test_bench_power_on_the_committed_board(full_tier_root, capsys):
    """Every pair adjacent in the board's overall ranking is told apart down to 0.025 at
    80% power; within a variant, the pairs of models that fit the same categories down
    to 0.06; within a cohort the spread is a small part of the whole."""
    assert main(["bench", "power", "--resamples", "5", "--sample", "1", "--json",
                 "--dir", str(ROOT / "leaderboard")]) == 0
    data = json.loads(capsys.readouterr().out)
    overall = [p for p in data["pairs"] if p["scope"] == "all"]
    assert len(overall) == 10
    for p in overall:
        assert p["cohorts"] == 60 * len(variant_names()) and p["detectable"] <= 0.025, p
        assert 0 <= p["within"] < p["between"], p
    assert data["designs"] and data["test_size"] == 200
