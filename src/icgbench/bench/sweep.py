"""The canonical grid: every (model, cohort, seed), in parallel processes, resumable.

Each finished cell leaves ``cells/<model>/<cohort>__seed<k>/cell.json`` beside its
submission and report; a rerun skips those cells. The sweep writes ``per_seed.csv`` (every
metric and the timings of every finished cell), ``summary.csv`` (mean and sample standard
deviation over seeds per model and cohort, normalized scores, runtime), ``failures.csv``
and ``sweep.json``.

A cell that raises (fitting, predicting, writing or scoring) does not end the sweep: it is
recorded with its error in ``failures.csv`` and in its folder's ``failed.json`` (with the
traceback), left out of the tables, and run again by the next sweep over the same folder.

Structure recovery follows the calibration protocol: the cells on the release's
calibration cohort run first, each model's K* is read from its sensitivity curve there
(the K maximising directed F1, the headline, or with ``calibrate_by="shd"`` the K
minimising SHD; ties to the smallest K), and every cell of that model is graded at that
K*. A model without a K* (the calibration cohort is not in the grid, or its cell there
failed) has its other cells graded at their own best K by F1 and marked
``structure_recovery.calibrated = 0``; once a later sweep finds its K*, those cells are
re-scored (not refitted) at it, as is any finished cell graded at another K*.
"""

from __future__ import annotations

import json
import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import pandas as pd

from icgbench import __version__
from icgbench.api.tables import tier_descriptor
from icgbench.bench.calibration import CALIBRATE_BY, DEFAULT_CALIBRATE_BY
from icgbench.bench.run import UNFROZEN_FOLDER, run_experiment
from icgbench.io.atomic import write_text
from icgbench.io.progress import track
from icgbench.models import missing_requirement
from icgbench.scheduling import DEFAULT, Runner

LEAD = ["model", "cohort", "seed", "tier", "oracle"]
TIMINGS = ["generate_seconds", "fit_seconds", "predict_seconds", "write_seconds",
           "score_seconds", "total_seconds"]
#: Columns that name rather than measure: carried into the summary, never averaged.
LABELS = ["structure_recovery.calibrate_by"]


#: The criterion of a cell graded without a K*: the scorer's in-sample best K.
IN_SAMPLE_BY = "f1"
FINISHED = "cell.json"
FAILED = "failed.json"
FAILURES = "failures.csv"
SUBMISSION = "submission.json.gz"
REPORT = "report.json"


@dataclass(frozen=True)
class Cell:
    model: str
    cohort: str
    seed: int
    tier: str

    def folder(self, outdir: Path) -> Path:
        return outdir / "cells" / self.model / f"{self.cohort}__seed{self.seed}"


@dataclass(frozen=True)
class Failure:
    """A cell that raised: which one, and the error's type and one-line message."""

    model: str
    cohort: str
    seed: int
    tier: str
    error_type: str
    error: str


FAILURE_COLUMNS = [f.name for f in fields(Failure)]


@dataclass(frozen=True)
class SweepResult:
    """What a sweep left: the tables of the finished cells, and the cells that failed."""

    per_seed: pd.DataFrame
    summary: pd.DataFrame
    ran: int
    regraded: int
    failures: list[Failure]
    k_stars: dict[str, dict[str, int]]


def k_star(curve: dict[str, list[float]], by: str = DEFAULT_CALIBRATE_BY) -> int:
    """The smallest K with the best value of ``by``'s metric (max F1 or min SHD)."""
    criterion = CALIBRATE_BY[by]
    values = list(curve[criterion.column])
    return int(curve["k"][values.index(criterion.best(values))])


def runnable(models: Iterable[str]) -> tuple[list[str], list[str]]:
    """(the models whose optional dependencies import, an install hint for each other)."""
    kept, hints = [], []
    for model in models:
        hint = missing_requirement(model)
        if hint is None:
            kept.append(model)
        else:
            hints.append(hint)
    return kept, hints


