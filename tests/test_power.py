"""The power analysis (icgbench.bench.power): the t-test's power, the search for sizes, and
the command on the committed board."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats

from icgbench.bench.power import TARGET_POWER, _smallest, power
from icgbench.cli import main


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


def test_the_smallest_size_reaching_the_target_is_found():
    needed = _smallest(lambda k: power(0.5, 1.0, k))
    assert power(0.5, 1.0, needed) >= TARGET_POWER > power(0.5, 1.0, needed - 1)
    assert _smallest(lambda k: 0.0, limit=1000) is None


@pytest.mark.slow
def test_bench_power_on_the_committed_board(capsys):
    """Every variant's top pair, with the bootstrap's within-cohort variance below the
    spread between cohorts: more seeds, not more test subjects, buy the power."""
    assert main(["bench", "power", "--resamples", "5", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 6
    for r in rows:
        assert r["cohorts"] == 5 and r["test_size"] == 1000
        assert 0 < r["within"] < r["between"]
        assert 0.04 < r["power_at_delta"] < r["power_at_difference"] <= 1.0
    assert main(["bench", "power", "--resamples", "5", "--delta", "2"]) == 2
