"""Figures a reader would rather look at than read, drawn from a sweep's per_seed.csv."""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.lines import Line2D

from icgbench.bench.sweep import CALIBRATE_BY, DEFAULT_CALIBRATE_BY, k_star
from icgbench.generator import intervention_names
from icgbench.models.colors import is_contribution, is_reference, model_colors

HEADLINES = {
    "summary.auroc": "AUROC (risk prediction)",
    "summary.r2_mean": "mean R^2 (latent recovery)",
    "summary.conformity": "responsive DGP conformity",
    "summary.auroc_target": "AUROC on target hosts",
}
NOTE = "synthetic cohorts; not a statement about real agents or people"
DPI = 120


def _models(per_seed: pd.DataFrame) -> list[str]:
    return list(dict.fromkeys(per_seed.model))


def _style(model: str, colors: dict[str, str]) -> dict[str, object]:
    """A model's bar style: its colour; a reference line's neutral grey, hatched; a
    contribution outlined in black."""
    style: dict[str, object] = {"color": colors[model], "label": model}
    if is_reference(model):
        style |= {"hatch": "///", "edgecolor": "white", "linewidth": 0}
    elif is_contribution(model):
        style |= {"edgecolor": "black", "linewidth": 0.8}
    return style


def _half_interval(values: pd.Series) -> float:
    """Half the width of the 95% t-interval of a mean over seeds (0 for one seed), as the
    board's tables print it (:func:`icgbench.leaderboard.uncertainty.interval`)."""
    from icgbench.leaderboard.uncertainty import interval

    span = interval([float(v) for v in values.dropna()])
    return 0.0 if span is None else (span[1] - span[0]) / 2