def report_row(report: dict[str, Any]) -> dict[str, Any]:
    """Every metric of a report as flat columns ``<task>.<metric>`` (and each normalized
    metric's ``__floor`` and ``__ceiling``), plus the summary."""
    row: dict[str, Any] = {}
    for task, section in report["tasks"].items():
        for metric, value in section["metrics"].items():
            row[f"{task}.{metric}"] = value
        for metric, part in section.get("normalized", {}).get("parts", {}).items():
            row[f"{task}.{metric}__floor"] = part["floor"]
            row[f"{task}.{metric}__ceiling"] = part["ceiling"]
    details = report["tasks"].get("intervention_conformity", {}).get("details", {})
    for name, d in details.get("interventions", {}).items():
        row[f"intervention_conformity.prior_conforms__{name}"] = int(d["prior_conforms"])
        row[f"intervention_conformity.dgp_conforms__{name}"] = int(d["dgp_conforms"])
    for key, value in report["summary"].items():
        if key == "normalized":
            row.update({f"summary.normalized_{c}": v for c, v in value.items()})
        elif not key.endswith("_note"):
            row[f"summary.{key}"] = value
    return row


def _calibration_flags(row: dict[str, Any], calibrated: bool, by: str) -> dict[str, Any]:
    if "structure_recovery.k" not in row:
        return {}
    return {"structure_recovery.calibrated": int(calibrated),
            "structure_recovery.calibrate_by": by if calibrated else IN_SAMPLE_BY}


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _fail(cell: Cell, outdir: Path, exc: BaseException) -> Failure:
    """Record ``exc`` in the cell's folder (with the traceback); the cell is not finished."""
    failure = Failure(cell.model, cell.cohort, cell.seed, cell.tier, type(exc).__name__,
                      _one_line(exc))
    folder = cell.folder(outdir)
    (folder / FINISHED).unlink(missing_ok=True)
    document = {**asdict(failure), "traceback": traceback.format_exception(exc)}
    write_text(folder / FAILED, json.dumps(document, indent=1) + "\n")
    return failure


def _finish(cell: Cell, outdir: Path, row: dict[str, Any]) -> dict[str, Any]:
    folder = cell.folder(outdir)
    write_text(folder / FINISHED, json.dumps(row, indent=1, allow_nan=False) + "\n")
    (folder / FAILED).unlink(missing_ok=True)
    return row


def _run_cell(cell: Cell, outdir: str, root: str | None, structure_k: int | None,
              calibrated: bool, by: str) -> dict[str, Any] | Failure:
    """Fit, submit and score one cell; any exception becomes its recorded Failure.

    A cell runs on one thread: the sweep's parallelism is its workers, and a library's own
    thread pool (OpenMP in gradient boosting) on top of them spins two threads per core."""
    from threadpoolctl import threadpool_limits

    try:
        folder = cell.folder(Path(outdir))
        with threadpool_limits(1):
            result = run_experiment(cell.model, cell.cohort, cell.seed, cell.tier, folder,
                                    Path(root) if root else None, compress=True,
                                    structure_k=structure_k)
        row = {"model": cell.model, "cohort": cell.cohort, "seed": cell.seed,
               "tier": cell.tier,
               "oracle": bool(result.report.document["model"].get("oracle", False)),
               **report_row(result.report.document),
               **{f"{k}_seconds": v for k, v in result.seconds.items()
                  if f"{k}_seconds" in TIMINGS}}
        return _finish(cell, Path(outdir), row | _calibration_flags(row, calibrated, by))
    except Exception as exc:
        return _fail(cell, Path(outdir), exc)


