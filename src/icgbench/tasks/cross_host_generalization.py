"""cross_host_generalization: discrimination on target-domain hosts, without refitting.

The task contract forbids refitting or adapting the model on target-domain data: the
``cross_host_generalization`` block must come from the same fitted model as
``risk_prediction`` (which this task therefore requires), applied to the target-test
subjects. The scorer cannot see how predictions were made; the contract is stated in
docs/tasks.md and reviewed on every leaderboard pull request.
"""

from __future__ import annotations

from icgbench.tasks import metrics as m
from icgbench.tasks.base import Blocks, Metric, Task, TaskResult, Truth

METRICS = (
    Metric("auroc_source", True, "AUROC on the source-domain test split (risk_prediction).",
           0.5, 1.0),
    Metric("auroc_target", True, "AUROC on the target-domain test split.", 0.5, 1.0),
    Metric("transfer_gap", False, "auroc_source - auroc_target.", 0.0, 0.0),
)


def score(blocks: Blocks, truth: Truth) -> TaskResult:
    source = m.auroc(truth.event["test"], blocks["risk_prediction"]["proba"])
    target = m.auroc(truth.event["target_test"], blocks["cross_host_generalization"]["proba"])
    gap = None if source is None or target is None else source - target
    return TaskResult({"auroc_source": source, "auroc_target": target, "transfer_gap": gap},
                      {"n_target": len(truth.event["target_test"])})


TASK = Task(
    name="cross_host_generalization",
    order=40,
    description="AUROC on target-domain hosts (shifted susceptibility) beside the source "
    "domain, from the same fitted model.",
    blocks=("risk_prediction", "cross_host_generalization"),
    truth_tables=("test_outcomes",),
    metrics=METRICS,
    headline=("auroc_source", "auroc_target", "transfer_gap"),
    score=score,
)
