"""Rankings across variants and difficulty tiers, from the reports' normalized scores.

Every score report carries each attempted category's normalized score and ``overall``
(:mod:`icgbench.tasks.normalized`: chance 0, the reachable ceiling 1, per cohort, a cohort
being one (variant, seed)). A sweep's ``summary.csv`` averages them over the seeds of each
variant (its ``cohort`` column names the variant, as the seed's ``--cohort`` flag does);
this module averages those over the variants, so over every cohort, and ranks.

Difficulty tier of a (variant, category), from the best competitor's normalized score (not
the oracle or the ceiling, which read the truth, and not random): calibration >= 0.75 >
standard >= 0.50 > advanced >= 0.25 > frontier. Its headroom is 1 minus that score: how far
the best reference is from the best any model of the states can reach.

Rankings across cohorts: per model and category, the normalized score averaged over the
variants where the model attempted the category, ranked among the competitors that
attempted it (1 is best; equal scores share the better rank); a model that attempted the
category nowhere has no score and no rank there. The overall rank orders ``overall``
averaged over cohorts, where a category not attempted counts 0. Models that read the truth
are shown, never ranked.
"""

from __future__ import annotations

import pandas as pd

from icgbench.contract.vocabulary import CATEGORIES

RANDOM_MODEL = "random"
#: Scores equal to this many decimals share a rank (sums in another order are not a lead).
RANK_DECIMALS = 9
TIERS = (("calibration", 0.75), ("standard", 0.50), ("advanced", 0.25), ("frontier", -1.0))


def column(category: str) -> str:
    """The summary.csv column of a category's mean normalized score over seeds."""
    return f"summary.normalized_{category}_mean"


OVERALL = "summary.overall_mean"


def difficulty(best_normalized: float) -> str:
    """The tier of a task from its best competitor's normalized score."""
    for name, threshold in TIERS:
        if best_normalized >= threshold:
            return name
    return TIERS[-1][0]


def _numeric(summary: pd.DataFrame, name: str) -> pd.Series:
    if name not in summary.columns:
        return pd.Series(float("nan"), index=summary.index)
    return pd.to_numeric(summary[name], errors="coerce")


def difficulty_tiers(summary: pd.DataFrame) -> pd.DataFrame:
    """Per (variant, category): the best competitor, its normalized score, headroom,
    tier."""
    rows = []
    candidates = summary[~summary.oracle.astype(bool) & (summary.model != RANDOM_MODEL)]
    for cohort, group in candidates.groupby("cohort", sort=False):
        for category in CATEGORIES:
            values = _numeric(group, column(category))
            if values.notna().any():
                best = group.loc[values.idxmax()]
                score = float(values.max())
                rows.append({"cohort": cohort, "category": category,
                             "best_model": best.model, "normalized": score,
                             "headroom": 1.0 - score, "tier": difficulty(score)})
    return pd.DataFrame(rows, columns=["cohort", "category", "best_model", "normalized",
                                       "headroom", "tier"])


def _ranks(scores: pd.Series) -> pd.Series:
    return scores.round(RANK_DECIMALS).rank(method="min", ascending=False).astype("Int64")


def rankings(summary: pd.DataFrame) -> pd.DataFrame:
    """Per model: each category's mean normalized score over the cohorts it attempted and
    its rank, and the overall rank by ``overall`` averaged over cohorts (see the module)."""
    rows = {}
    for model, group in summary.groupby("model", sort=False):
        row: dict[str, object] = {"oracle": bool(group.oracle.astype(bool).any())}
        for category in CATEGORIES:
            row[category] = float(_numeric(group, column(category)).mean())
        row["overall"] = float(_numeric(group, OVERALL).mean())
        rows[model] = row
    frame = pd.DataFrame.from_dict(rows, orient="index")
    ranked = frame[~frame.oracle]
    for name in [*CATEGORIES, "overall"]:
        frame[f"{name}_rank"] = _ranks(ranked[name].dropna()).reindex(frame.index)
    frame.index.name = "model"
    return frame.sort_values(["oracle", "overall_rank"], kind="stable")
