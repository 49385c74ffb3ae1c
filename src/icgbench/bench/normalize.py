"""Rankings across variants and difficulty tiers, from a sweep's per-cohort rows.

Every score report carries each normalized metric's score, floor and ceiling on its cohort
(:mod:`icgbench.tasks.normalized`), and a sweep's ``per_seed.csv`` keeps them as columns
``<task>.<metric>``, ``<task>.<metric>__floor`` and ``<task>.<metric>__ceiling``. This
module normalizes the mean over a model's cohorts (a variant's seeds, or every cohort of
the sweep), as the board does: ``min(sum(s - f) / sum(c - f), 1)`` per metric within each
variant, negative below the floor, the variants averaged, the metrics of a category
averaged, ``overall`` over the five categories with a category not attempted counting 0.

Difficulty tier of a (variant, category), from the best competitor's normalized score (not
the oracle or the ceiling, which read the truth, and not random): calibration >= 0.75 >
standard >= 0.50 > advanced >= 0.25 > frontier. Its headroom is 1 minus that score: how far
the best reference is from the best any model of the states can reach.

Rankings across cohorts: per model and category, the normalized mean over every cohort of
the sweep, ranked among the competitors that attempted the category (1 is best; equal
scores share the better rank); a model that attempted the category nowhere has no score
and no rank there. The overall rank orders ``overall``. Models that read the truth are
shown, never ranked.
"""

from __future__ import annotations

import math

import pandas as pd

from icgbench.tasks import CATEGORIES
from icgbench.tasks.normalized import Aggregate, aggregate, parts_of_categories

RANDOM_MODEL = "random"
#: Scores equal to this many decimals share a rank (sums in another order are not a lead).
RANK_DECIMALS = 9
TIERS = (("calibration", 0.75), ("standard", 0.50), ("advanced", 0.25), ("frontier", -1.0))
FLOOR, CEILING = "__floor", "__ceiling"


def difficulty(best_normalized: float) -> str:
    """The tier of a task from its best competitor's normalized score."""
    for name, threshold in TIERS:
        if best_normalized >= threshold:
            return name
    return TIERS[-1][0]


def _number(value: object) -> float | None:
    try:
        x = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def model_aggregates(per_seed: pd.DataFrame) -> dict[str, Aggregate]:
    """Each model's normalized means over every cohort of ``per_seed`` (a (cohort, seed)
    it has no row for counts as its floor)."""
    from icgbench.tasks import TASKS

    parts = [p for group in parts_of_categories().values() for p in group]
    cohorts = sorted({(str(r.cohort), int(r.seed)) for r in per_seed.itertuples()})
    bounds: dict[tuple[str, int], dict[tuple[str, str], tuple[float, float]]] = {}
    scores: dict[str, dict[tuple[str, int], dict[tuple[str, str], float | None]]] = {}
    attempted: dict[str, set[str]] = {}
    for row in per_seed.to_dict("records"):
        cohort = (str(row["cohort"]), int(row["seed"]))
        mine = scores.setdefault(str(row["model"]), {}).setdefault(cohort, {})
        for task, metric in parts:
            column = f"{task}.{metric}"
            floor, ceiling = _number(row.get(column + FLOOR)), _number(row.get(column + CEILING))
            if floor is None or ceiling is None:
                continue
            bounds.setdefault(cohort, {})[(task, metric)] = (floor, ceiling)
            mine[(task, metric)] = _number(row.get(column))
            attempted.setdefault(str(row["model"]), set()).add(TASKS[task].category)
    return {model: aggregate(by_cohort, bounds, cohorts, attempted.get(model, set()))
            for model, by_cohort in scores.items()}


def _oracles(per_seed: pd.DataFrame) -> set[str]:
    return set(per_seed.loc[per_seed.oracle.astype(bool), "model"].astype(str))


def difficulty_tiers(per_seed: pd.DataFrame) -> pd.DataFrame:
    """Per (variant, category): the best competitor, its normalized score, headroom,
    tier."""
    rows = []
    competitors = per_seed[~per_seed.model.isin(_oracles(per_seed) | {RANDOM_MODEL})]
    for cohort, group in competitors.groupby("cohort", sort=False):
        results = model_aggregates(group)
        for category in CATEGORIES:
            scored = {m: a.categories[category] for m, a in results.items()
                      if a.categories[category] is not None}
            if scored:
                best = max(scored, key=lambda m: (scored[m], m))
                rows.append({"cohort": cohort, "category": category, "best_model": best,
                             "normalized": scored[best], "headroom": 1.0 - scored[best],
                             "tier": difficulty(scored[best])})
    return pd.DataFrame(rows, columns=["cohort", "category", "best_model", "normalized",
                                       "headroom", "tier"])


def _ranks(scores: pd.Series) -> pd.Series:
    return scores.round(RANK_DECIMALS).rank(method="min", ascending=False).astype("Int64")


def rankings(per_seed: pd.DataFrame) -> pd.DataFrame:
    """Per model: each category's normalized mean over every cohort and its rank, and the
    overall rank (see the module)."""
    oracles = _oracles(per_seed)
    rows = {}
    for model, result in model_aggregates(per_seed).items():
        rows[model] = {"oracle": model in oracles,
                       **{c: (math.nan if v is None else v)
                          for c, v in result.categories.items()},
                       "overall": result.overall}
    frame = pd.DataFrame.from_dict(rows, orient="index")
    ranked = frame[~frame.oracle]
    for name in [*CATEGORIES, "overall"]:
        frame[f"{name}_rank"] = _ranks(ranked[name].dropna()).reindex(frame.index)
    frame.index.name = "model"
    return frame.sort_values(["oracle", "overall_rank"], kind="stable")


def variant_overall(per_seed: pd.DataFrame) -> dict[tuple[str, str], float]:
    """(model, variant) -> ``overall`` normalized over the variant's cohorts."""
    out = {}
    for variant, group in per_seed.groupby("cohort", sort=False):
        for model, result in model_aggregates(group).items():
            out[(model, str(variant))] = result.overall
    return out
