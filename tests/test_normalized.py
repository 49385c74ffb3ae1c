"""Normalized category scores and overall: chance 0, the reachable ceiling 1, per cohort."""

from __future__ import annotations

import numpy as np
import pytest

from icgbench.api.tables import tier_descriptor
from icgbench.bench.model_free import ModelFree
from icgbench.contract.vocabulary import CATEGORIES
from icgbench.models import CohortData, get_model
from icgbench.scorer import score
from icgbench.scorer.truth import load_truth
from icgbench.tasks import TASKS
from icgbench.tasks.intervention_conformity import (
    _true_effects,
    prior_constant_ate_mae,
    prior_constant_pehe,
)

VARIANT = "misspecified_signs"


@pytest.fixture(scope="module")
def data() -> CohortData:
    return CohortData.load(VARIANT)


@pytest.fixture(scope="module")
def truth():
    d = tier_descriptor("small")
    return load_truth(d, VARIANT, 0).truth


def _report(model, data):
    model.fit(data)
    return score(model.submission(data)).document


def test_the_ceiling_scores_one_in_every_category_and_the_oracle_about_one(data):
    summary = _report(get_model("ceiling"), data)["summary"]
    assert summary["normalized"] == dict.fromkeys(CATEGORIES, 1.0)
    assert summary["overall"] == 1.0
    oracle = _report(get_model("oracle"), data)["summary"]["normalized"]
    assert oracle["latent"] == oracle["structure"] == 1.0
    for category in ("risk", "intervention", "transfer"):  # above the ceiling but for noise
        assert oracle[category] > 0.99, category


def test_the_ceiling_is_the_reachable_risks_score(data):
    report = _report(get_model("ceiling"), data)
    for task in ("risk_prediction", "cross_host_generalization", "intervention_conformity"):
        for metric, part in report["tasks"][task]["normalized"]["parts"].items():
            assert part["ceiling"] == pytest.approx(part["score"], abs=2e-6), (task, metric)


def test_the_oracle_is_above_the_reachable_ceiling_on_risk(data):
    parts = _report(get_model("oracle"), data)["tasks"]["risk_prediction"]["normalized"]
    auroc = parts["parts"]["auroc"]
    assert auroc["score"] > auroc["ceiling"] > auroc["chance"]  # the frailty is out of reach


def test_an_unattempted_category_counts_zero_in_overall(data):
    random = _report(get_model("random"), data)["summary"]
    logistic = _report(get_model("logistic_direct"), data)["summary"]
    assert logistic["normalized"]["latent"] is None
    assert logistic["overall"] == pytest.approx(
        (logistic["normalized"]["risk"] + logistic["normalized"]["transfer"]) / 5)
    assert random["overall"] < 0.1


def test_a_one_block_submission_cannot_top_overall(data):
    """A perfect structure block alone (the true graph) against a model attempting the four
    per-subject tasks: its category is 1, its overall at most 1/5."""
    oracle = get_model("oracle")
    oracle.fit(data)
    per_subject = ("risk_prediction", "latent_recovery", "intervention_conformity",
                   "cross_host_generalization")
    alone = {k: v for k, v in oracle.submission(data).items() if k not in per_subject}
    summary = score(alone).document["summary"]
    assert summary["normalized"]["structure"] == 1.0
    assert summary["overall"] == pytest.approx(0.2)
    fitted = _report(get_model("mbcnet_sign_constrained"), data)["summary"]
    assert fitted["overall"] > summary["overall"]


def test_the_intervention_chance_levels_are_the_best_prior_signed_constants(truth):
    """Each floor is the best score of one change signed by the prior's directions: no
    constant on a grid does better."""
    pairs = [(truth.prior_direction[n], e) for n, e in _true_effects(truth).items()]
    grid = np.linspace(0.0, 0.3, 601)
    pehe = [np.sqrt(np.mean(np.concatenate([(c * d - e) ** 2 for d, e in pairs])))
            for c in grid]
    mae = [np.mean([abs(c * d - np.mean(e)) for d, e in pairs]) for c in grid]
    assert prior_constant_pehe(truth) <= min(pehe) + 1e-12
    assert prior_constant_ate_mae(truth) <= min(mae) + 1e-12


def test_following_the_prior_earns_no_intervention_credit(data):
    for answer in ("prior_shift_0.02", "prior_shift_0.05", "prior_shift_0.1"):
        report = score(ModelFree(answer).submission(data)).document
        assert report["summary"]["normalized"]["intervention"] == 0.0, answer


def test_every_task_declares_a_category_and_its_parts_are_headline_metrics():
    assert sorted(t.category for t in TASKS.values()) == sorted(CATEGORIES)
    for task in TASKS.values():
        assert task.normalized
        for part in task.normalized:
            assert part.metric in task.headline
            assert task.metric(part.metric).higher_is_better is not None
