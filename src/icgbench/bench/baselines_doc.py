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
    "summary.overall": "overall",
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


def ranking_table(summary: pd.DataFrame) -> list[str]:
    """Markdown lines: each model's mean normalized score per category and overall, ranked."""
    table = rankings(summary)
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
    Holm over the adjacent pairs: leaderboard.uncertainty); and the totals."""
    from icgbench.leaderboard.uncertainty import separable_pairs
    from icgbench.tasks import TASKS

    rankings = {"overall": ("summary.overall", True)}
    rankings |= {task: (f"{task}.{spec.ranking_metric.name}",
                        spec.ranking_metric.higher_is_better) for task, spec in TASKS.items()}
    out = ["| variant | " + " | ".join(rankings) + " |", "| --- |" + " --- |" * len(rankings)]
    total = separable = 0
    competitors = per_seed[~per_seed.model.isin(oracles | {"random"})]
    for variant, group in competitors.groupby("cohort", sort=False):
        cells = []
        for column, higher in rankings.values():
            if column not in group:
                cells.append("-")
                continue
            values: dict[str, dict[tuple[str, int], float]] = {}
            for r in group[["model", "seed", column]].dropna().itertuples(index=False):
                values.setdefault(r.model, {})[(str(variant), int(r.seed))] = float(r[2])
            order = sorted(values, key=lambda m: -sum(values[m].values()) / len(values[m])
                           if higher else sum(values[m].values()) / len(values[m]))
            if len(order) < 2:
                cells.append("-")
                continue
            k, n = separable_pairs(values, order)
            separable, total = separable + k, total + n
            cells.append(f"{k} of {n}")
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


def model_free_table(inputdir: Path, summary: pd.DataFrame) -> list[str]:
    """Markdown lines: each model-free answer's normalized scores per variant (means over
    the sweep's seeds), beside the worst and the best competitor of each category."""
    from icgbench.bench import model_free

    per_seed = pd.read_csv(inputdir / "per_seed.csv")
    cells = per_seed[["cohort", "seed", "tier"]].drop_duplicates()
    tier = str(cells.tier.iloc[0])
    cohorts = [(str(r.cohort), int(r.seed)) for r in cells.itertuples()]
    rows = pd.DataFrame(model_free.scores(cohorts, tier))
    columns = [f"normalized_{c}" for c in CATEGORIES]
    means = rows.groupby(["answer", "cohort"], sort=False)[columns].mean()
    competitors = summary[~summary.oracle.astype(bool) & (summary.model != "random")]
    out = ["| variant | answer | " + " | ".join(CATEGORIES) + " |",
           "| --- | --- |" + " --- |" * len(CATEGORIES)]
    for variant in dict.fromkeys(rows.cohort):
        group = competitors[competitors.cohort == variant]
        for label, pick in (("worst competitor", "min"), ("best competitor", "max")):
            cells = [getattr(pd.to_numeric(group[normalize.column(c)], errors="coerce"),
                             pick)() for c in CATEGORIES]
            out.append(f"| `{variant}` | *{label}* | "
                       + " | ".join(_cell(v, None) for v in cells) + " |")
        for answer in dict.fromkeys(rows.answer):
            values = means.loc[(answer, variant)]
            out.append(f"| `{variant}` | `{answer}` | "
                       + " | ".join(_cell(values[c], None) for c in columns) + " |")
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
        "normalized category scores averaged with a category not attempted counting 0 (the "
        "board ranks by it). `oracle` and `ceiling` read the truth: the oracle submits it, "
        "the ceiling the best any model of the subjects' states can reach (the frailty "
        "integrated out); neither is a competitor. Structure recovery is graded at each "
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
        out += [f"- **`{name}`**{' (oracle)' if model.oracle else ''}: "
                f"{' '.join(doc.split())} Blocks: {blocks}.", ""]
    out += ["## Normalized scores, overall and difficulty tiers", ""]
    for module in (normalized, normalize):
        for paragraph in (inspect.getdoc(module) or "").split("\n\n")[1:]:
            out += [" ".join(paragraph.split()), ""]
    n_variants = summary.cohort.nunique()
    out += ["## Rankings across all cohorts", "",
            f"Per category, the normalized score averaged over the {n_variants} variant(s) "
            f"and their {seeds} seed(s) each, and the rank in brackets (`=`: shared); "
            "*overall* averaged likewise. A dash: "
            "the model does not attempt the category (no rank).", "",
            *ranking_table(summary), ""]
    for cohort, group in summary.groupby("cohort", sort=False):
        out += [f"## `{cohort}`", "",
                "| model | " + " | ".join(COLUMNS.values()) + " |",
                "| --- |" + " --- |" * len(COLUMNS)]
        for r in group.to_dict("records"):
            values = []
            for column in COLUMNS:
                values.append(_cell(r.get(column + "_mean"), r.get(column + "_std")))
            name = r["model"] + (" (reads the truth)" if r["oracle"] else "")
            out.append(f"| {name} | " + " | ".join(values) + " |")
        out.append("")
    if (inputdir / "per_seed.csv").is_file():
        out += _separability(pd.read_csv(inputdir / "per_seed.csv"), summary)
    tiers = difficulty_tiers(summary)
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
        out += ["## Answers without a model", "",
                "Each answer of `icgbench.bench.model_free` (built from the public tables, "
                "the documented family or another cohort's truth, never fitted) scored on "
                "every cohort of the sweep, as normalized scores averaged over seeds, beside "
                "the worst and the best competitor of each variant (a dash: the answer does "
                "not attempt the category). The tests hold every answer below the worst "
                "fitted reference in risk, latent recovery and transfer; below "
                "`mbcnet_boosted`, the reference that models the mechanism, in "
                "interventions (the seed's three MB-CNets fall below an answer on some "
                "variants: docs/models.md says why); and in structure below the best "
                "data-driven reference by a clear margin in directed F1 (the documented "
                "family beats the generic discovery methods) (`tests/test_model_free.py`).",
                "",
                *model_free_table(inputdir, summary), ""]
    return "\n".join(out)