def _regrade_cell(cell: Cell, outdir: str, root: str | None, structure_k: int, by: str
                  ) -> dict[str, Any] | Failure:
    """Score a finished cell's submission again at ``structure_k`` (no refitting)."""
    from icgbench.scorer import score

    try:
        folder = cell.folder(Path(outdir))
        old = json.loads((folder / FINISHED).read_text())
        unfrozen = folder / UNFROZEN_FOLDER
        release = unfrozen if unfrozen.is_dir() else (Path(root) if root else None)
        report = score(folder / SUBMISSION, root=release, structure_k=structure_k)
        write_text(folder / REPORT, report.to_json())
        row = old | report_row(report.document)
        return _finish(cell, Path(outdir), row | _calibration_flags(row, True, by))
    except Exception as exc:
        return _fail(cell, Path(outdir), exc)


def _finished(cell: Cell, outdir: Path) -> dict[str, Any] | None:
    path = cell.folder(outdir) / FINISHED
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


Job = tuple[Cell, Callable[..., "dict[str, Any] | Failure"], tuple]


def _execute(runner: Runner, jobs: list[Job], outdir: Path, label: str
             ) -> dict[Cell, dict[str, Any] | Failure]:
    """Run each job (a cell, a function and its arguments) on ``runner``."""
    out: dict[Cell, dict[str, Any] | Failure] = {}
    for (cell, _, _), result in track(runner.outcomes(_call, jobs), len(jobs), label):
        # an exception here: the worker died, or the result could not travel back
        out[cell] = _fail(cell, outdir, result) if isinstance(result, Exception) else result
    return out


def _call(job: Job) -> dict[str, Any] | Failure:
    _, function, args = job
    return function(*args)


def _k_stars(cells: Iterable[Cell], rows: dict[Cell, Any], outdir: Path
             ) -> dict[str, dict[str, int]]:
    """Per model finished on the calibration cohort: its K* by every criterion."""
    stars = {}
    for c in cells:
        if not isinstance(rows[c], dict) or "structure_recovery.k" not in rows[c]:
            continue
        try:
            report = json.loads((c.folder(outdir) / REPORT).read_text())
            curve = report["tasks"]["structure_recovery"]["details"]["curve"]
        except (OSError, ValueError, KeyError):  # no readable curve: no K* for the model
            continue
        stars[c.model] = {by: k_star(curve, by) for by in CALIBRATE_BY}
    return stars


def _stale(row: dict[str, Any], k: int, by: str) -> bool:
    """Whether a finished row was graded at another K* than ``k`` (by ``by``)."""
    return "structure_recovery.k" in row and (
        int(row["structure_recovery.k"]) != k
        or row.get("structure_recovery.calibrated") != 1
        or row.get("structure_recovery.calibrate_by") != by)


