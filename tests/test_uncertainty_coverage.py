"""The board's intervals cover what they claim, on fresh cohorts.

A reference model is graded on 120 cohorts simulated on the fly (seeds outside the
release). Their mean AUROC stands for the expected score over the data-generating process.
Split into 24 boards of 5 cohorts (a variant's seeds in the full tier), each board's 95%
interval should cover that expectation about 95% of the time and its 50% interval about half
of the time: the second check fails an interval that is merely wide.
"""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest
from scipy import stats

from icgbench.bench.run import run_experiment
from icgbench.leaderboard.uncertainty import interval
from icgbench.scheduling import Runner

pytestmark = pytest.mark.slow

COHORTS, PER_BOARD = 120, 5
FIRST_SEED = 7000  # far outside every frozen tier's seeds


def _auroc(task: tuple[int, str]) -> float:
    seed, outdir = task
    result = run_experiment("logistic_direct", "linear_lowhet", seed, "small",
                            Path(outdir) / str(seed), n_subjects=800)
    return result.report.summary["auroc"]


def test_the_intervals_cover_the_expected_score_at_their_stated_rate(tmp_path):
    tasks = [(FIRST_SEED + i, str(tmp_path)) for i in range(COHORTS)]
    with Runner("processes", jobs=2) as runner:
        outcomes = dict(runner.outcomes(_auroc, tasks))
    values = [outcomes[t] for t in tasks]  # in seed order, wherever each ran
    failed = [v for v in values if isinstance(v, Exception)]
    assert not failed, failed[:3]
    assert len(values) == COHORTS and all(0.5 < v < 1.0 for v in values)
    expected = statistics.fmean(values)
    boards = [values[i:i + PER_BOARD] for i in range(0, COHORTS, PER_BOARD)]
    covered = {level: sum(lo <= expected <= hi for lo, hi in
                          (interval(b, level) for b in boards)) for level in (0.95, 0.5)}
    n = len(boards)
    # binomial acceptance regions at about the 0.5% level on each side
    low95, _ = stats.binom.interval(0.99, n, 0.95)
    low50, high50 = stats.binom.interval(0.99, n, 0.5)
    print(f"coverage over {n} boards of {PER_BOARD} cohorts: {covered}")
    assert covered[0.95] >= low95, covered
    assert low50 <= covered[0.5] <= high50, covered