def _legend_below(fig: plt.Figure, handles: list, labels: list[str]) -> float:
    """A legend under the axes, in as many rows as it takes to fit; the figure's bottom
    margin it needs (a fraction of the height), the footer's line included."""
    ncol = max(1, min(len(labels), 5))
    rows = -(-len(labels) // ncol)
    height = fig.get_figheight()
    margin = (0.28 * rows + 0.35) / height
    fig.legend(handles, labels, loc="lower center", ncol=ncol, fontsize=8, frameon=False,
               bbox_to_anchor=(0.5, 0.22 / height))
    return margin


def _save(fig: plt.Figure, path: Path) -> Path:
    if fig.get_layout_engine() is not None:  # constrained layout makes room for a label
        fig.supxlabel(NOTE, fontsize=7, color="0.4", ha="right", x=0.99)
    else:
        fig.text(0.99, 0.005, NOTE, ha="right", va="bottom", fontsize=7, color="0.4")
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def scores_by_variant(per_seed: pd.DataFrame, out: Path) -> Path | None:
    """Each headline score per variant and model: a point at the mean over seeds, its
    95% interval as the error bar, on an axis fitted to the values (so the differences
    show); None (no figure) when no model has a headline score."""
    cohorts = list(dict.fromkeys(per_seed.cohort))
    scored = per_seed[list(HEADLINES)].apply(pd.to_numeric, errors="coerce").notna().any(axis=1)
    models = _models(per_seed[scored])  # a slot only for a model with a bar to draw
    if not models:
        return None
    colors = model_colors(models)
    fig, axes = plt.subplots(2, 2, figsize=(13, 8.5), sharex=True)
    width = 0.8 / len(models)
    x = np.arange(len(cohorts))
    drawn: dict[str, object] = {}
    for ax, (column, title) in zip(axes.flat, HEADLINES.items(), strict=True):
        for i, model in enumerate(models):
            rows = per_seed[per_seed.model == model]
            g = pd.to_numeric(rows[column], errors="coerce").groupby(rows.cohort)
            mean = g.mean().reindex(cohorts)
            if mean.isna().all():
                continue  # the model does not attempt this task: nothing to draw or list
            half = g.apply(_half_interval).reindex(cohorts).fillna(0.0)
            drawn[model] = ax.errorbar(  # points, not bars: the axis need not start at 0
                x + (i - (len(models) - 1) / 2) * width, mean, yerr=half, fmt="o", ms=4,
                capsize=2, color=colors[model], label=model,
                mfc="white" if is_reference(model) else colors[model])
        ax.set_title(title)
        ax.set_ylabel("score (mean over seeds)")
        if ax.get_ylim()[0] < 0.0 < ax.get_ylim()[1]:
            ax.axhline(0.0, color="0.5", lw=0.6)
        ax.grid(axis="y", color="0.92")
        ax.set_xticks(x, cohorts, rotation=25, ha="right", fontsize=8)
        low = ax.get_ylim()[0]
        if low < -1.05:  # keep R^2 readable: clip far-negative bars and say so
            ax.set_ylim(-1.05, 1.05)
            ax.text(0.01, 0.02, f"axis clipped at -1 (lowest {low:.1f})", fontsize=7,
                    transform=ax.transAxes, color="0.3")
    order = [m for m in models if m in drawn]
    bottom = _legend_below(fig, [drawn[m] for m in order], order)
    fig.suptitle("Task scores by variant and model (error bars: 95% interval over seeds)")
    fig.tight_layout(rect=(0, bottom, 1, 0.97))
    return _save(fig, out / "scores_by_variant.png")


def auroc_vs_r2(per_seed: pd.DataFrame, out: Path) -> Path | None:
    """The asymmetry the benchmark exists to show: prediction without mechanism (None: no
    model predicts risk)."""
    rows = per_seed.copy()
    rows["summary.auroc"] = pd.to_numeric(rows["summary.auroc"], errors="coerce")
    rows["summary.r2_mean"] = pd.to_numeric(rows["summary.r2_mean"], errors="coerce").fillna(0.0)
    rows = rows.dropna(subset=["summary.auroc"])  # only models with a point are listed
    if rows.empty:
        return None
    colors = model_colors(_models(rows))
    fig, ax = plt.subplots(figsize=(8, 6))
    markers = dict(zip(dict.fromkeys(rows.cohort), "osD^vP*X", strict=False))
    for model in _models(rows):
        part = rows[rows.model == model]
        g = part.groupby("cohort")[["summary.auroc", "summary.r2_mean"]].mean()
        for cohort, values in g.iterrows():
            ax.scatter(values["summary.r2_mean"], values["summary.auroc"], s=60,
                       marker=markers[cohort], color=colors[model],
                       edgecolors="black" if is_reference(model) or is_contribution(model)
                       else "none",
                       label=model if cohort == g.index[0] else None)
    for cohort, marker in markers.items():
        ax.scatter([], [], marker=marker, color="0.3", label=cohort)
    ax.set_xlabel("mean R^2 of the nine states (latent recovery; 0 if not attempted)")
    ax.set_ylabel("AUROC (risk prediction)")
    ax.set_xlim(min(-0.05, ax.get_xlim()[0]), 1.05)
    ax.set_title("High AUROC need not mean a recovered mechanism")
    ax.legend(fontsize=7, ncol=2, loc="lower right")
    ax.grid(alpha=0.3)
    fig.tight_layout(rect=(0, 0.02, 1, 1))
    return _save(fig, out / "auroc_vs_r2.png")


def conformity_per_intervention(per_seed: pd.DataFrame, out: Path) -> Path | None:
    """Per model: share of seeds whose risk change follows the prior's and the DGP's sign.

    None (no figure) when no model besides ``random`` attempted the intervention task.
    """
    names = intervention_names()
    first = f"intervention_conformity.prior_conforms__{names[0]}"
    models = [m for m in _models(per_seed) if m != "random" and first in per_seed
              and per_seed.loc[per_seed.model == m, first].notna().any()]
    if not models:
        return None
    cohorts = list(dict.fromkeys(per_seed.cohort))
    fig, axes = plt.subplots(len(models), 2, figsize=(11, 2.1 * len(models) + 1.6),
                             squeeze=False, sharex=True, sharey=True, layout="constrained")
    image = None
    for r, model in enumerate(models):
        part = per_seed[per_seed.model == model]
        for c, kind in enumerate(("prior", "dgp")):
            cols = [f"intervention_conformity.{kind}_conforms__{n}" for n in names]
            grid = part.groupby("cohort")[cols].mean().reindex(cohorts).to_numpy(float)
            ax = axes[r, c]
            image = ax.imshow(grid, vmin=0, vmax=1, cmap="RdYlGn", aspect="auto")
            against = "structural prior" if kind == "prior" else "true DGP"
            ax.set_title(f"{model}: sign of the risk change vs the {against}", fontsize=8)
            ax.set_yticks(range(len(cohorts)), cohorts, fontsize=7)
            ax.set_xticks(range(len(names)), [n.removeprefix("do_") for n in names],
                          rotation=30, ha="right", fontsize=7)
    if image is not None:
        fig.colorbar(image, ax=axes, shrink=0.5, label="share of seeds whose sign matches")
    fig.suptitle("Intervention conformity, per intervention: structural prior vs true DGP")
    return _save(fig, out / "conformity_per_intervention.png")


def transfer_gap(per_seed: pd.DataFrame, out: Path) -> Path | None:
    """AUROC source minus target per variant and model (lower is better); None when no
    model attempts the transfer task."""
    column = "cross_host_generalization.transfer_gap"
    rows = per_seed.dropna(subset=[column]) if column in per_seed else per_seed.iloc[:0]
    if rows.empty:
        return None
    cohorts = list(dict.fromkeys(per_seed.cohort))
    models = _models(rows)
    colors = model_colors(models)
    fig, ax = plt.subplots(figsize=(11, 5.5))
    width = 0.8 / max(1, len(models))
    x = np.arange(len(cohorts))
    bars = []
    for i, model in enumerate(models):
        part = rows[rows.model == model]
        g = pd.to_numeric(part[column], errors="coerce").groupby(part.cohort)
        bars.append(ax.bar(x + (i - (len(models) - 1) / 2) * width, g.mean().reindex(cohorts),
                           width, yerr=g.apply(_half_interval).reindex(cohorts).fillna(0.0),
                           capsize=2,
                           **_style(model, colors)))
    ax.axhline(0.0, color="0.3", lw=0.8)
    ax.set_xticks(x, cohorts, rotation=20, ha="right", fontsize=8)
    ax.set_ylabel("AUROC source - AUROC target")
    ax.set_title("Transfer gap under a shifted host distribution (no refitting; error bars: "
                 "95% interval over seeds)")
    bottom = _legend_below(fig, bars, models)
    fig.tight_layout(rect=(0, bottom, 1, 1))
    return _save(fig, out / "transfer_gap.png")


#: How each criterion's K* is drawn on the sensitivity curves: marker and line style.
K_STAR_MARKS = {"f1": ("o", ":"), "shd": ("s", "--")}


def structure_sensitivity(curves: dict[str, dict[str, list[float]]], calibration: str,
                          out: Path, by: str = DEFAULT_CALIBRATE_BY) -> Path:
    """F1 and SHD against K on the calibration cohort, each model's K* by F1 and by SHD
    marked; the filled marker is the K* the sweep graded at (``by``)."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8))
    colors = model_colors(curves)
    for model, curve in curves.items():
        ks = list(curve["k"])
        stars = {criterion: k_star(curve, criterion) for criterion in K_STAR_MARKS}
        color = colors[model]
        left.plot(ks, curve["directed_f1"], color=color,
                  label=f"{model} (K* = {stars['f1']} by F1, {stars['shd']} by SHD)")
        right.plot(ks, curve["shd"], color=color, label=model)
        for ax, column in ((left, "directed_f1"), (right, "shd")):
            for criterion, star in stars.items():
                marker, style = K_STAR_MARKS[criterion]
                ax.axvline(star, color=color, ls=style, lw=1)
                ax.plot([star], [curve[column][ks.index(star)]], marker, color=color, ms=7,
                        mfc=color if criterion == by else "white")
    left.set_xlabel("K (edges kept)")
    left.set_ylabel("directed F1 (higher is better)")
    right.set_xlabel("K (edges kept)")
    right.set_ylabel("SHD, reversal = 1 (lower is better)")
    left.set_title("F1 against K")
    right.set_title("SHD against K")
    left.legend(fontsize=8, loc="best")
    right.legend(handles=[
        Line2D([], [], color="0.3", marker=marker, ls=style, mfc="0.3" if c == by else "white",
               label=f"K* by {CALIBRATE_BY[c].description}"
               + (": the sweep's K* (filled)" if c == by else ""))
        for c, (marker, style) in K_STAR_MARKS.items()], fontsize=8, loc="best")
    fig.suptitle(f"Structure recovery: sensitivity curves on the calibration cohort "
                 f"({calibration}); each model's K* by F1 and by SHD marked")
    fig.tight_layout(rect=(0, 0.03, 1, 0.95))
    return _save(fig, out / "structure_sensitivity.png")


def calibration_curves(inputdir: Path, per_seed: pd.DataFrame
                       ) -> tuple[dict[str, dict[str, list[float]]], str]:
    """Each structure model's sensitivity curve on the sweep's calibration cohort."""
    from icgbench.api.tables import tier_descriptor

    column = "structure_recovery.k"
    if column not in per_seed or per_seed[column].isna().all():
        return {}, ""
    tier = str(per_seed.tier.iloc[0])
    variant, seed = tier_descriptor(tier).calibration_cohort
    curves = {}
    for model in _models(per_seed[per_seed[column].notna()]):
        folder = inputdir / "cells" / model / f"{variant}__seed{seed}"
        if (folder / "cell.json").is_file() and (folder / "report.json").is_file():
            doc = json.loads((folder / "report.json").read_text())
            curves[model] = doc["tasks"]["structure_recovery"]["details"]["curve"]
    return curves, f"{variant} seed {seed}, {tier} tier"


def calibrated_by(inputdir: Path) -> str:
    """The criterion the sweep in ``inputdir`` chose K* by (F1 for a sweep that predates it)."""
    try:
        manifest = json.loads((inputdir / "sweep.json").read_text())
    except (OSError, ValueError):
        return DEFAULT_CALIBRATE_BY
    by = manifest.get("calibrate_by") if isinstance(manifest, dict) else None
    return by if by in CALIBRATE_BY else DEFAULT_CALIBRATE_BY


FIGURES = (scores_by_variant, auroc_vs_r2, conformity_per_intervention, transfer_gap)


def draw_all(per_seed: pd.DataFrame, out: Path, inputdir: Path | None = None) -> list[Path]:
    """Every figure the sweep has data for, written as PNG into ``out``.

    Structure curves need the sweep folder; a figure whose models are absent from the sweep
    (e.g. a sweep of ``random`` alone) is left out.
    """
    out.mkdir(parents=True, exist_ok=True)
    paths = [p for p in (figure(per_seed, out) for figure in FIGURES) if p is not None]
    if inputdir is not None:
        curves, calibration = calibration_curves(inputdir, per_seed)
        if curves:
            paths.append(structure_sensitivity(curves, calibration, out,
                                               calibrated_by(inputdir)))
    return paths


#: The figures a board can draw from its own entries: per_seed.csv column -> (task, metric).
BOARD_COLUMNS = {
    "summary.auroc": ("risk_prediction", "auroc"),
    "summary.r2_mean": ("latent_recovery", "r2_mean"),
    "summary.conformity": ("intervention_conformity", "responsive_dgp_conformity"),
    "summary.auroc_target": ("cross_host_generalization", "auroc_target"),
    "cross_host_generalization.transfer_gap": ("cross_host_generalization", "transfer_gap"),
}
BOARD_FIGURES = ("scores_by_variant.png", "auroc_vs_r2.png", "transfer_gap.png")


def per_seed_from_board(entries: list) -> pd.DataFrame:
    """A board's entries as the rows of a sweep's per_seed.csv, for the figures above."""
    rows = []
    for e in entries:
        row = {"model": e.model_name, "cohort": e.variant_name, "seed": e.seed}
        for column, (task, metric) in BOARD_COLUMNS.items():
            row[column] = e.scores.get(task, {}).get(metric)
        rows.append(row)
    return pd.DataFrame(rows, columns=["model", "cohort", "seed", *BOARD_COLUMNS])


def board_figures(entries: list, references: list, out: Path, limit: int = 12) -> list[Path]:
    """The board-drawable figures of ``entries``: the ``limit`` models ranked highest
    overall (one version each, the best) and the reference lines (``references`` and the
    board's ``random``), so a submitted model appears as soon as it is on the board."""
    from icgbench.leaderboard.ranking import floors_of, rank_overall

    floors = floors_of(entries)
    ranked = [r for r in rank_overall(entries, floors=floors)
              if (r.model, r.package_version) not in floors]
    best: dict[str, str] = {}
    for r in ranked:
        best.setdefault(r.model, r.package_version)
    keep = set(list(best.items())[:limit]) | floors
    chosen = [e for e in entries if (e.model_name, e.package_version) in keep]
    per_seed = per_seed_from_board(chosen + list(references))
    if per_seed.empty:
        return []
    drawn = [scores_by_variant(per_seed, out), auroc_vs_r2(per_seed, out),
             transfer_gap(per_seed, out)]
    return [p for p in drawn if p is not None]
