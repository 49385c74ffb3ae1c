"""Normalized category scores and ``overall``: one scale for every task, model-free at 0.

Each task counts for one category (risk, latent, intervention, transfer, structure) and
declares which of its metrics make the category's score (:class:`.base.Normalized`). For a
metric with score ``s``, chance level ``floor`` and best reachable value ``ceiling``::

    normalized = clip((s - floor) / (ceiling - floor), 0, 1)

The floor is the metric's random baseline unless the task names another chance level
(R^2's is 0, predicting the mean; an effect's is predicting no change). The ceiling is the
score of the task's *reachable* submission where the task has one, the best answer any
function of the subjects' states can give (the frailty, which acts through no state, is
integrated out); otherwise the metric's best value. A category's score is the mean of its
metrics' normalized scores; ``overall`` is the mean over every category, a category not
attempted counting 0 (the random model's value), so a submission of one block cannot top a
model that attempts everything. All of it is computed per cohort, in every score report;
averages over cohorts average these per-cohort values.
"""

from __future__ import annotations

import math

from icgbench.contract.vocabulary import CATEGORIES
from icgbench.tasks.base import Task, TaskResult, Truth

OVERALL_NOTE = ("overall = mean over the categories (risk, latent, intervention, transfer, "
                "structure) of the normalized score clip((s - chance) / (ceiling - chance), "
                "0, 1), averaged over each category's headline metrics; a category not "
                "attempted counts 0")


def normalize(score: float | None, floor: float | None, ceiling: float | None,
              higher_is_better: bool = True) -> float | None:
    """clip((score - floor) / (ceiling - floor), 0, 1); 0 for a missing score; None when
    the floor or ceiling is unknown or the ceiling is not better than the floor (nothing
    to separate: e.g. every intervention's true direction is the prior's)."""
    if floor is None or ceiling is None or not math.isfinite(floor) or (
            not math.isfinite(ceiling)):
        return None
    if (ceiling <= floor) if higher_is_better else (ceiling >= floor):
        return None
    if score is None or not math.isfinite(score):
        return 0.0
    return min(1.0, max(0.0, (score - floor) / (ceiling - floor)))


def ceilings(task: Task, truth: Truth) -> dict[str, float | None]:
    """Each normalized metric's ceiling for this truth (see the module)."""
    reachable = (task.score(task.reachable(truth), truth).metrics
                 if task.reachable is not None else {})
    return {part.metric: (reachable.get(part.metric) if task.reachable is not None
                          else task.metric(part.metric).best) for part in task.normalized}


def floors(task: Task, truth: Truth, result: TaskResult) -> dict[str, float | None]:
    """Each normalized metric's chance level for this truth and result."""
    return {part.metric: (part.floor(truth, result) if part.floor is not None
                          else task.metric(part.metric).baseline(truth))
            for part in task.normalized}


def category_score(task: Task, truth: Truth, result: TaskResult) -> dict[str, object]:
    """The task's category score and its parts: {"score", "parts": {metric: {...}}}."""
    low, high = floors(task, truth, result), ceilings(task, truth)
    parts = {}
    for part in task.normalized:
        value = normalize(result.metrics.get(part.metric), low[part.metric], high[part.metric],
                          bool(task.metric(part.metric).higher_is_better))
        parts[part.metric] = {"score": result.metrics.get(part.metric),
                              "chance": low[part.metric], "ceiling": high[part.metric],
                              "normalized": value}
    defined = [p["normalized"] for p in parts.values() if p["normalized"] is not None]
    return {"score": sum(defined) / len(defined) if defined else None, "parts": parts}


def overall(scores: dict[str, float | None]) -> float:
    """The mean over every category; a category not attempted (or undefined) counts 0."""
    return sum(scores.get(c) or 0.0 for c in CATEGORIES) / len(CATEGORIES)
