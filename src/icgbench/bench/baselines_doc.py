"""docs/baselines.md: rankings across cohorts, the sweep's tables and difficulty tiers."""

from __future__ import annotations

import inspect
import json
import math
from pathlib import Path

import pandas as pd

from icgbench.bench import normalize
from icgbench.bench.calibration import CALIBRATE_BY, DEFAULT_CALIBRATE_BY, Criterion
from icgbench.bench.normalize import TIERS, difficulty_tiers, rankings
from icgbench.contract.vocabulary import CATEGORIES
from icgbench.errors import UsageError
from icgbench.models import MODELS
from icgbench.tasks import normalized

COLUMNS = {
    "summary.auroc": "AUROC",
    "summary.r2_mean": "R^2 mean",
    "summary.conformity": "conformity",
    "intervention_conformity.pehe": "PEHE",
    "intervention_conformity.ate_mae": "ATE MAE",
    "summary.auroc_target": "AUROC target",
    "summary.transfer_gap": "gap",
    "structure_recovery.directed_f1": "F1 at K*",
    "structure_recovery.edge_auprc": "edge AUPRC",
    "summary.composite": "seed composite",
}


def _cell(mean: float, std: float | None) -> str:
    if mean is None or (isinstance(mean, float) and math.isnan(mean)):
        return "-"
    if std is None or (isinstance(std, float) and math.isnan(std)):
        return f"{mean:.3f}"
    return f"{mean:.3f} ± {std:.3f}"


def _criterion(manifest: dict) -> Criterion:
    """The criterion the sweep chose K* by (F1 for a sweep that predates the choice)."""
    return CALIBRATE_BY.get(manifest.get("calibrate_by"), CALIBRATE_BY[DEFAULT_CALIBRATE_BY])


def _ranked(score: float, rank: object, tied: bool) -> str:
    """``score (rank)``, ``=`` after a shared rank; a dash for no score."""
    if score is None or math.isnan(score):
        return "-"
    if rank is None or pd.isna(rank):
        return f"{score:.3f}"
    return f"{score:.3f} ({rank}{'=' if tied else ''})"


def ranking_table(per_seed: pd.DataFrame) -> list[str]:
    """Markdown lines: each model's normalized mean per category and overall, ranked."""
    table = rankings(per_seed)
    columns = [*CATEGORIES, "overall"]
    out = ["| model | " + " | ".join(columns) + " |", "| --- |" + " --- |" * len(columns)]
    for model, r in table.iterrows():
        cells = []
        for column in columns:
            ranks = table[f"{column}_rank"]
            rank = r[f"{column}_rank"]
            tied = not pd.isna(rank) and int((ranks == rank).sum()) > 1
            cells.append(_ranked(r[column], rank, tied))
        name = f"{model} (reads the truth; not ranked)" if r["oracle"] else str(model)
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    return out


def separability_table(per_seed: pd.DataFrame, oracles: set[str]) -> tuple[list[str], int, int]:
    """Markdown lines: per variant and ranking (``overall``, then each task's headline),
    how many adjacent ranks of the competitors are separable (paired t-tests over seeds,
    Holm over the adjacent pairs: leaderboard.uncertainty); and the totals. ``overall``
    is compared on each cohort's contribution to the normalized mean."""
    from icgbench.leaderboard.uncertainty import separable_pairs
    from icgbench.tasks import TASKS

    rankings = {task: (f"{task}.{spec.ranking_metric.name}",
                       spec.ranking_metric.higher_is_better) for task, spec in TASKS.items()}
    columns = ["overall", *rankings]
    out = ["| variant | " + " | ".join(columns) + " |", "| --- |" + " --- |" * len(columns)]
    total = separable = 0
    competitors = per_seed[~per_seed.model.isin(oracles | {"random"})]

    def tested(values: dict[str, dict[tuple[str, int], float]], higher: bool) -> str:
        nonlocal total, separable
        order = sorted(values, key=lambda m: -sum(values[m].values()) / len(values[m])
                       if higher else sum(values[m].values()) / len(values[m]))
        if len(order) < 2:
            return "-"
        k, n = separable_pairs(values, order)
        separable, total = separable + k, total + n
        return f"{k} of {n}"

    for variant, group in competitors.groupby("cohort", sort=False):
        shares = {m: dict(a.contributions["overall"])
                  for m, a in normalize.model_aggregates(group).items()}
        cells = [tested(shares, True)]
        for column, higher in rankings.values():
            if column not in group:
                cells.append("-")
                continue
            values: dict[str, dict[tuple[str, int], float]] = {}
            for r in group[["model", "seed", column]].dropna().itertuples(index=False):
                values.setdefault(r.model, {})[(str(variant), int(r.seed))] = float(r[2])
            cells.append(tested(values, bool(higher)))
        out.append(f"| `{variant}` | " + " | ".join(cells) + " |")
    return out, separable, total


