"""Normalized category scores and ``overall``: one scale for every task, "no better than
reading the code" at 0, the reachable ceiling at 1.

Each task counts for one category (risk, latent, intervention, transfer, structure) and
declares which of its metrics make the category's score (:class:`.base.Normalized`). A
metric has a score ``s`` on a cohort, a floor ``f`` and a ceiling ``c``. The floor is the
score of the model-free answer chosen for the cohort without its held-out subjects (the
truth table ``model_free_scores`` marks it, :mod:`icgbench.model_free.floors`); the
ceiling is the score of the task's *reachable* submission where the task has one (the best
any function of the subjects' states can give; the frailty, which acts through no state,
integrated out), otherwise the metric's best value.

On one cohort, ``normalized = min((s - f) / (c - f), 1)`` (a lower-is-better metric has
``f > c`` and the same formula holds); a metric whose ceiling is not better than its floor
separates nothing there and is left out. Over several cohorts (a model's seeds of a
variant, or every cohort) the mean is normalized, not each cohort::

    normalized = min(sum(s - f) / sum(c - f), 1)

over the cohorts where the metric is defined. Nothing is clipped at 0: a mean below the
floor is negative, so an answer whose expected score is at most the floor (a random guess)
has an expected normalized mean of at most 0 in every variant, and no gamble is paid. The
only clip is at the top, once, on the mean (an oracle above the reachable ceiling). A
category's score is the mean of its metrics' normalized scores; ``overall`` is the mean
over every category, a category not attempted counting 0 (the floor: what anybody can
submit without a model).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from icgbench.tasks.base import Task, TaskResult, Truth


def categories() -> tuple[str, ...]:
    """The categories, in the order reports list them (the task registry's)."""
    from icgbench.tasks import CATEGORIES

    return CATEGORIES


def overall_note() -> str:
    """What ``overall`` is, as a report says it."""
    return (f"overall = mean over the categories ({', '.join(categories())}) of the "
            "normalized score min((s - floor) / (ceiling - floor), 1), averaged over each "
            "category's normalized metrics; the floor is the model-free answer chosen "
            "without the cohort's held-out subjects (model_free_scores), the ceiling the "
            "reachable one; below the floor is negative; a category not attempted counts 0")

#: A cohort's gain below minus this many spans counts as this: an absurd prediction (an
#: R^2 near the most negative double) must not overflow a sum, and a mean this far below
#: the floor says all there is to say.
LOWEST_GAIN = 1e12


def ratio(gain: float, span: float) -> float | None:
    """min(gain / span, 1), or None when the span is not positive (nothing to separate).
    ``gain = s - f``, ``span = c - f`` (negated for lower-is-better metrics); a missing
    score's gain (not finite) counts as the floor's, 0."""
    if not math.isfinite(span) or span <= 0:
        return None
    if not math.isfinite(gain):
        return 0.0
    return min(1.0, max(-LOWEST_GAIN, gain / span))


def signed(value: float, higher_is_better: bool) -> float:
    """A difference turned so that larger is better."""
    return value if higher_is_better else -value


def ceilings(task: Task, truth: Truth) -> dict[str, float | None]:
    """Each normalized metric's ceiling for this truth (see the module)."""
    reachable = (task.score(task.reachable(truth), truth).metrics
                 if task.reachable is not None else {})
    return {part.metric: (reachable.get(part.metric) if task.reachable is not None
                          else task.metric(part.metric).best) for part in task.normalized}


def chance_level(task: Task, part_metric: str, truth: Truth) -> float | None:
    """A normalized metric's chance level on this truth: the part's own rule where it has
    one, else the metric's random baseline (the panel's ``chance`` answer)."""
    part = next(p for p in task.normalized if p.metric == part_metric)
    return (part.floor(truth) if part.floor is not None
            else task.metric(part_metric).baseline(truth))


def floors(task: Task, truth: Truth) -> dict[str, tuple[float, str] | None]:
    """Each normalized metric's floor for this truth and the answer it is the score of:
    the row ``model_free_scores`` marks as the floor (None without the table)."""
    return {part.metric: truth.panel.get((task.name, part.metric)) for part in task.normalized}


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


def overall(scores: Mapping[str, float | None], shown: tuple[str, ...] | None = None
            ) -> float:
    """The mean over every category ``shown`` (all of them but on the sealed track's public
    half: :mod:`.withheld`); a category not attempted (or undefined) counts 0."""
    shown = categories() if shown is None else shown
    return sum(scores.get(c) or 0.0 for c in shown) / len(shown)


def mean_normalized(parts: Iterable[tuple[float | None, float, float]],
                    higher_is_better: bool) -> float | None:
    """One metric's normalized mean over cohorts from (score, floor, ceiling) per cohort:
    min(sum(s - f) / sum(c - f), 1) over the cohorts where the ceiling is better than the
    floor (a missing score counts as the floor); None when there is none."""
    gains, spans = [], []
    for score, floor, ceiling in parts:
        span = signed(ceiling - floor, higher_is_better)
        if not span > 0:
            continue
        spans.append(span)
        gain = signed(score - floor, higher_is_better) if score is not None else 0.0
        gains.append(_bounded(gain, span))
    if not spans:
        return None
    return ratio(math.fsum(gains), math.fsum(spans))


def _bounded(gain: float, span: float) -> float:
    """A cohort's gain, at least ``-LOWEST_GAIN`` spans (an absurd score); a missing score
    (not finite) counts as the floor, 0."""
    return max(gain, -LOWEST_GAIN * span) if math.isfinite(gain) else 0.0


#: A normalized metric: (task, metric).
Part = tuple[str, str]
#: A cohort: (variant, seed).
Cohort = tuple[str, int]


def parts_of_categories() -> dict[str, list[Part]]:
    """Each category's normalized metrics, from the task registry."""
    from icgbench.tasks import TASKS

    return {c: [(t.name, p.metric) for t in TASKS.values() if t.category == c
                for p in t.normalized] for c in categories()}


def higher_is_better(part: Part) -> bool:
    from icgbench.tasks import TASKS

    return bool(TASKS[part[0]].metric(part[1]).higher_is_better)


def _part_over_variants(part: Part, scores: Mapping[Cohort, Mapping[Part, float | None]],
                        bounds: Mapping[Cohort, Mapping[Part, tuple[float, float]]],
                        by_variant: Mapping[str, list[Cohort]]
                        ) -> tuple[float | None, dict[Cohort, float] | None]:
    """One metric's normalized mean over the cohorts of several variants: each variant's
    pooled mean (sum of gains over sum of spans, at most 1), then their mean over the
    variants where it is defined (every variant weighs the same, whatever its spans); and
    each cohort's share of it (the shares' mean over all the cohorts is the value)."""
    higher = higher_is_better(part)
    total = sum(len(c) for c in by_variant.values())
    ratios: dict[str, float] = {}
    gains_of: dict[str, tuple[dict[Cohort, float], float, float]] = {}
    for variant, cohorts in by_variant.items():
        gains, spans = {}, {}
        for cohort in cohorts:
            floor, ceiling = bounds.get(cohort, {}).get(part, (math.nan, math.nan))
            span = signed(ceiling - floor, higher)
            if not span > 0:
                continue
            score = scores.get(cohort, {}).get(part)
            gains[cohort] = _bounded(signed(score - floor, higher) if score is not None
                                     else 0.0, span)
            spans[cohort] = span
        if not spans:
            continue
        summed = math.fsum(spans.values())
        unclipped = math.fsum(gains.values()) / summed
        ratios[variant] = min(1.0, unclipped)
        # scaled down above the ceiling, so that the shares' mean is the value reported
        gains_of[variant] = (gains, summed, 1.0 if unclipped <= 1.0 else 1.0 / unclipped)
    if not ratios:
        return None, None
    shares = {c: shrink * g * total / (len(ratios) * summed)
              for gains, summed, shrink in gains_of.values() for c, g in gains.items()}
    return math.fsum(ratios.values()) / len(ratios), shares


@dataclass(frozen=True)
class Aggregate:
    """One model's normalized means over a set of cohorts (see the module).

    ``parts``, ``categories`` and ``overall`` are at most 1 and may be negative (None: not
    attempted, or nothing to separate); ``contributions`` holds, per category and for
    ``overall``, each cohort's share of the value (their mean is the value: a metric above
    its ceiling over the cohorts is scaled down to it), which the board's intervals and
    paired tests use."""

    parts: dict[Part, float | None]
    categories: dict[str, float | None]
    overall: float
    contributions: dict[str, dict[Cohort, float]]


def aggregate(scores: Mapping[Cohort, Mapping[Part, float | None]],
              bounds: Mapping[Cohort, Mapping[Part, tuple[float, float]]],
              cohorts: list[Cohort], attempted: set[str],
              shown: tuple[str, ...] | None = None) -> Aggregate:
    """A model's normalized means over ``cohorts``: ``scores`` its metric values where it
    has an entry, ``bounds`` every cohort's (floor, ceiling) per part (the same for every
    model), ``attempted`` the categories it attempts anywhere, ``shown`` those ``overall``
    averages over. A cohort the model has no score for counts as its floor. Over several
    variants, each metric is pooled within each variant first and the variants' means are
    averaged (:func:`_part_over_variants`): a variant whose spans are wide does not outweigh
    the others."""
    groups = parts_of_categories()
    part_values: dict[Part, float | None] = {}
    part_shares: dict[Part, dict[Cohort, float]] = {}
    by_variant: dict[str, list[Cohort]] = {}
    for cohort in cohorts:
        by_variant.setdefault(cohort[0], []).append(cohort)
    for category in attempted:
        for part in groups[category]:
            means, shares = _part_over_variants(part, scores, bounds, by_variant)
            part_values[part] = means
            if shares is not None:
                part_shares[part] = {c: shares.get(c, 0.0) for c in cohorts}
    every = categories()
    shown = every if shown is None else shown
    means: dict[str, float | None] = {}
    contributions: dict[str, dict[Cohort, float]] = {}
    for category in every:
        defined = [p for p in groups[category] if part_values.get(p) is not None]
        if category not in attempted or not defined:
            means[category] = None
            continue
        means[category] = math.fsum(part_values[p] for p in defined) / len(defined)
        contributions[category] = {c: math.fsum(part_shares[p][c] for p in defined)
                                   / len(defined) for c in cohorts}
    contributions["overall"] = {c: math.fsum(contributions[k][c] for k in contributions)
                                / len(shown) for c in cohorts}
    return Aggregate(part_values, means, overall(means, shown), contributions)
