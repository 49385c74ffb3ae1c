"""The structural prior's risk equation: the published signs and weights, calibrated on
the public train tables (never on the DGP's own constants)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from conftest import examples
from icgbench.api.tables import load_table
from icgbench.contract.vocabulary import OUTCOME_NODE, STATES
from icgbench.generator import get_variant, variant_names
from icgbench.generator.mechanism import PRIOR_SIGNS, PRIOR_WEIGHTS
from icgbench.generator.prior import PriorEquation
from icgbench.generator.reference import cohort_mechanism, exact_mean, exact_sd
from icgbench.models import CohortData


@pytest.mark.parametrize("variant", variant_names())
def test_prior_sign_equals_the_dgp_sign_except_on_the_reversed_states(variant):
    """The prior is the family's nominal view: its signs are the DGP's except where the
    cohort reverses a state (truth only), its weights the nominal ones, never the cohort's
    drawn weights."""
    prior = load_table(variant, "structural_prior").set_index("state")
    graph = load_table(variant, "graph", role="truth")
    outcome = graph[graph.target == OUTCOME_NODE].set_index("source")
    disagree = {s for s in STATES if prior.loc[s, "prior_sign"] != outcome.loc[s, "sign"]}
    assert disagree == set(cohort_mechanism(get_variant(variant), 0).flipped)
    assert list(prior.loc[list(STATES), "prior_sign"]) == [PRIOR_SIGNS[s] for s in STATES]
    assert list(prior.loc[list(STATES), "prior_weight"]) == [PRIOR_WEIGHTS[s] for s in STATES]
    assert not np.allclose(prior.loc[list(STATES), "prior_weight"],
                           outcome.loc[list(STATES), "weight"], rtol=0.05)


@pytest.mark.parametrize("variant", ["linear_lowhet", "misspecified_signs"])
def test_the_equation_is_calibrated_on_the_public_train_tables_as_documented(variant):
    """docs/dgp.md: standardised by the train split's end states (ddof 0), intercept such
    that the mean risk over the train subjects is their event rate; nothing of the DGP."""
    data = CohortData.load(variant)
    equation = data.prior_equation()
    end = data.end_states().loc[data.train_outcomes.subject_id, list(STATES)].to_numpy()
    events = data.train_outcomes.event.to_numpy(dtype=float)
    np.testing.assert_allclose(equation.mean, end.mean(axis=0), rtol=1e-14)
    np.testing.assert_allclose(equation.sd, end.std(axis=0), rtol=1e-12)
    assert math.fsum(equation.risk(end)) / len(end) == pytest.approx(events.mean(), abs=1e-12)
    z = (end - end.mean(axis=0)) / end.std(axis=0)
    eta = equation.intercept + z @ (equation.signs * equation.weights)
    np.testing.assert_allclose(equation.risk(end), 1 - np.exp(-np.exp(eta)), rtol=1e-12)
    assert list(load_table(variant, "structural_prior").columns) == [
        "state", "prior_sign", "prior_weight"]


def test_a_reversal_guess_recalibrates_the_intercept():
    data = CohortData.load("misspecified_signs")
    end = data.end_states().loc[data.train_outcomes.subject_id, list(STATES)].to_numpy()
    events = data.train_outcomes.event.to_numpy(dtype=float)
    signs = np.array([-PRIOR_SIGNS[s] if s == "epigenetic_age" else PRIOR_SIGNS[s]
                      for s in STATES])
    guess = PriorEquation.calibrated(end, events, signs)
    assert guess.intercept != data.prior_equation().intercept
    assert math.fsum(guess.risk(end)) / len(end) == pytest.approx(events.mean(), abs=1e-12)


def test_the_equation_ranks_train_subjects_only_where_the_prior_is_right():
    def auroc(variant: str) -> float:
        data = CohortData.load(variant)
        end = data.end_states().loc[data.train_outcomes.subject_id, list(STATES)]
        risk = data.prior_equation().risk(end.to_numpy())
        assert 0.1 < risk.mean() < 0.6
        return roc_auc_score(data.train_outcomes.event, risk)

    right, wrong = auroc("linear_lowhet"), auroc("misspecified_signs_v2")
    assert right > 0.65
    assert wrong < right - 0.05


def test_reference_averages_do_not_depend_on_the_order_of_addition():
    """numpy's reductions add in an order set by the CPU's vector width; the constants the
    release publishes must come out bit for bit the same on any CPU, so no order may matter."""
    rng = np.random.default_rng(np.random.SeedSequence(20261124))
    rows = rng.lognormal(size=(9, 4000)) * 10.0 ** rng.integers(-3, 4, size=(9, 1))
    shuffled = rows[:, rng.permutation(rows.shape[1])]
    assert not np.array_equal(rows.sum(axis=1), np.cumsum(shuffled, axis=1)[:, -1])
    np.testing.assert_array_equal(exact_mean(rows), exact_mean(shuffled))
    np.testing.assert_array_equal(exact_sd(rows), exact_sd(shuffled))
    np.testing.assert_allclose(exact_sd(rows), rows.std(axis=1), rtol=1e-13)


def _exact_intercept(eta: np.ndarray, rate: float) -> float:
    """The intercept as the module defined it before numpy screened its steps: every
    bisection step decided by the correctly rounded mean."""
    values = eta.tolist()

    def mean_risk(b: float) -> float:
        return math.fsum(-math.expm1(-math.exp(min(b + e, 700.0))) for e in values) / len(
            values)

    low, high = -50.0, 50.0
    for _ in range(200):
        mid = 0.5 * (low + high)
        if mid in (low, high):
            break
        low, high = (mid, high) if mean_risk(mid) < rate else (low, mid)
    return 0.5 * (low + high)


@pytest.mark.parametrize("n", examples(25, 400))
def test_the_screened_bisection_gives_the_exact_bits(n):
    """numpy decides the bisection's steps far from the root: the intercept is still the
    exactly decided one, bit for bit, on spreads, offsets, ties and extremes."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from icgbench.generator.prior import _intercept

    values = st.floats(-800.0, 800.0, allow_nan=False)
    etas = st.one_of(
        st.lists(values, min_size=1, max_size=300),
        st.builds(lambda seed, scale, shift, size: (np.random.default_rng(seed).normal(
            shift, scale, size)).tolist(), st.integers(0, 2**32 - 1), st.floats(0, 5),
            st.floats(-10, 10), st.integers(1, 2000)))

    @settings(max_examples=n, deadline=None)
    @given(etas, st.floats(1e-6, 1 - 1e-6))
    def check(eta, rate):
        array = np.asarray(eta, dtype=np.float64)
        assert _intercept(array, rate).hex() == _exact_intercept(array, rate).hex()

    check()