def _separability(per_seed: pd.DataFrame, summary: pd.DataFrame) -> list[str]:
    oracles = set(summary.loc[summary.oracle.astype(bool), "model"])
    table, separable, pairs = separability_table(per_seed, oracles)
    return ["## Which adjacent ranks are real", "",
            f"{separable} of {pairs} adjacent pairs of competitors (not random, not the "
            "models that read the truth), ranked per variant by `overall` and by each task's "
            "headline metric, differ significantly: a paired t-test over the seeds both were "
            "graded on, Holm-adjusted over the adjacent pairs of each ranking (5%). The "
            "rest are ties as far as these seeds can tell (the board marks the models tied "
            "with its leader the same way: docs/leaderboard.md).", "",
            *table, ""]


def _failed_note(manifest: dict) -> list[str]:
    failed = int(manifest.get("failed", 0))
    if not failed:
        return []
    return [f"**{failed} of {manifest['cells']} cells failed** and are left out of every "
            "table below (their errors are in the sweep's failures.csv).", ""]


def model_free_table(per_seed: pd.DataFrame) -> list[str]:
    """Markdown lines: per variant and normalized metric, the model-free panel's best
    answer (the one that is the floor on most cohorts) and the floor's mean over the
    sweep's cohorts, read from the published ``model_free_scores`` tables."""
    from icgbench.bench import model_free
    from icgbench.tasks.normalized import parts_of_categories

    cells = per_seed[["cohort", "seed", "tier"]].drop_duplicates()
    tier = str(cells.tier.iloc[0])
    cohorts = [(str(r.cohort), int(r.seed)) for r in cells.itertuples()]
    table = model_free.published(cohorts, tier)
    out = ["| variant | category | metric | floor (mean) | best answers (cohorts) |",
           "| --- | --- | --- | --- | --- |"]
    for variant in dict.fromkeys(c for c, _ in cohorts):
        for category, parts in parts_of_categories().items():
            for task, metric in parts:
                column = f"{task}.{metric}__floor"
                rows = per_seed[(per_seed.cohort == variant)][["seed", column]].dropna()
                floors = rows.drop_duplicates("seed")[column]
                if floors.empty:
                    continue
                mine = table[(table.cohort == variant) & (table.task == task)
                             & (table.metric == metric)]
                higher = normalize_direction(task, metric)
                best = mine.loc[mine.groupby("seed").value.idxmax() if higher
                                else mine.groupby("seed").value.idxmin()]
                counts = best.answer.value_counts()
                names = ", ".join(f"`{a}` ({n})" for a, n in counts.items())
                out.append(f"| `{variant}` | {category} | `{metric}` | "
                           f"{floors.mean():.3f} | {names} |")
    return out


def normalize_direction(task: str, metric: str) -> bool:
    from icgbench.tasks import TASKS

    return bool(TASKS[task].metric(metric).higher_is_better)


def margins_table(per_seed: pd.DataFrame) -> list[str]:
    """Markdown lines: each fitted reference's normalized score per variant and category
    (its margin over the model-free floor; 0 means no better than the floor)."""
    oracles = set(per_seed.loc[per_seed.oracle.astype(bool), "model"])
    fitted = per_seed[~per_seed.model.isin(oracles | {"random"})]
    variants = list(dict.fromkeys(fitted.cohort))
    out = ["| model | category | " + " | ".join(f"`{v}`" for v in variants) + " |",
           "| --- | --- |" + " --- |" * len(variants)]
    results = {v: normalize.model_aggregates(fitted[fitted.cohort == v]) for v in variants}
    for model in dict.fromkeys(fitted.model):
        for category in CATEGORIES:
            values = [results[v].get(model) for v in variants]
            if all(r is None or r.categories[category] is None for r in values):
                continue
            cells = ["-" if r is None or r.categories[category] is None
                     else f"{r.categories[category]:.3f}" for r in values]
            out.append(f"| {model} | {category} | " + " | ".join(cells) + " |")
    return out


