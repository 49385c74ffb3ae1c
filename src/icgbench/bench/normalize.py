"""The normalized composite and difficulty tiers (after SpaceOmicsBench).

For each headline metric, ``normalized = max(0, (score - random) / (best - random))``, with
``best`` the metric's ideal value and ``random`` the `random` model's mean score on the same
cohort in the same sweep. R^2 has no lower bound, and a uniform random guess sends it to
arbitrary negative values, so for ``r2_mean`` ``random`` is the metric's chance level (0,
predicting the mean). Categories (risk, latent, intervention, transfer, structure) weigh
equally, and the metrics inside a category too; a task a model does not attempt scores 0 in
its category. Intervention averages the responsive DGP conformity (is each average change's
sign right?) with ``ate_mae`` (how far is each average change from the true one, best 0): a
count of seven signs saturates once a model has the prior's signs, while the size of the
effects, which the DGP propagates through the whole follow-up and every descendant state,
still separates models from the truth. Structure is graded at each model's calibrated K*.
This composite is reported beside the seed's (mean of auroc, r2_mean, conformity); neither
is canonical.

Difficulty tier of a (cohort, task), from the best non-oracle model's normalized score:
calibration >= 0.75 > standard >= 0.50 > advanced >= 0.25 > frontier.

Rankings across cohorts: per model and category, the normalized score averaged over the
cohorts where the model attempted the category (submitted any of its metrics), ranked
among the non-oracle models that attempted it (1 is best; equal scores share the better
rank); a model that attempted the category nowhere has no score and no rank there. The
overall rank orders the normalized composite averaged over cohorts, where a category not
attempted counts 0 as above. The oracle reads the truth: it is shown, never ranked.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: Category -> the per-seed columns it averages (normalized), with each metric's best value.
CATEGORIES: dict[str, dict[str, float]] = {
    "risk": {"risk_prediction.auroc": 1.0, "risk_prediction.auprc": 1.0},
    "latent": {"latent_recovery.r2_mean": 1.0},
    "intervention": {"intervention_conformity.responsive_dgp_conformity": 1.0,
                     "intervention_conformity.ate_mae": 0.0},
    "transfer": {"cross_host_generalization.auroc_target": 1.0},
    "structure": {"structure_recovery.directed_f1": 1.0,
                  "structure_recovery.orientation_score": 1.0},
}
#: Metrics without a lower bound are normalized against their chance level instead.
CHANCE_LEVEL = {"latent_recovery.r2_mean": 0.0}
RANDOM_MODEL = "random"
#: Scores equal to this many decimals share a rank (sums in another order are not a lead).
RANK_DECIMALS = 9
TIERS = (("calibration", 0.75), ("standard", 0.50), ("advanced", 0.25), ("frontier", -1.0))


def normalize(score: float, random: float, best: float) -> float:
    """max(0, (score - random) / (best - random)); 0 for a missing score, NaN when the
    random reference is unknown (the sweep did not run the random model)."""
    if random is None or not np.isfinite(random) or best == random:
        return float("nan")
    if score is None or not np.isfinite(score):
        return 0.0
    return max(0.0, (score - random) / (best - random))


def difficulty(best_normalized: float) -> str:
    """The tier of a task from its best non-oracle normalized score."""
    for name, threshold in TIERS:
        if best_normalized >= threshold:
            return name
    return TIERS[-1][0]


def normalized_scores(per_seed: pd.DataFrame) -> pd.DataFrame:
    """Per (model, cohort): each category's normalized score and their mean."""
    columns = [c for cat in CATEGORIES.values() for c in cat]
    numeric = per_seed.reindex(columns=["model", "cohort", *columns])
    numeric[columns] = numeric[columns].apply(pd.to_numeric, errors="coerce")
    means = numeric.groupby(["model", "cohort"], sort=False)[columns].mean()
    rows = {}
    for (model, cohort), values in means.iterrows():
        random = (means.loc[(RANDOM_MODEL, cohort)] if (RANDOM_MODEL, cohort) in means.index
                  else None)
        row = {}
        for category, metrics in CATEGORIES.items():
            parts = []
            for metric, best in metrics.items():
                base = CHANCE_LEVEL.get(metric)
                if base is None:
                    base = np.nan if random is None else random[metric]
                parts.append(normalize(values[metric], base, best))
            row[f"normalized_{category}"] = float(np.mean(parts))
        row["normalized_composite"] = float(np.mean([row[f"normalized_{c}"]
                                                     for c in CATEGORIES]))
        rows[(model, cohort)] = row
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index = pd.MultiIndex.from_tuples(frame.index, names=["model", "cohort"])
    return frame


def difficulty_tiers(summary: pd.DataFrame) -> pd.DataFrame:
    """Per (cohort, category): the best non-oracle model, its normalized score and tier."""
    rows = []
    candidates = summary[~summary.oracle.astype(bool) & (summary.model != RANDOM_MODEL)]
    for cohort, group in candidates.groupby("cohort", sort=False):
        for category in CATEGORIES:
            column = f"normalized_{category}"
            best = group.loc[group[column].idxmax()]
            rows.append({"cohort": cohort, "category": category, "best_model": best.model,
                         "normalized": float(best[column]),
                         "tier": difficulty(float(best[column]))})
    return pd.DataFrame(rows, columns=["cohort", "category", "best_model", "normalized", "tier"])


def attempted(summary: pd.DataFrame) -> pd.DataFrame:
    """Per summary row (model, cohort) and category: whether any of its metrics has a mean."""
    out = {}
    for category, metrics in CATEGORIES.items():
        means = summary.reindex(columns=[f"{m}_mean" for m in metrics])
        out[category] = means.apply(pd.to_numeric, errors="coerce").notna().any(axis=1)
    return pd.DataFrame(out, index=summary.index)


def _ranks(scores: pd.Series) -> pd.Series:
    return scores.round(RANK_DECIMALS).rank(method="min", ascending=False).astype("Int64")


def rankings(summary: pd.DataFrame) -> pd.DataFrame:
    """Per model: each category's mean normalized score over cohorts and its rank, and the
    overall rank by the mean normalized composite (see the module's docstring)."""
    tried = attempted(summary)
    rows = {}
    for model, group in summary.groupby("model", sort=False):
        row: dict[str, object] = {"oracle": bool(group.oracle.astype(bool).any())}
        for category in CATEGORIES:
            values = group.loc[tried.loc[group.index, category], f"normalized_{category}"]
            row[category] = float(values.mean()) if len(values) else float("nan")
        row["overall"] = float(group.normalized_composite.mean())
        rows[model] = row
    frame = pd.DataFrame.from_dict(rows, orient="index")
    ranked = frame[~frame.oracle]
    for column in [*CATEGORIES, "overall"]:
        frame[f"{column}_rank"] = _ranks(ranked[column].dropna()).reindex(frame.index)
    frame.index.name = "model"
    return frame.sort_values(["oracle", "overall_rank"], kind="stable")
