"""Normalized category scores and ``overall``: one scale for every task, "no better than
reading the code" at 0, the reachable ceiling at 1.

Each task counts for one category (risk, latent, intervention, transfer, structure) and
declares which of its metrics make the category's score (:class:`.base.Normalized`). A
metric has a score ``s`` on a cohort, a floor ``f`` and a ceiling ``c``. The floor is the
best value of the model-free panel on the cohort (the truth table ``model_free_scores``,
:mod:`icgbench.model_free`), or the metric's chance level when that is higher (the random
baseline, or the rule the task names). The ceiling is the score of the task's *reachable*
submission where the task has one (the best any function of the subjects' states can
give; the frailty, which acts through no state, integrated out), otherwise the metric's
best value.

On one cohort, ``normalized = clip((s - f) / (c - f), 0, 1)`` (a lower-is-better metric
has ``f > c`` and the same formula holds); a metric whose ceiling is not better than its
floor separates nothing there and is left out. Over several cohorts (a model's seeds of a
variant, or every cohort) the mean is normalized, not each cohort::

    normalized = clip(sum(s - f) / sum(c - f), 0, 1)

over the cohorts where the metric is defined, so an answer whose expected score is at most
the floor on every cohort (a random guess) has an expected normalized mean of at most 0:
clipping each cohort at 0 first would count a lucky guess and forgive an unlucky one. A
category's score is the mean of its metrics' normalized scores; ``overall`` is the mean
over every category, a category not attempted counting 0.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from icgbench.contract.vocabulary import CATEGORIES
from icgbench.tasks.base import Task, TaskResult, Truth

OVERALL_NOTE = ("overall = mean over the categories (risk, latent, intervention, transfer, "
                "structure) of the normalized score clip((s - floor) / (ceiling - floor), "
                "0, 1), averaged over each category's headline metrics; the floor is the "
                "best model-free answer (model_free_scores) or chance, the ceiling the "
                "reachable one; a category not attempted counts 0")
#: A cohort's gain below minus this counts as this (an absurd prediction's R^2 near the
#: most negative double must not overflow the sum; the mean is 0 after clipping anyway).
LOWEST_GAIN = 1e12
#: The answer name a floor carries when the chance level is above every panel answer.
CHANCE = "chance"


def ratio(gain: float, span: float) -> float | None:
    """clip(gain / span, 0, 1), or None when the span is not positive (nothing to
    separate). ``gain = s - f``, ``span = c - f`` (negated for lower-is-better metrics)."""
    if not math.isfinite(span) or span <= 0:
        return None
    if not math.isfinite(gain):
        return 0.0
    return min(1.0, max(0.0, gain / span))


def signed(value: float, higher_is_better: bool) -> float:
    """A difference turned so that larger is better."""
    return value if higher_is_better else -value


def ceilings(task: Task, truth: Truth) -> dict[str, float | None]:
    """Each normalized metric's ceiling for this truth (see the module)."""
    reachable = (task.score(task.reachable(truth), truth).metrics
                 if task.reachable is not None else {})
    return {part.metric: (reachable.get(part.metric) if task.reachable is not None
                          else task.metric(part.metric).best) for part in task.normalized}


def floors(task: Task, truth: Truth) -> dict[str, tuple[float, str] | None]:
    """Each normalized metric's floor for this truth and where it comes from: (value,
    answer), the answer ``chance`` when the chance level is higher than the panel's best;
    None without a panel (``model_free_scores``)."""
    out: dict[str, tuple[float, str] | None] = {}
    for part in task.normalized:
        panel = truth.panel.get((task.name, part.metric))
        if panel is None:
            out[part.metric] = None
            continue
        chance = (part.floor(truth) if part.floor is not None
                  else task.metric(part.metric).baseline(truth))
        higher = bool(task.metric(part.metric).higher_is_better)
        if chance is not None and signed(chance - panel[0], higher) > 0:
            out[part.metric] = (float(chance), CHANCE)
        else:
            out[part.metric] = panel
    return out


def category_score(task: Task, truth: Truth, result: TaskResult) -> dict[str, object]:
    """The task's category score on one cohort and its parts: {"score", "parts": {metric:
    {"score", "floor", "floor_answer", "ceiling", "normalized"}}}, and "note" when the
    result cannot be normalized."""
    reason = task.unnormalizable(result) if task.unnormalizable is not None else None
    low, high = floors(task, truth), ceilings(task, truth)
    parts = {}
    for part in task.normalized:
        higher = bool(task.metric(part.metric).higher_is_better)
        score, floor, ceiling = result.metrics.get(part.metric), low[part.metric], \
            high[part.metric]
        if part.metric not in result.metrics:  # withheld (tasks.withheld): left out
            continue
        value = None
        if reason is None and floor is not None and ceiling is not None:
            s = score if score is not None else math.nan
            value = ratio(signed(s - floor[0], higher), signed(ceiling - floor[0], higher))
        parts[part.metric] = {"score": score,
                              "floor": None if floor is None else floor[0],
                              "floor_answer": None if floor is None else floor[1],
                              "ceiling": ceiling, "normalized": value}
    defined = [p["normalized"] for p in parts.values() if p["normalized"] is not None]
    out: dict[str, object] = {"score": sum(defined) / len(defined) if defined else None,
                              "parts": parts}
    if reason is not None:
        out["note"] = reason
    return out


