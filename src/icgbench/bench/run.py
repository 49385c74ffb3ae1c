"""One experiment: fit a model on a cohort's public tables, submit, score, time each step."""

from __future__ import annotations

import functools
import gzip
import json
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from icgbench.api.tables import tier_descriptor
from icgbench.errors import UsageError, UserError
from icgbench.io.atomic import write_bytes, write_text
from icgbench.models import CohortData, get_model
from icgbench.release.tiers import UNFROZEN_NAME, UNFROZEN_NOTICE
from icgbench.scorer import ScoreReport, score

log = logging.getLogger(__name__)

#: Where ``run_experiment`` simulates a cohort that is not in the frozen release.
UNFROZEN_FOLDER = "cohort"


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

    @property
    def frozen(self) -> bool:
        return bool(self.report.document["frozen"])

    def as_json(self) -> dict[str, Any]:
        return {
            "model": self.model, "cohort": self.cohort, "seed": self.seed, "tier": self.tier,
            "frozen": self.frozen, **({} if self.frozen else {"notice": UNFROZEN_NOTICE}),
            "oracle": bool(self.report.document["model"].get("oracle", False)),
            "submission": str(self.submission_path), "report": str(self.report_path),
            "summary": self.report.summary, "wall_clock_seconds": self.seconds,
        }


def in_release(cohort: str, seed: int | None, tier: str, root: Path | None = None) -> bool:
    """Whether ``(cohort, seed)`` is a cohort of the frozen ``tier`` (None: its first seed)."""
    if seed is None:
        return True
    return any(c["variant"] == cohort and c["seed"] == seed
               for c in tier_descriptor(tier, root).cohorts())


def prepare_cohort(cohort: str, seed: int | None, tier: str, root: Path | None,
                   outdir: Path, n_subjects: int | None = None, months: int | None = None
                   ) -> tuple[str, Path | None]:
    """The (tier, release root) to load ``(cohort, seed)`` from.

    The frozen release when it holds the cohort and no size is overridden; otherwise the
    cohort is simulated on the fly into ``outdir/cohort`` as an ``unfrozen`` release.
    """
    if n_subjects is None and months is None and in_release(cohort, seed, tier, root):
        return tier, root
    from icgbench.release.unfrozen import simulate_release, unfrozen_tier

    seed = 0 if seed is None else seed
    try:
        spec = unfrozen_tier(cohort, seed, n_subjects, months)
    except UserError:  # already the user's error, with its own exit code
        raise
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    where = outdir / UNFROZEN_FOLDER
    log.warning("simulating %s seed %d (%d subjects) on the fly into %s: it is not a cohort "
                "of the frozen %s tier", cohort, seed, sum(spec.sizes.values()), where, tier)
    simulate_release(spec, where)
    return UNFROZEN_NAME, where


def _loaded(cohort: str, seed: int | None, tier: str, root: Path | None) -> CohortData:
    """The cohort's public tables, loaded (hash-checked) once per process for the cohorts
    a sweep's worker runs many models on: each model gets its own copies."""
    from dataclasses import fields, replace

    import pandas as pd

    path = tier_descriptor(tier, root).path
    stat = path.stat()
    data = _cached(cohort, seed, tier, root, (str(path), stat.st_mtime_ns, stat.st_size))
    return replace(data, **{f.name: getattr(data, f.name).copy() for f in fields(data)
                            if isinstance(getattr(data, f.name), pd.DataFrame)})


#: Cohorts a process keeps loaded: a scheduler hands a worker cells of many cohorts in turn.
LOADED_COHORTS = 16


@functools.lru_cache(maxsize=LOADED_COHORTS)
def _cached(cohort: str, seed: int | None, tier: str, root: Path | None,
            descriptor: tuple[str, int, int]) -> CohortData:
    """Loaded once per release descriptor (its path, modification time and size)."""
    return CohortData.load(cohort, seed, tier, root)


def run_experiment(model_name: str, cohort: str, seed: int | None, tier: str, outdir: Path,
                   root: Path | None = None, compress: bool = False,
                   structure_k: int | None = None, n_subjects: int | None = None,
                   months: int | None = None) -> RunResult:
    """Fit, predict, write ``submission.json[.gz]``, score, write ``report.json``.

    ``structure_k`` grades structure_recovery at the model's calibrated K*. A seed outside
    the frozen tier, or ``n_subjects``/``months``, runs on a cohort simulated on the fly
    (see ``prepare_cohort``); its report says it is not frozen data.
    """
    start = time.perf_counter()
    tier, root = prepare_cohort(cohort, seed, tier, root, outdir, n_subjects, months)
    data = _loaded(cohort, seed, tier, root) if tier != UNFROZEN_NAME else CohortData.load(
        cohort, seed, tier, root)
    log.info("loaded the public tables of %s seed %d (%s tier)", cohort, data.seed, tier)
    t_load = time.perf_counter()
    model = get_model(model_name)
    log.info("fitting %s", model.name)
    model.fit(data)
    t_fit = time.perf_counter()
    log.info("predicting")
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
    log.info("wrote %s; scoring it", path)
    report = score(path, root=root, structure_k=structure_k)
    report_path = outdir / "report.json"
    write_text(report_path, report.to_json())
    t_score = time.perf_counter()
    seconds = {"generate": t_load - start, "fit": t_fit - t_load, "predict": t_predict - t_fit,
               "write": t_write - t_predict, "score": t_score - t_write,
               "total": t_score - start}
    return RunResult(model.name, cohort, data.seed, tier, path, report_path, report, seconds)