def sweep(cells: list[Cell], outdir: Path, jobs: int = 1, root: Path | None = None,
          calibrate_by: str = DEFAULT_CALIBRATE_BY, scheduler: str = DEFAULT) -> SweepResult:
    """Run every unfinished cell, re-score stale ones, write the tables of the finished.

    ``scheduler`` (see :mod:`icgbench.scheduling`) says where cells run; what a cell
    computes never depends on it.
    """
    if calibrate_by not in CALIBRATE_BY:
        raise ValueError(f"calibrate_by must be one of {', '.join(CALIBRATE_BY)}")
    start = time.perf_counter()
    rows: dict[Cell, Any] = {c: _finished(c, outdir) for c in cells}
    todo = [c for c, row in rows.items() if row is None]
    calibration = tier_descriptor(cells[0].tier, root).calibration_cohort if cells else None
    on_calibration = [c for c in cells if (c.cohort, c.seed) == calibration]
    root_arg = str(root) if root else None

    def run(c: Cell, k: int | None, calibrated: bool) -> Job:
        return c, _run_cell, (c, str(outdir), root_arg, k, calibrated, calibrate_by)

    first = [c for c in todo if c in on_calibration]
    with Runner(scheduler, jobs) as runner:
        rows |= _execute(runner, [run(c, None, True) for c in first], outdir,
                         "sweep: calibration cohort")
        k_stars = _k_stars(on_calibration, rows, outdir)
        chosen = {m: stars[calibrate_by] for m, stars in k_stars.items()}
        rest = [c for c in todo if c not in first]
        rows |= _execute(runner, [run(c, chosen.get(c.model), c.model in chosen)
                                  for c in rest], outdir, "sweep")
        stale = [c for c in cells if c.model in chosen and isinstance(rows[c], dict)
                 and _stale(rows[c], chosen[c.model], calibrate_by)]
        rows |= _execute(runner, [(c, _regrade_cell, (c, str(outdir), root_arg,
                                                      chosen[c.model], calibrate_by))
                                  for c in stale], outdir, "sweep: re-scoring at K*")
    failures = [rows[c] for c in cells if isinstance(rows[c], Failure)]
    per_seed = _frame([rows[c] for c in cells if isinstance(rows[c], dict)])
    summary = summarize(per_seed)
    write_text(outdir / "per_seed.csv", per_seed.to_csv(index=False))
    write_text(outdir / "summary.csv", summary.to_csv(index=False))
    write_text(outdir / FAILURES, failures_csv(failures))
    manifest = {"icgbench_version": __version__, "cells": len(cells), "run_now": len(todo),
                "rescored_now": len(stale), "failed": len(failures),
                "seconds_now": time.perf_counter() - start,
                "cell_seconds_total": float(per_seed["total_seconds"].sum()),
                "models": sorted(per_seed.model.unique()),
                "cohorts": sorted(per_seed.cohort.unique()),
                "tiers": sorted(per_seed.tier.unique()),
                "calibrate_by": calibrate_by,
                "calibration": _calibration_manifest(calibration, k_stars)}
    write_text(outdir / "sweep.json", json.dumps(manifest, indent=2) + "\n")
    return SweepResult(per_seed, summary, len(todo), len(stale), failures, k_stars)


def _calibration_manifest(calibration: tuple[str, int] | None,
                          k_stars: dict[str, dict[str, int]]) -> dict[str, Any] | None:
    if calibration is None:
        return None
    return {"cohort": calibration[0], "seed": calibration[1],
            "k_star": {m: k_stars[m] for m in sorted(k_stars)}}


def failures_csv(failures: list[Failure]) -> str:
    """The failed cells as CSV (a header alone when none failed)."""
    frame = pd.DataFrame([asdict(f) for f in failures], columns=FAILURE_COLUMNS)
    return frame.to_csv(index=False)


def _frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=None if rows else LEAD + TIMINGS)
    rest = sorted(c for c in frame.columns if c not in LEAD and c not in TIMINGS)
    return frame[LEAD + rest + TIMINGS]


def summarize(per_seed: pd.DataFrame) -> pd.DataFrame:
    """Mean and sample std over seeds per (model, cohort) of every metric (the reports'
    normalized scores and overall among them), and the runtime."""
    if per_seed.empty:
        return pd.DataFrame(columns=["model", "cohort", "n_seeds", "oracle", "total_seconds"])
    labels = [c for c in LABELS if c in per_seed.columns]
    metrics = [c for c in per_seed.columns
               if c not in LEAD and c not in TIMINGS and c not in labels]
    groups = per_seed.groupby(["model", "cohort"], sort=False)
    numeric = per_seed[["model", "cohort", *metrics]].copy()
    numeric[metrics] = numeric[metrics].apply(pd.to_numeric, errors="coerce")
    g = numeric.groupby(["model", "cohort"], sort=False)
    mean = g[metrics].mean().add_suffix("_mean")
    std = g[metrics].std(ddof=1).add_suffix("_std")
    out = pd.concat([groups.size().rename("n_seeds"), groups["oracle"].first(),
                     groups[labels].first(), mean, std,
                     groups["total_seconds"].sum().rename("total_seconds")], axis=1).copy()
    return out.reset_index()
