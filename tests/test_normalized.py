"""Normalized category scores and overall: the model-free floor 0, the reachable ceiling 1;
over several cohorts the mean is normalized."""

from __future__ import annotations

import json

import pytest

from conftest import reference_submission
from icgbench.api.tables import load_table
from icgbench.cli import main
from icgbench.contract.vocabulary import CATEGORIES
from icgbench.models import CohortData, get_model
from icgbench.scorer import score
from icgbench.tasks import TASKS
from icgbench.tasks.normalized import aggregate, mean_normalized, ratio

VARIANT = "misspecified_signs"


@pytest.fixture(scope="module")
def data() -> CohortData:
    return CohortData.load(VARIANT)


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


def test_every_floor_is_the_best_published_model_free_answer_or_chance(data):
    report = score(json.loads(reference_submission("mbcnet_sign_constrained", VARIANT))).document
    table = load_table(VARIANT, "model_free_scores", role="truth")
    for task, section in report["tasks"].items():
        for metric, part in section["normalized"]["parts"].items():
            rows = table[(table.task == task) & (table.metric == metric)]
            higher = TASKS[task].metric(metric).higher_is_better
            best = rows.value.max() if higher else rows.value.min()
            if part["floor_answer"] == "chance":
                assert (part["floor"] > best) if higher else (part["floor"] < best)
            else:
                assert part["floor"] == best
                assert part["floor_answer"] in set(rows[rows.value == best].answer)


def test_the_oracle_is_above_the_reachable_ceiling_on_risk(data):
    parts = _report(get_model("oracle"), data)["tasks"]["risk_prediction"]["normalized"]
    auroc = parts["parts"]["auroc"]
    assert auroc["score"] > auroc["ceiling"] > auroc["floor"]  # the frailty is out of reach


def test_an_unattempted_category_counts_zero_in_overall(data):
    random = _report(get_model("random"), data)["summary"]
    logistic = _report(get_model("logistic_direct"), data)["summary"]
    assert logistic["normalized"]["latent"] is None
    assert logistic["overall"] == pytest.approx(
        (logistic["normalized"]["risk"] + logistic["normalized"]["transfer"]) / 5)
    assert random["overall"] == 0.0


def test_a_one_block_submission_cannot_top_overall(data):
    """A perfect structure block alone (the true graph) against a model attempting the
    other tasks: its category is 1, its overall at most 1/5."""
    oracle = get_model("oracle")
    oracle.fit(data)
    per_subject = ("risk_prediction", "latent_recovery", "intervention_conformity",
                   "cross_host_generalization")
    alone = {k: v for k, v in oracle.submission(data).items() if k not in per_subject}
    summary = score(alone).document["summary"]
    assert summary["normalized"]["structure"] == 1.0
    assert summary["overall"] == pytest.approx(0.2)


def test_another_responsive_threshold_leaves_interventions_unnormalized(data, tmp_path,
                                                                        capsys):
    """The floors and ceilings are the default threshold's: at another, the report says
    why the category and overall are not computed."""
    path = tmp_path / "s.json"
    path.write_text(reference_submission("mbcnet_sign_constrained", VARIANT))
    assert main(["score", str(path), "--json", "--responsive-threshold", "0.01",
                 "--out", str(tmp_path / "r.json")]) == 0
    report = json.loads(capsys.readouterr().out)
    section = report["tasks"]["intervention_conformity"]["normalized"]
    assert section["score"] is None and "0.01" in section["note"]
    assert all(p["normalized"] is None for p in section["parts"].values())
    assert report["summary"]["overall"] is None
    assert "not computed" in report["summary"]["overall_note"]
    assert report["summary"]["normalized"]["risk"] is not None


def test_every_task_declares_a_category_and_its_parts_are_headline_metrics():
    assert sorted(t.category for t in TASKS.values()) == sorted(CATEGORIES)
    for task in TASKS.values():
        assert task.normalized
        for part in task.normalized:
            assert part.metric in task.headline
            assert task.metric(part.metric).higher_is_better is not None


def test_ratio_clips_and_refuses_an_empty_span():
    assert ratio(0.25, 0.5) == 0.5
    assert ratio(-0.1, 0.5) == 0.0 and ratio(0.9, 0.5) == 1.0
    assert ratio(0.1, 0.0) is None and ratio(0.1, -0.2) is None
    assert ratio(float("nan"), 0.5) == 0.0


def test_the_mean_is_normalized_not_each_cohort():
    """By hand: scores 0.9 and 0.5 on cohorts with floors 0.6, 0.7 and ceilings 1.0, 0.8:
    gains 0.3 and -0.2 over spans 0.4 and 0.1 give 0.1 / 0.5 = 0.2 (clipping each cohort
    first would give (0.75 + 0) / 2 = 0.375). A lower-is-better metric turns around."""
    assert mean_normalized([(0.9, 0.6, 1.0), (0.5, 0.7, 0.8)], True) == pytest.approx(0.2)
    assert mean_normalized([(0.1, 0.4, 0.0), (0.5, 0.3, 0.2)], False) == pytest.approx(0.2)
    # a cohort whose ceiling is no better than its floor is left out; a missing score is
    # the floor
    assert mean_normalized([(0.9, 0.6, 1.0), (0.2, 0.7, 0.7)], True) == pytest.approx(0.75)
    assert mean_normalized([(None, 0.6, 1.0), (0.8, 0.6, 1.0)], True) == pytest.approx(0.25)
    assert mean_normalized([(0.5, 0.7, 0.7)], True) is None


def test_a_gamble_expected_at_the_floor_scores_at_most_zero_in_expectation():
    """A guess right on one cohort in four (score = ceiling) and wrong elsewhere (score
    below the floor so that its expectation is the floor): clipped per cohort it would
    average 0.25; normalized as a mean, its expected score is 0."""
    lucky, unlucky = 1.0, 0.6 - (1.0 - 0.6) / 3
    parts = [(lucky, 0.6, 1.0)] + [(unlucky, 0.6, 1.0)] * 3
    assert mean_normalized(parts, True) == pytest.approx(0.0, abs=1e-12)
    clipped = sum(max(0.0, (s - f) / (c - f)) for s, f, c in parts) / 4
    assert clipped == pytest.approx(0.25)


def test_aggregate_counts_a_missing_cohort_as_the_floor_and_splits_contributions():
    part = ("risk_prediction", "auroc")
    bounds = {("v", 1): {part: (0.6, 1.0)}, ("v", 2): {part: (0.6, 0.8)}}
    only_first = aggregate({("v", 1): {part: 0.9}}, bounds, [("v", 1), ("v", 2)], {"risk"})
    assert only_first.parts[part] == pytest.approx(0.3 / 0.6)
    shares = only_first.contributions["risk"]
    assert sum(shares.values()) / 2 == pytest.approx(0.5)
    assert only_first.overall == pytest.approx(0.5 / 5)
    assert only_first.categories["latent"] is None
