"""risk_prediction: held-out discrimination and calibration on the source-domain test split."""

from __future__ import annotations

import numpy as np

from icgbench.tasks import metrics as m
from icgbench.tasks.base import Blocks, Metric, Normalized, Task, TaskResult, Truth


def _prevalence(truth: Truth) -> float:
    return float(np.mean(truth.event["test"]))


METRICS = (
    Metric("auroc", True, "Area under the ROC curve of proba against the event.", 0.5, 1.0),
    Metric("auprc", True, "Average precision of proba against the event.", _prevalence, 1.0,
           "the test split's event rate"),
    Metric("brier", False, "Mean squared error of proba against the event.", 1 / 3, 0.0),
    Metric("log_loss", False, "Mean negative log-likelihood (proba clipped to 1e-15).",
           1.0, 0.0),
    Metric("ece", False, "Expected calibration error over 10 equal-width bins.",
           lambda t: m.ece_of_uniform(_prevalence(t)), 0.0,
           "mean over the 10 bin centres c of |c - event rate|", ranked=False),
    Metric("mean_proba", None, "Mean predicted probability.", 0.5),
    Metric("event_rate", None, "Observed event rate of the test split.", _prevalence,
           baseline_text="the event rate itself"),
)


def score(blocks: Blocks, truth: Truth) -> TaskResult:
    p = blocks["risk_prediction"]["proba"]
    y = truth.event["test"]
    auroc, auprc = m.ranking_metrics(y, p)
    return TaskResult(
        metrics={
            "auroc": auroc,
            "auprc": auprc,
            "brier": m.brier(y, p),
            "log_loss": m.log_loss(y, p),
            "ece": m.ece(y, p),
            "mean_proba": float(np.mean(p)),
            "event_rate": float(np.mean(y)),
        },
        details={"n": len(y)},
    )


TASK = Task(
    name="risk_prediction",
    order=10,
    description="Discrimination and calibration of the predicted event probability of the "
    "source-domain test subjects.",
    blocks=("risk_prediction",),
    truth_tables=("test_outcomes", "reachable_risks", "model_free_scores"),
    metrics=METRICS,
    headline=("auroc", "auprc", "brier", "ece"),
    score=score,
    category="risk",
    normalized=(Normalized("auroc"), Normalized("auprc")),
    reachable=lambda truth: {"risk_prediction": {"proba": truth.reachable_risk["test"]}},
)
