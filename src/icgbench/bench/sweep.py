"""The canonical grid: every (model, cohort, seed), in parallel processes, resumable.

Each finished cell leaves ``cells/<model>/<cohort>__seed<k>/cell.json`` beside its
submission and report; a rerun skips those cells. The sweep writes ``per_seed.csv`` (every
metric and the timings of every cell), ``summary.csv`` (mean and sample standard deviation
over seeds per model and cohort, normalized scores, runtime) and ``sweep.json``.

Structure recovery follows the calibration protocol: the cells on the release's
calibration cohort run first, each model's K* is read from its result there, and every
other cell of that model is graded at that K*. Without the calibration cohort in the grid,
cells are graded at their own best K and marked ``structure_recovery.calibrated = 0``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from icgbench import __version__
from icgbench.atomic import write_text
from icgbench.bench.normalize import normalized_scores
from icgbench.bench.run import run_experiment
from icgbench.data import tier_descriptor
from icgbench.progress import track

LEAD = ["model", "cohort", "seed", "tier", "oracle"]
TIMINGS = ["generate_seconds", "fit_seconds", "predict_seconds", "write_seconds",
           "score_seconds", "total_seconds"]


@dataclass(frozen=True)
class Cell:
    model: str
    cohort: str
    seed: int
    tier: str

    def folder(self, outdir: Path) -> Path:
        return outdir / "cells" / self.model / f"{self.cohort}__seed{self.seed}"


def report_row(report: dict[str, Any]) -> dict[str, Any]:
    """Every metric of a report as flat columns ``<task>.<metric>``, plus the summary."""
    row: dict[str, Any] = {}
    for task, section in report["tasks"].items():
        for metric, value in section["metrics"].items():
            row[f"{task}.{metric}"] = value
    details = report["tasks"].get("intervention_conformity", {}).get("details", {})
    for name, d in details.get("interventions", {}).items():
        row[f"intervention_conformity.prior_conforms__{name}"] = int(d["prior_conforms"])
        row[f"intervention_conformity.dgp_conforms__{name}"] = int(d["dgp_conforms"])
    for key, value in report["summary"].items():
        if key != "composite_note":
            row[f"summary.{key}"] = value
    return row


def _run_cell(cell: Cell, outdir: str, root: str | None, structure_k: int | None,
              calibrated: bool) -> dict[str, Any]:
    folder = cell.folder(Path(outdir))
    result = run_experiment(cell.model, cell.cohort, cell.seed, cell.tier, folder,
                            Path(root) if root else None, compress=True,
                            structure_k=structure_k)
    row = {"model": cell.model, "cohort": cell.cohort, "seed": cell.seed, "tier": cell.tier,
           "oracle": bool(result.report.document["model"].get("oracle", False)),
           **report_row(result.report.document),
           **{f"{k}_seconds": v for k, v in result.seconds.items() if f"{k}_seconds" in TIMINGS}}
    if "structure_recovery.k" in row:
        row["structure_recovery.calibrated"] = int(calibrated)
    write_text(folder / "cell.json", json.dumps(row, indent=1, allow_nan=False) + "\n")
    return row


def _finished(cell: Cell, outdir: Path) -> dict[str, Any] | None:
    path = cell.folder(outdir) / "cell.json"
    try:
        row = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    key = (row.get("model"), row.get("cohort"), row.get("seed"), row.get("tier"))
    return row if key == (cell.model, cell.cohort, cell.seed, cell.tier) else None


def grid(models: Iterable[str], cohorts: Iterable[str], seeds: Iterable[int] | None,
         tier: str, root: Path | None = None) -> list[Cell]:
    """Cells of the grid; ``seeds=None`` means every seed the tier holds for the cohort."""
    d = tier_descriptor(tier, root)
    cells = []
    for cohort in cohorts:
        held = sorted(c["seed"] for c in d.cohorts() if c["variant"] == cohort)
        for seed in (held if seeds is None else list(seeds)):
            cells.extend(Cell(m, cohort, seed, tier) for m in models)
    return cells


def _run_cells(todo: list[Cell], rows: dict[Cell, Any], outdir: Path, jobs: int,
               root: Path | None, k_star: dict[str, int], label: str,
               calibration: tuple[str, int] | None) -> None:
    root_arg = str(root) if root else None

    def args(c: Cell) -> tuple:
        on_calibration = (c.cohort, c.seed) == calibration
        return (c, str(outdir), root_arg, k_star.get(c.model),
                on_calibration or c.model in k_star)

    if jobs > 1 and len(todo) > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = {pool.submit(_run_cell, *args(c)): c for c in todo}
            for future in track(as_completed(futures), len(futures), label):
                rows[futures[future]] = future.result()
    else:
        for c in track(todo, len(todo), label):
            rows[c] = _run_cell(*args(c))


def sweep(cells: list[Cell], outdir: Path, jobs: int = 1, root: Path | None = None
          ) -> tuple[pd.DataFrame, pd.DataFrame, int]:
    """Run every unfinished cell; return (per_seed, summary, cells run now)."""
    start = time.perf_counter()
    rows = {c: _finished(c, outdir) for c in cells}
    todo = [c for c, row in rows.items() if row is None]
    calibration = tier_descriptor(cells[0].tier, root).calibration_cohort if cells else None
    first = [c for c in todo if (c.cohort, c.seed) == calibration]
    _run_cells(first, rows, outdir, jobs, root, {}, "sweep: calibration cohort", calibration)
    k_star = {c.model: int(rows[c]["structure_recovery.k"]) for c in cells
              if (c.cohort, c.seed) == calibration and "structure_recovery.k" in rows[c]}
    rest = [c for c in todo if c not in first]
    _run_cells(rest, rows, outdir, jobs, root, k_star, "sweep", calibration)
    per_seed = _frame([rows[c] for c in cells])
    summary = summarize(per_seed)
    write_text(outdir / "per_seed.csv", per_seed.to_csv(index=False))
    write_text(outdir / "summary.csv", summary.to_csv(index=False))
    manifest = {"icgbench_version": __version__, "cells": len(cells), "run_now": len(todo),
                "seconds_now": time.perf_counter() - start,
                "cell_seconds_total": float(per_seed["total_seconds"].sum()),
                "models": sorted(per_seed.model.unique()),
                "cohorts": sorted(per_seed.cohort.unique()),
                "tiers": sorted(per_seed.tier.unique())}
    write_text(outdir / "sweep.json", json.dumps(manifest, indent=2) + "\n")
    return per_seed, summary, len(todo)


def _frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    frame = pd.DataFrame(rows)
    rest = sorted(c for c in frame.columns if c not in LEAD and c not in TIMINGS)
    return frame[LEAD + rest + TIMINGS]


def summarize(per_seed: pd.DataFrame) -> pd.DataFrame:
    """Mean and sample std over seeds per (model, cohort), normalized scores, runtime."""
    metrics = [c for c in per_seed.columns if c not in LEAD and c not in TIMINGS]
    groups = per_seed.groupby(["model", "cohort"], sort=False)
    numeric = per_seed[["model", "cohort", *metrics]].copy()
    numeric[metrics] = numeric[metrics].apply(pd.to_numeric, errors="coerce")
    g = numeric.groupby(["model", "cohort"], sort=False)
    mean = g[metrics].mean().add_suffix("_mean")
    std = g[metrics].std(ddof=1).add_suffix("_std")
    out = pd.concat([groups.size().rename("n_seeds"), groups["oracle"].first(), mean, std,
                     groups["total_seconds"].sum().rename("total_seconds"),
                     normalized_scores(per_seed)], axis=1).copy()
    return out.reset_index()
