"""Normalized category scores and overall: the model-free floor 0, the reachable ceiling 1;
over several cohorts the mean is normalized."""

from __future__ import annotations

import json

import pytest

from conftest import reference_submission
from icgbench.api.tables import load_table
from icgbench.cli import main
from icgbench.models import CohortData, get_model
from icgbench.scorer import score
from icgbench.tasks import CATEGORIES, TASKS
from icgbench.tasks.normalized import aggregate, mean_normalized, ratio

VARIANT = "misspecified_signs"


@pytest.fixture(scope="module")
def data() -> CohortData:
    return CohortData.load(VARIANT)


def _true_k(data: CohortData) -> int:
    """The number of true edges: the K of a graph read off the truth."""
    return len(load_table(VARIANT, "graph", data.seed, data.tier, role="truth"))


def _report(model, data, structure_k: int | None = None):
    model.fit(data)
    return score(model.submission(data), structure_k=structure_k).document


def test_the_ceiling_scores_one_in_every_category_and_the_oracle_less(data):
    summary = _report(get_model("ceiling"), data, _true_k(data))["summary"]
    assert summary["normalized"] == dict.fromkeys(CATEGORIES, 1.0)
    assert summary["overall"] == 1.0
    oracle = _report(get_model("oracle"), data, _true_k(data))["summary"]["normalized"]
    assert oracle["latent"] == oracle["structure"] == 1.0
    for category in ("risk", "transfer"):  # the frailty reorders the true risks
        assert 0.0 < oracle[category] < 1.0, category
    assert oracle["intervention"] == 1.0  # the true effects beat the reachable: clipped


def test_a_graph_at_its_own_best_k_is_not_normalized_and_overall_says_why(data):
    """Without a calibrated K the structure block is graded at this cohort's own best K, in
    hindsight: reported, not normalized, and overall is not computed."""
    report = _report(get_model("ceiling"), data)
    section = report["tasks"]["structure_recovery"]["normalized"]
    assert section["score"] is None and "own best K" in section["note"]
    assert report["summary"]["normalized"]["structure"] is None
    assert report["summary"]["overall"] is None
    assert report["summary"]["normalized"]["risk"] == 1.0


def test_the_ceiling_is_the_reachable_risks_score(data):
    report = _report(get_model("ceiling"), data)
    for task in ("risk_prediction", "cross_host_generalization", "intervention_conformity"):
        for metric, part in report["tasks"][task]["normalized"]["parts"].items():
            assert part["ceiling"] == pytest.approx(part["score"], abs=2e-6), (task, metric)


def test_every_floor_is_the_marked_row_of_the_published_table(data):
    """A cohort's floor is the row ``model_free_scores`` marks (the variant's answer, chosen
    over the board's cohorts, not the best on this cohort: it may be beaten here)."""
    report = score(json.loads(reference_submission("mbcnet_sign_constrained", VARIANT)),
                   structure_k=_true_k(data)).document
    table = load_table(VARIANT, "model_free_scores", role="truth")
    for task, section in report["tasks"].items():
        for metric, part in section["normalized"]["parts"].items():
            marked = table[(table.task == task) & (table.metric == metric) & table.floor]
            assert len(marked) == 1, (task, metric)
            assert part["floor"] == marked.value.iloc[0]
            assert part["floor_answer"] == marked.answer.iloc[0]


def test_the_oracle_is_above_the_reachable_ceiling_on_risk(data):
    parts = _report(get_model("oracle"), data)["tasks"]["risk_prediction"]["normalized"]
    rho = parts["parts"]["spearman_reachable"]
    assert rho["ceiling"] == 1.0 > rho["floor"]  # the reachable risk ranks itself perfectly
    assert rho["score"] < rho["ceiling"]  # the true probabilities hold the frailty


def test_an_unattempted_category_counts_zero_in_overall(data):
    random = _report(get_model("random"), data, _true_k(data))["summary"]
    logistic = _report(get_model("logistic_direct"), data)["summary"]
    assert logistic["normalized"]["latent"] is None
    assert logistic["overall"] == pytest.approx(
        (logistic["normalized"]["risk"] + logistic["normalized"]["transfer"]) / 5)
    assert random["overall"] < 0.0  # below the floor: nothing is clipped at 0


def test_a_one_block_submission_cannot_top_overall(data):
    """A perfect structure block alone (the true graph) against a model attempting the
    other tasks: its category is 1, its overall at most 1/5."""
    oracle = get_model("oracle")
    oracle.fit(data)
    per_subject = ("risk_prediction", "latent_recovery", "intervention_conformity",
                   "cross_host_generalization")
    alone = {k: v for k, v in oracle.submission(data).items() if k not in per_subject}
    summary = score(alone, structure_k=_true_k(data)).document["summary"]
    assert summary["normalized"]["structure"] == 1.0
    assert summary["overall"] == pytest.approx(0.2)


def test_another_responsive_threshold_changes_no_normalized_score(data, tmp_path, capsys):
    """The category is normalized on PEHE and the ATE's error, which no threshold touches:
    at another threshold only the responsive conformity changes."""
    path = tmp_path / "s.json"
    path.write_text(reference_submission("mbcnet_sign_constrained", VARIANT))
    reports = []
    for threshold in ("0.005", "0.01"):  # the default, then a stricter one
        assert main(["score", str(path), "--json", "--responsive-threshold", threshold,
                     "--structure-k", str(_true_k(data)),
                     "--out", str(tmp_path / "r.json")]) == 0
        reports.append(json.loads(capsys.readouterr().out))
    default, other = (r["tasks"]["intervention_conformity"] for r in reports)
    assert other["normalized"] == default["normalized"]
    assert other["normalized"]["score"] is not None
    assert reports[1]["summary"]["overall"] == reports[0]["summary"]["overall"]
    assert (other["metrics"]["responsive_dgp_conformity"]
            <= default["metrics"]["responsive_dgp_conformity"])


def test_every_task_declares_a_category_and_its_parts_are_headline_metrics():
    assert sorted(t.category for t in TASKS.values()) == sorted(CATEGORIES)
    for task in TASKS.values():
        assert task.normalized
        for part in task.normalized:
            assert part.metric in task.headline
            assert task.metric(part.metric).higher_is_better is not None


def test_ratio_clips_at_the_top_only_and_refuses_an_empty_span():
    assert ratio(0.25, 0.5) == 0.5
    assert ratio(-0.1, 0.5) == pytest.approx(-0.2) and ratio(0.9, 0.5) == 1.0
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
    part = ("risk_prediction", "spearman_reachable")
    bounds = {("v", 1): {part: (0.6, 1.0)}, ("v", 2): {part: (0.6, 0.8)}}
    only_first = aggregate({("v", 1): {part: 0.9}}, bounds, [("v", 1), ("v", 2)], {"risk"})
    assert only_first.parts[part] == pytest.approx(0.3 / 0.6)
    shares = only_first.contributions["risk"]
    assert sum(shares.values()) / 2 == pytest.approx(0.5)
    assert only_first.overall == pytest.approx(0.5 / 5)
    assert only_first.categories["latent"] is None
