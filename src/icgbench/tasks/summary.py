"""score_summary: the headline numbers and the (explicitly non-canonical) composite."""

from __future__ import annotations

import math

from icgbench.tasks.base import TaskResult
from icgbench.tasks.metrics import mean

COMPOSITE_NOTE = (
    "composite = mean of (auroc, r2_mean, conformity) where finite; a ranking convenience, "
    "NOT the canonical metric (compare the task metrics themselves)"
)


def _get(results: dict[str, TaskResult], task: str, metric: str) -> float | None:
    result = results.get(task)
    return None if result is None else result.metrics.get(metric)


def score_summary(results: dict[str, TaskResult]) -> dict[str, float | str | None]:
    """auroc, r2_mean, conformity, auroc_target, transfer_gap, composite and its note."""
    auroc = _get(results, "risk_prediction", "auroc")
    r2_mean = _get(results, "latent_recovery", "r2_mean")
    conformity = _get(results, "intervention_conformity", "responsive_dgp_conformity")
    parts = [v for v in (auroc, r2_mean, conformity) if v is not None and math.isfinite(v)]
    return {
        "auroc": auroc,
        "r2_mean": r2_mean,
        "conformity": conformity,
        "auroc_target": _get(results, "cross_host_generalization", "auroc_target"),
        "transfer_gap": _get(results, "cross_host_generalization", "transfer_gap"),
        "composite": mean(parts) if parts else None,
        "composite_note": COMPOSITE_NOTE,
        "prior_conformity_tolerant": _get(results, "intervention_conformity",
                                          "prior_conformity_tolerant"),
    }