def overall(scores: Mapping[str, float | None], shown: tuple[str, ...] = CATEGORIES
            ) -> float:
    """The mean over every category ``shown`` (all of them but on the sealed track's public
    half: :mod:`.withheld`); a category not attempted (or undefined) counts 0."""
    return sum(scores.get(c) or 0.0 for c in shown) / len(shown)


def mean_normalized(parts: Iterable[tuple[float | None, float, float]],
                    higher_is_better: bool) -> float | None:
    """One metric's normalized mean over cohorts from (score, floor, ceiling) per cohort:
    clip(sum(s - f) / sum(c - f), 0, 1) over the cohorts where the ceiling is better than
    the floor (a missing score counts as the floor); None when there is none."""
    gains, spans = [], []
    for score, floor, ceiling in parts:
        span = signed(ceiling - floor, higher_is_better)
        if not span > 0:
            continue
        spans.append(span)
        gain = signed(score - floor, higher_is_better) if score is not None else 0.0
        gains.append(max(gain, -LOWEST_GAIN) if math.isfinite(gain) else 0.0)
    if not spans:
        return None
    return ratio(math.fsum(gains), math.fsum(spans))


#: A normalized metric: (task, metric).
Part = tuple[str, str]
#: A cohort: (variant, seed).
Cohort = tuple[str, int]


def parts_of_categories() -> dict[str, list[Part]]:
    """Each category's normalized metrics, from the task registry."""
    from icgbench.tasks import TASKS

    return {c: [(t.name, p.metric) for t in TASKS.values() if t.category == c
                for p in t.normalized] for c in CATEGORIES}


def higher_is_better(part: Part) -> bool:
    from icgbench.tasks import TASKS

    return bool(TASKS[part[0]].metric(part[1]).higher_is_better)


@dataclass(frozen=True)
class Aggregate:
    """One model's normalized means over a set of cohorts (see the module).

    ``parts``, ``categories`` and ``overall`` are clipped to [0, 1] (None: not attempted, or
    nothing to separate); ``contributions`` holds, per category and for ``overall``, each
    cohort's share of the value (their mean is the value: a metric below its floor over
    the cohorts contributes 0 on every cohort, one above its ceiling is scaled down to it),
    which the board's intervals and paired tests use."""

    parts: dict[Part, float | None]
    categories: dict[str, float | None]
    overall: float
    contributions: dict[str, dict[Cohort, float]]


def aggregate(scores: Mapping[Cohort, Mapping[Part, float | None]],
              bounds: Mapping[Cohort, Mapping[Part, tuple[float, float]]],
              cohorts: list[Cohort], attempted: set[str],
              shown: tuple[str, ...] = CATEGORIES) -> Aggregate:
    """A model's normalized means over ``cohorts``: ``scores`` its metric values where it
    has an entry, ``bounds`` every cohort's (floor, ceiling) per part (the same for every
    model), ``attempted`` the categories it attempts anywhere, ``shown`` those ``overall``
    averages over. A cohort the model has no score for counts as its floor."""
    groups = parts_of_categories()
    part_values: dict[Part, float | None] = {}
    part_shares: dict[Part, dict[Cohort, float]] = {}
    for category in attempted:
        for part in groups[category]:
            higher = higher_is_better(part)
            gains, spans = {}, {}
            for cohort in cohorts:
                floor, ceiling = bounds.get(cohort, {}).get(part, (math.nan, math.nan))
                span = signed(ceiling - floor, higher)
                if not span > 0:
                    continue
                score = scores.get(cohort, {}).get(part)
                gain = signed(score - floor, higher) if score is not None else 0.0
                gains[cohort] = max(gain, -LOWEST_GAIN) if math.isfinite(gain) else 0.0
                spans[cohort] = span
            if not spans:
                part_values[part] = None
                continue
            total = math.fsum(spans.values())
            unclipped = math.fsum(gains.values()) / total
            part_values[part] = ratio(math.fsum(gains.values()), total)
            # each cohort's share of the clipped mean: none below the floor, scaled down
            # above the ceiling, so that the shares' mean is the value reported
            shrink = 0.0 if unclipped <= 0 else min(1.0, 1.0 / unclipped)
            part_shares[part] = {c: shrink * gains.get(c, 0.0) * len(cohorts) / total
                                 for c in cohorts}
    categories: dict[str, float | None] = {}
    contributions: dict[str, dict[Cohort, float]] = {}
    for category in CATEGORIES:
        defined = [p for p in groups[category] if part_values.get(p) is not None]
        if category not in attempted or not defined:
            categories[category] = None
            continue
        categories[category] = math.fsum(part_values[p] for p in defined) / len(defined)
        contributions[category] = {c: math.fsum(part_shares[p][c] for p in defined)
                                   / len(defined) for c in cohorts}
    contributions["overall"] = {c: math.fsum(contributions[k][c] for k in contributions)
                                / len(shown) for c in cohorts}
    return Aggregate(part_values, categories, overall(categories, shown), contributions)