def markdown(inputdir: Path, model_free: bool = False) -> str:
    """The baselines page from ``inputdir``'s summary.csv and sweep.json (a UsageError when
    no cell finished); ``model_free`` adds the table of answers without a model."""
    summary = pd.read_csv(inputdir / "summary.csv")
    if summary.empty:
        raise UsageError(f"no finished cells in {inputdir / 'summary.csv'} (see failures.csv "
                         "beside it)")
    manifest = json.loads((inputdir / "sweep.json").read_text())
    seeds = int(summary.n_seeds.max())
    out = [
        "# Reference baselines",
        "",
        "Generated by `icgbench bench baselines --inputdir DIR --out docs/baselines.md` from "
        f"a sweep of {manifest['cells']} cells ({', '.join(manifest['tiers'])} tier, "
        f"{seeds} seed(s) per variant; icgbench {manifest['icgbench_version']}). Values are "
        "means ± sample standard deviations over seeds. The cohorts are synthetic: these are "
        "scores of reference models on simulated data, not statements about real agents or "
        "people.",
        "",
        "*Seed composite*: mean of (AUROC, R^2 mean, conformity) where finite, as in the seed "
        "reference (it averages only what a model attempts: not canonical); *overall*: the "
        "normalized means over the variant's cohorts (docs/scoring.md) averaged over the "
        "categories, a category not attempted counting 0 (the board ranks by it). `oracle` "
        "and `ceiling` read the truth: the oracle submits it, the ceiling the best any model "
        "of the subjects' states can reach (the frailty integrated out); neither is a "
        "competitor. Structure recovery is graded at each "
        "model's K* chosen on the calibration cohort "
        f"by {_criterion(manifest).description}.",
        "",
        *_failed_note(manifest),
        "## Reference models",
        "",
    ]
    for name, model in MODELS.items():
        doc = (inspect.getdoc(inspect.getmodule(model)) or model.description).removeprefix(
            f"{name}: ")
        blocks = ", ".join(f"`{b}`" for b in model.blocks)
        label = " (oracle)" if model.oracle else ""
        out += [f"- **`{name}`**{label}: {' '.join(doc.split())} Blocks: {blocks}.", ""]
    out += ["## Normalized scores, overall and difficulty tiers", ""]
    for module in (normalized, normalize):
        for paragraph in (inspect.getdoc(module) or "").split("\n\n")[1:]:
            out += [" ".join(paragraph.split()), ""]
    per_seed = pd.read_csv(inputdir / "per_seed.csv")
    n_variants = summary.cohort.nunique()
    out += ["## Rankings across all cohorts", "",
            f"Per category, the normalized mean over the {n_variants} variant(s) and their "
            f"{seeds} seed(s) each, and the rank in brackets (`=`: shared); *overall* their "
            "mean. A dash: the model does not attempt the category (no rank).", "",
            *ranking_table(per_seed), ""]
    overall = normalize.variant_overall(per_seed)
    for cohort, group in summary.groupby("cohort", sort=False):
        out += [f"## `{cohort}`", "",
                "| model | " + " | ".join([*COLUMNS.values(), "overall"]) + " |",
                "| --- |" + " --- |" * (len(COLUMNS) + 1)]
        for r in group.to_dict("records"):
            values = []
            for column in COLUMNS:
                values.append(_cell(r.get(column + "_mean"), r.get(column + "_std")))
            values.append(_cell(overall.get((r["model"], cohort)), None))
            name = r["model"] + (" (reads the truth)" if r["oracle"] else "")
            out.append(f"| {name} | " + " | ".join(values) + " |")
        out.append("")
    out += _separability(per_seed, summary)
    tiers = difficulty_tiers(per_seed)
    thresholds = ", ".join(f"{name} >= {t:.2f}" for name, t in TIERS[:-1])
    out += [
        "## Difficulty tiers and headroom",
        "",
        "From the best competitor's normalized score per category (not random, not the "
        f"models that read the truth): {thresholds}, frontier below. In brackets: that "
        "score, the headroom to the reachable ceiling (1 - score) and the model.",
        "",
        "| variant | " + " | ".join(CATEGORIES) + " |",
        "| --- |" + " --- |" * len(CATEGORIES),
    ]
    for cohort, group in tiers.groupby("cohort", sort=False):
        cells = {r.category: f"{r.tier} ({r.normalized:.2f}, headroom {r.headroom:.2f}, "
                 f"{r.best_model})" for r in group.itertuples()}
        out.append(f"| `{cohort}` | " + " | ".join(cells.get(c, "-") for c in CATEGORIES)
                   + " |")
    out.append("")
    if model_free:
        out += ["## The model-free floor", "",
                "Each normalized metric's floor on a cohort is the best of the model-free "
                "panel (`icgbench.model_free`: answers built from the public tables, the "
                "documentation, the prior and other cohorts' truth, never fitted; its "
                "scores ship as the truth table `model_free_scores`) or the metric's chance "
                "level. Per variant: the floor's mean over the sweep's cohorts and which "
                "answers set it (on how many cohorts).", "",
                *model_free_table(per_seed), "",
                "## The references' margins over the floor", "",
                "Each fitted reference's normalized score per variant and category (0: no "
                "better than the floor). `tests/test_model_free.py` checks that every "
                "fitted reference is above the floor in each category it attempts on at "
                "least 5 of the 6 variants and that the best reference is above it on "
                "every variant.", "",
                *margins_table(per_seed), ""]
    return "\n".join(out)
