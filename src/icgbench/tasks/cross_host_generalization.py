"""cross_host_generalization: discrimination on target-domain hosts, without refitting.

**The transfer rule** (the one statement of it; docs/dgp.md describes the shift and points
here): the ``cross_host_generalization`` block must come from the same fitted model as
``risk_prediction`` (which this task therefore requires), applied unchanged to the
target-test subjects. Nothing may be fitted, refitted, recalibrated or standardised on
target-domain data, labelled or not: no per-site standardisation of the omics, assays or
proxies, no importance weighting by target covariates, no test-time adaptation. Statistics
of the source (train) split are the only ones a model may carry. The scorer cannot see how
predictions were made; the rule is reviewed on every leaderboard pull request.

``transfer_gap`` and ``excess_transfer_gap`` are descriptive, not scores: a model with no
skill has no gap, so ranking by the smallest gap would put ``random`` first. The task ranks
by ``spearman_reachable_target``, the rank correlation of the target predictions with the
target subjects' reachable risk (as risk_prediction's category, and for the same reason:
the AUROC against one draw of the events is too coarse for the span it must measure).
"""

from __future__ import annotations

from icgbench.tasks import metrics as m
from icgbench.tasks.base import (
    IDS,
    PROBABILITIES,
    Blocks,
    Metric,
    Normalized,
    Task,
    TaskResult,
    Truth,
)
from icgbench.tasks.risk_prediction import reachable_correlation

METRICS = (
    Metric("spearman_reachable_target", True, "Spearman's rank correlation of the target "
           "proba with the target subjects' reachable risk; 0 for a constant proba.", 0.0,
           1.0),
    Metric("auroc_source", True, "AUROC on the source-domain test split (risk_prediction).",
           0.5, 1.0),
    Metric("auroc_target", True, "AUROC on the target-domain test split.", 0.5, 1.0),
    Metric("transfer_gap", None, "auroc_source - auroc_target. Descriptive, not ranked: "
           "a model with no skill has no gap (random's is about 0), so a small gap is only "
           "good beside a high auroc_target, which is what the task ranks by.", 0.0),
    Metric("excess_transfer_gap", None,
           "transfer_gap minus the true risk's own gap on the same subjects "
           "(true_gap = AUROC of true_risk on test - on target_test), so a target that is "
           "intrinsically easier or harder counts for nobody. Descriptive, as transfer_gap.",
           lambda truth: _negated(true_gap(truth)),
           baseline_text="-true_gap (a random predictor's gap is 0)"),
)


def _negated(value: float | None) -> float | None:
    return None if value is None else -value


def _gap(source: float | None, target: float | None) -> float | None:
    return None if source is None or target is None else source - target


def true_gap(truth: Truth) -> float | None:
    """The transfer gap of the true risk itself (what the shift does to the best ranking)."""
    return _gap(m.auroc(truth.event["test"], truth.true_risk["test"]),
                m.auroc(truth.event["target_test"], truth.true_risk["target_test"]))


def score(blocks: Blocks, truth: Truth) -> TaskResult:
    source = m.auroc(truth.event["test"], blocks["risk_prediction"]["proba"])
    target = m.auroc(truth.event["target_test"], blocks["cross_host_generalization"]["proba"])
    gap = _gap(source, target)
    reference = true_gap(truth)
    excess = None if gap is None or reference is None else gap - reference
    correlation = reachable_correlation(truth, "target_test",
                                        blocks["cross_host_generalization"]["proba"])
    return TaskResult({"spearman_reachable_target": correlation, "auroc_source": source,
                       "auroc_target": target, "transfer_gap": gap,
                       "excess_transfer_gap": excess},
                      {"n_target": len(truth.event["target_test"]), "true_gap": reference})


TASK = Task(
    name="cross_host_generalization",
    order=40,
    description="AUROC on target-domain subjects (another site and population: hosts far "
    "outside the source's range, mixed exposures, a measurement shift of the omics) beside "
    "the source domain, from the same fitted model.",
    blocks=("risk_prediction", "cross_host_generalization"),
    truth_tables=("test_outcomes", "reachable_risks", "model_free_scores"),
    block_schema={
        "type": "object", "additionalProperties": False,
        "required": ["subject_id", "proba"],
        "description": "Predicted event probability of every target-test subject, from "
        "the same fitted model as risk_prediction (no refitting).",
        "properties": {"subject_id": IDS, "proba": PROBABILITIES},
    },
    split="target_test",
    metrics=METRICS,
    headline=("spearman_reachable_target", "auroc_source", "auroc_target", "transfer_gap",
              "excess_transfer_gap"),
    score=score,
    category="transfer",
    normalized=(Normalized("spearman_reachable_target"),),
    reachable=lambda truth: {
        "risk_prediction": {"proba": truth.reachable_risk["test"]},
        "cross_host_generalization": {"proba": truth.reachable_risk["target_test"]}},
    rank_by="spearman_reachable_target",
)
