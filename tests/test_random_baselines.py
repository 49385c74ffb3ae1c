"""The random baselines every score report prints beside each metric.

Each truth-dependent baseline is checked against an independent computation: a closed
form derived by hand, a normal distribution from scipy, or numerical integration, never
the scorer's own helper functions. The intervention baselines model the ``random``
reference model: two independent uniform predictions per subject, so one subject's change
has variance 1/6 and the mean change over n subjects variance 1/(6n).
"""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pytest
from scipy import integrate, stats

from icgbench.generator.interventions import intervention_names
from icgbench.tasks import TASKS
from icgbench.tasks.base import Truth

N = 600  # test subjects: the mean change of a random model has sd sqrt(1/3600) = 1/60
EFFECTS = [0.01 * k for k in range(7)]  # true effect of the k-th intervention, every subject


def _truth(n: int = N) -> Truth:
    base = np.full(n, 0.5)
    return Truth(
        ids={"test": pa.array([f"TE{i:06d}" for i in range(n)])},
        event={"test": np.zeros(n)}, true_risk={"test": base}, end_states={},
        counterfactual={name: base + e for name, e in zip(intervention_names(), EFFECTS,
                                                          strict=True)},
        prior_direction={}, dgp_direction={},
        edges=(("A", "B"), ("B", "C"), ("C", "D")), nodes=("A", "B", "C", "D"))


def _baseline(task: str, metric: str, truth: Truth) -> float | None:
    return TASKS[task].metric(metric).baseline(truth)


SD = 1 / 60  # sqrt(1 / (6 * 600))


def test_the_conformity_baselines_follow_the_mean_change_of_two_uniform_predictions():
    truth = _truth()
    tolerant = 0.5 + 0.5 * (stats.norm.cdf(1e-3, scale=SD) - stats.norm.cdf(-1e-3, scale=SD))
    responsive = 0.5 * 2 * stats.norm.sf(0.005, scale=SD)
    assert _baseline("intervention_conformity", "prior_conformity", truth) == 0.5
    assert _baseline("intervention_conformity", "dgp_conformity", truth) == 0.5
    assert _baseline("intervention_conformity", "prior_conformity_tolerant",
                     truth) == pytest.approx(tolerant, abs=1e-12)
    assert _baseline("intervention_conformity", "responsive_dgp_conformity",
                     truth) == pytest.approx(responsive, abs=1e-12)


def test_the_pehe_baseline_adds_the_true_effects_to_the_variance_of_a_random_change():
    # E[(U1 - U2 - e)^2] = Var(U1 - U2) + e^2 = 1/6 + e^2; mean e^2 = 1e-4 * 91 / 7 = 0.0013
    assert _baseline("intervention_conformity", "pehe", _truth()) == pytest.approx(
        math.sqrt(1 / 6 + 0.0013), abs=1e-12)


def test_the_ate_mae_baseline_is_the_expected_absolute_error_of_a_random_mean_change():
    density = stats.norm(scale=SD).pdf
    expected = np.mean([integrate.quad(lambda x, e=e: abs(x - e) * density(x), -1, 1,
                                       points=[e], epsabs=1e-14)[0] for e in EFFECTS])
    assert _baseline("intervention_conformity", "ate_mae", _truth()) == pytest.approx(
        expected, abs=1e-10)


def test_the_ate_mae_baseline_by_simulation():
    rng = np.random.default_rng(np.random.SeedSequence(11))
    n, runs = 60, 4000
    truth = _truth(n)
    change = (rng.random((runs, n)) - rng.random((runs, n))).mean(axis=1)
    simulated = np.mean([np.abs(change - e).mean() for e in EFFECTS])
    assert _baseline("intervention_conformity", "ate_mae", truth) == pytest.approx(
        simulated, rel=0.03)


def test_the_edge_auprc_baseline_is_the_share_of_true_edges_among_ordered_pairs():
    assert _baseline("structure_recovery", "edge_auprc", _truth()) == 3 / 12
    assert _baseline("structure_recovery", "edge_auroc", _truth()) == 0.5


def test_constant_baselines_are_the_documented_chance_values():
    truth = _truth()
    assert _baseline("risk_prediction", "auroc", truth) == 0.5
    assert _baseline("cross_host_generalization", "auroc_target", truth) == 0.5


def test_the_ece_baseline_is_the_mean_distance_of_the_bin_centres_from_the_prevalence():
    truth = _truth(10)
    truth.event["test"][:3] = 1  # prevalence 0.3
    # |0.05-0.3| + |0.15-0.3| + ... + |0.95-0.3| = 0.25+0.15+0.05+0.05+0.15+0.25+0.35+0.45
    # +0.55+0.65 = 2.9 over 10 bins
    assert _baseline("risk_prediction", "ece", truth) == pytest.approx(0.29, abs=1e-15)
    assert _baseline("risk_prediction", "auprc", truth) == pytest.approx(0.3, abs=1e-15)


def test_auroc_and_auprc_by_hand():
    from icgbench.tasks.metrics import auprc, auroc

    y, p = np.array([1, 0, 1, 0]), np.array([0.9, 0.8, 0.7, 0.1])
    assert auroc(y, p) == pytest.approx(3 / 4)  # 3 of the 4 (positive, negative) pairs
    assert auprc(y, p) == pytest.approx((1 / 1 + 2 / 3) / 2)  # precision at each positive
