"""The structural prior's risk equation as the release publishes it."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from icgbench.api.tables import load_table
from icgbench.contract.vocabulary import OUTCOME_NODE, STATES
from icgbench.generator import get_variant, variant_names
from icgbench.generator.mechanism import PRIOR_SIGNS, PRIOR_WEIGHTS, PUBLISHED_DECIMALS
from icgbench.generator.reference import (
    _reference_end_states,
    cohort_mechanism,
    exact_mean,
    exact_sd,
    prior_equation,
    reference_scale,
)
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
def test_the_published_equation_is_the_generators(variant):
    published = CohortData.load(variant).prior_equation()
    v = get_variant(variant)
    mechanism = cohort_mechanism(v, 0)
    made = prior_equation(v, mechanism, v.months)
    scale = reference_scale(v, mechanism, v.months)
    assert published.intercept == made.intercept == round(scale.intercept, PUBLISHED_DECIMALS)
    assert published.hazard_scale == made.hazard_scale > 0
    assert published.months == v.months
    np.testing.assert_array_equal(published.mean, np.round(scale.mean, PUBLISHED_DECIMALS))
    np.testing.assert_array_equal(published.sd, np.round(scale.sd, PUBLISHED_DECIMALS))
    at_mean = published.risk(published.mean[None, :])[0]
    assert at_mean == pytest.approx(
        1 - np.exp(-published.hazard_scale * v.months * np.exp(published.intercept)), rel=1e-12)


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


@pytest.mark.parametrize("variant", ["linear_lowhet", "nonlinear_mixhost"])
def test_the_published_equation_is_at_published_precision_and_hits_the_prevalence(variant):
    table = load_table(variant, "structural_prior")
    for column in ["reference_mean", "reference_sd", "intercept", "hazard_scale"]:
        values = table[column].to_numpy()
        np.testing.assert_array_equal(values, np.round(values, PUBLISHED_DECIMALS))
    v = get_variant(variant)
    mechanism = cohort_mechanism(v, 0)
    risk = prior_equation(v, mechanism, v.months).risk(
        _reference_end_states(v, mechanism, v.months).T)
    assert math.fsum(risk) / len(risk) == pytest.approx(v.target_prevalence, abs=1e-5)


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
