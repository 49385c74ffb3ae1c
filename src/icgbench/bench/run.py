"""One experiment: fit a model on a cohort's public tables, submit, score, time each step."""

from __future__ import annotations

import gzip
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from icgbench.atomic import write_bytes, write_text
from icgbench.models import CohortData, get_model
from icgbench.scorer import ScoreReport, score


@dataclass(frozen=True)
class RunResult:
    """What one (model, cohort, seed) run produced."""

    model: str
    cohort: str
    seed: int
    tier: str
    submission_path: Path
    report_path: Path
    report: ScoreReport
    seconds: dict[str, float]

    def as_json(self) -> dict[str, Any]:
        return {
            "model": self.model, "cohort": self.cohort, "seed": self.seed, "tier": self.tier,
            "oracle": bool(self.report.document["model"].get("oracle", False)),
            "submission": str(self.submission_path), "report": str(self.report_path),
            "summary": self.report.summary, "wall_clock_seconds": self.seconds,
        }


def run_experiment(model_name: str, cohort: str, seed: int | None, tier: str, outdir: Path,
                   root: Path | None = None, compress: bool = False,
                   structure_k: int | None = None) -> RunResult:
    """Fit, predict, write ``submission.json[.gz]``, score, write ``report.json``.

    ``structure_k`` grades structure_recovery at the model's calibrated K*.
    """
    start = time.perf_counter()
    data = CohortData.load(cohort, seed, tier, root)
    t_load = time.perf_counter()
    model = get_model(model_name)
    model.fit(data)
    t_fit = time.perf_counter()
    submission = model.submission(data)
    t_predict = time.perf_counter()
    text = json.dumps(submission, allow_nan=False, separators=(",", ":")) + "\n"
    if compress:
        path = outdir / "submission.json.gz"
        write_bytes(path, gzip.compress(text.encode(), mtime=0))
    else:
        path = outdir / "submission.json"
        write_text(path, text)
    t_write = time.perf_counter()
    report = score(path, root=root, structure_k=structure_k)
    report_path = outdir / "report.json"
    write_text(report_path, report.to_json())
    t_score = time.perf_counter()
    seconds = {"generate": t_load - start, "fit": t_fit - t_load, "predict": t_predict - t_fit,
               "write": t_write - t_predict, "score": t_score - t_write,
               "total": t_score - start}
    return RunResult(model_name, cohort, data.seed, tier, path, report_path, report, seconds)
