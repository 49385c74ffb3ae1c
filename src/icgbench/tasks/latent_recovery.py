"""latent_recovery: R^2 of the predicted end-of-follow-up bottleneck states.

This is what makes the benchmark causal rather than purely predictive: a model can reach a
high AUROC without recovering any state. ``r2_mean`` averages over *all* nine states, an
unsubmitted state counting as 0 (the R^2 of predicting the mean), so nobody ranks by
submitting only the easy states. A submitted state always has an R^2: predictions so far
off that the sum of squares would overflow are rescaled first, and an R^2 below the most
negative double is reported as that double (-1.7976931348623157e308), so an absurd
prediction can only lower ``r2_mean``, never turn it into a missing value that a composite
would skip.
"""

from __future__ import annotations

from icgbench.contract.vocabulary import STATES
from icgbench.tasks import metrics as m
from icgbench.tasks.base import (
    IDS,
    Blocks,
    Metric,
    Normalized,
    Task,
    TaskResult,
    Truth,
)

METRICS = (
    *(Metric(f"r2__{s}", True, f"R^2 of the predicted end-of-follow-up {s}; only for "
             "submitted states.", 0.0, 1.0) for s in STATES),
    Metric("r2_mean", True, "Mean R^2 over all nine states, an unsubmitted state counting "
           "as 0.", 0.0, 1.0),
    Metric("n_states", None, "Number of states submitted."),
)


def score(blocks: Blocks, truth: Truth) -> TaskResult:
    states = blocks["latent_recovery"]["states"]
    values: dict[str, float | None] = {}
    for s in STATES:
        if s in states:
            values[f"r2__{s}"] = m.r2(truth.end_states[s], states[s])
    r2_mean = m.mean([values.get(f"r2__{s}") or 0.0 for s in STATES])
    metrics = {**values, "r2_mean": r2_mean, "n_states": len(states)}
    return TaskResult(metrics, {"states_submitted": [s for s in STATES if s in states]})


TASK = Task(
    name="latent_recovery",
    order=20,
    description="R^2 between predicted and true end-of-follow-up bottleneck states of the "
    "source-domain test subjects.",
    blocks=("latent_recovery",),
    truth_tables=("test_outcomes", "test_states", "model_free_scores"),
    block_schema={
        "type": "object", "additionalProperties": False,
        "required": ["subject_id", "states"],
        "description": "Predicted end-of-follow-up value of bottleneck states for every "
        "test subject; a state left out scores R^2 = 0.",
        "properties": {
            "subject_id": IDS,
            "states": {
                "type": "object", "minProperties": 1, "additionalProperties": False,
                "properties": {s: {"$ref": "#/definitions/numbers"} for s in STATES},
            },
        },
    },
    metrics=METRICS,
    headline=("r2_mean",),
    score=score,
    category="latent",
    normalized=(Normalized("r2_mean"),),
)
