"""score_summary: the headline numbers, the seed's composite and the normalized overall."""

from __future__ import annotations

import math

from icgbench.tasks.base import TaskResult, Truth
from icgbench.tasks.metrics import mean
from icgbench.tasks.normalized import categories as all_categories
from icgbench.tasks.normalized import category_score, overall, overall_note

COMPOSITE_NOTE = (
    "composite = mean of (auroc, r2_mean, conformity) where finite, as the seed defines it; "
    "a convenience, NOT the canonical metric: it averages only the attempted blocks (see "
    "overall)"
)


def _get(results: dict[str, TaskResult], task: str, metric: str) -> float | None:
    result = results.get(task)
    return None if result is None else result.metrics.get(metric)


def normalized_scores(results: dict[str, TaskResult], truth: Truth
                      ) -> dict[str, dict[str, object]]:
    """Per attempted category, its normalized score and parts (:mod:`.normalized`)."""
    from icgbench.tasks import TASKS

    return {task.category: category_score(task, truth, results[name])
            for name, task in TASKS.items() if name in results and task.normalized}


def score_summary(results: dict[str, TaskResult],
                  categories: dict[str, dict[str, object]],
                  shown: tuple[str, ...] | None = None) -> dict[str, object]:
    """auroc, r2_mean, conformity, auroc_target, transfer_gap, the seed's composite and its
    note, the normalized score of every category (None where not attempted; ``categories``
    from :func:`normalized_scores`) and overall, the mean over the categories ``shown``
    (all but on the sealed track's public half: :mod:`.withheld`)."""
    auroc = _get(results, "risk_prediction", "auroc")
    r2_mean = _get(results, "latent_recovery", "r2_mean")
    conformity = _get(results, "intervention_conformity", "responsive_dgp_conformity")
    parts = [v for v in (auroc, r2_mean, conformity) if v is not None and math.isfinite(v)]
    every = all_categories()
    shown = every if shown is None else shown
    normalized = {c: categories[c]["score"] if c in categories else None for c in every}
    blocked = [c for c in every if "note" in categories.get(c, {})]
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
        "normalized": normalized,
        "overall": None if blocked else overall(normalized, shown),
        "overall_note": (f"overall is not computed: {categories[blocked[0]]['note']}"
                         if blocked else overall_note() if shown == every else
                         f"{overall_note()}; on the sealed track's public half, the mean over "
                         f"{', '.join(shown)} ({', '.join(c for c in every if c not in shown)}"
                         " withheld until the generation is retired)"),
    }
