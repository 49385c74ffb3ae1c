"""Figures of what the board ranks: the normalized scores, their spread over cohorts, and
which differences are real.

- ``normalized_scores.png``: each model's normalized mean per category and ``overall``
  with its 95% interval (0 = the model-free floor, 1 = the ceiling), models in the board's
  order; values below -1.5 sit at the axis edge, marked with their value.
- ``cohort_spread.png``: each model's per-cohort shares of ``overall`` (their mean is the
  model's ``overall``), as boxes: a mean carried by a few cohorts shows.
- ``pairwise_wins.png``: for each pair of models, whether the row model's ``overall`` is
  above (+) or below (-) the column model's by the board's paired test (blocked by
  variant, 5%), or not separable (a dot): the matrix benchmark papers draw beside a
  critical-difference diagram.

Every input comes from :func:`icgbench.leaderboard.ranking.normalized_with_shares`, the
numbers the board's tables print. The data are synthetic: no figure says anything about
real agents or people.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from icgbench.leaderboard.ranking import Ranked, floors_of, normalized_with_shares
from icgbench.models.colors import model_colors
from icgbench.tasks import CATEGORIES

#: Where the normalized axis stops on the left: a model far below the floor is drawn at
#: the edge with its value written beside it.
LEFT = -1.5
FIGURES = ("normalized_scores.png", "cohort_spread.png", "pairwise_wins.png")


def _ranked(entries: list, limit: int) -> tuple[list[Ranked], dict]:
    """The board's ranked models (the best version of each, at most ``limit``), with each
    one's per-cohort shares of ``overall``."""
    rows, shares = normalized_with_shares(entries, None, floors_of(entries))
    chosen, seen = [], set()
    for r in rows:
        if r.place is not None and r.model not in seen and len(chosen) < limit:
            chosen.append(r)
            seen.add(r.model)
    return chosen, shares


def normalized_scores(rows: list[Ranked], out: Path) -> Path:
    from icgbench.bench.plots import _save

    names = [r.model for r in rows]
    colors = model_colors(names)
    columns = ["overall", *CATEGORIES]
    fig, axes = plt.subplots(1, len(columns), figsize=(2.3 * len(columns) + 2.5,
                                                       0.42 * len(rows) + 1.6), sharey=True)
    y = np.arange(len(rows))[::-1]
    for ax, column in zip(axes, columns, strict=True):
        for yi, r in zip(y, rows, strict=True):
            mean, low, high = ((r.mean, r.low, r.high) if column == "overall"
                               else r.categories.get(column, (None, None, None)))
            if mean is None:
                continue
            shown = max(mean, LEFT)
            if low is not None and high is not None:
                ax.plot([max(low, LEFT), max(high, LEFT)], [yi, yi], color=colors[r.model],
                        lw=1.6, alpha=0.6)
            ax.plot(shown, yi, "o", color=colors[r.model], ms=6)
            if mean < LEFT:
                ax.annotate(f"{mean:.1f}", (LEFT, yi), xytext=(3, 4),
                            textcoords="offset points", fontsize=7, color="0.3")
        ax.axvline(0.0, color="0.35", lw=0.8)
        ax.axvline(1.0, color="0.35", lw=0.8, ls="--")
        ax.set_xlim(LEFT - 0.05, 1.1)
        ax.set_title(column, fontsize=10)
        ax.grid(axis="x", color="0.9")
    axes[0].set_yticks(y, names, fontsize=8)
    fig.suptitle(f"Normalized scores of the {len(rows)} models ranked highest (dot: the mean "
                 "over cohorts; line: its 95% interval; 0 = floor, 1 = ceiling)", fontsize=10)
    fig.tight_layout(rect=(0, 0.03, 1, 0.95))
    return _save(fig, out / "normalized_scores.png")


def cohort_spread(rows: list[Ranked], shares: dict, out: Path) -> Path:
    from icgbench.bench.plots import _save

    names = [r.model for r in rows]
    colors = model_colors(names)
    data = [np.clip([v for v in shares[(r.model, r.package_version)].values()], LEFT, None)
            for r in rows]
    fig, ax = plt.subplots(figsize=(9, 0.45 * len(rows) + 1.8))
    y = np.arange(len(rows))[::-1]
    boxes = ax.boxplot(data, positions=y, orientation="horizontal", widths=0.6, patch_artist=True,
                       flierprops={"marker": ".", "markersize": 3, "alpha": 0.5})
    for patch, name in zip(boxes["boxes"], names, strict=True):
        patch.set_facecolor(colors[name])
        patch.set_alpha(0.55)
    for yi, r in zip(y, rows, strict=True):
        ax.plot(max(r.mean or 0.0, LEFT), yi, "D", color="black", ms=4)
    ax.axvline(0.0, color="0.35", lw=0.8)
    ax.set_yticks(y, names, fontsize=8)
    ax.set_xlabel(f"each cohort's share of overall (diamond: the mean, the board's overall; "
                  f"below {LEFT} drawn at {LEFT})", fontsize=8)
    ax.set_title(f"Spread over cohorts of the {len(rows)} models ranked highest", fontsize=10)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return _save(fig, out / "cohort_spread.png")


def pairwise_signs(rows: list[Ranked], shares: dict) -> np.ndarray:
    """``[i, j]``: +1 when model i's overall is above model j's by the board's paired test
    (:func:`icgbench.leaderboard.uncertainty.separable`), -1 when below, 0 when not
    separable (and on the diagonal)."""
    from icgbench.leaderboard.uncertainty import separable

    n = len(rows)
    keys = [(r.model, r.package_version) for r in rows]
    sign = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            a, b = shares[keys[i]], shares[keys[j]]
            if separable(a, b):
                sign[i, j] = np.sign(sum(a[c] - b[c] for c in a if c in b))
                sign[j, i] = -sign[i, j]
    return sign


def pairwise_wins(rows: list[Ranked], shares: dict, out: Path) -> Path:
    from icgbench.bench.plots import _save

    n = len(rows)
    sign = pairwise_signs(rows, shares)
    fig, ax = plt.subplots(figsize=(0.55 * n + 3.2, 0.5 * n + 2.2))
    ax.imshow(sign, cmap="RdBu", vmin=-1.6, vmax=1.6)
    for i in range(n):
        for j in range(n):
            mark = "" if i == j else {1.0: "+", -1.0: "\u2212"}.get(sign[i, j], "\u00b7")
            ax.text(j, i, mark, ha="center", va="center", fontsize=9)
    names = [r.model for r in rows]
    ax.set_xticks(range(n), names, rotation=60, ha="right", fontsize=7)
    ax.set_yticks(range(n), names, fontsize=7)
    wins = int((sign > 0).sum())
    ax.set_title(f"Which differences in overall are real: {wins} of {n * (n - 1) // 2} pairs "
                 "separable\n(+: the row model is above the column's, paired test blocked by "
                 "variant, 5%; \u00b7: not separable)", fontsize=9)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return _save(fig, out / "pairwise_wins.png")


def ranking_figures(entries: list, out: Path, limit: int) -> list[Path]:
    """The three figures (see the module) of the board's ``limit`` best ranked models; none
    when fewer than two models are ranked."""
    rows, shares = _ranked(entries, limit)
    if len(rows) < 2:
        return []
    out.mkdir(parents=True, exist_ok=True)
    return [normalized_scores(rows, out), cohort_spread(rows, shares, out),
            pairwise_wins(rows, shares, out)]
