"""Spans that measure: is the distance from floor to ceiling large beside the noise?

For every variant, category and normalized metric of a board, two ratios of the span (the
mean over the variant's cohorts of ceiling minus floor, turned so that larger is better):

- **per cohort**: the span over the standard error of the metric on one cohort, measured by
  a bootstrap of each fitted reference's submission on a sample of the variant's cohorts
  (its held-out subjects resampled; a graph, which no subject enters, over its node pairs:
  :mod:`.resampling`): the median over the references of each one's mean error over the
  sampled cohorts (the largest is reported beside it). At least 4: one cohort tells the
  floor from the ceiling.
- **pooled**: the span over the largest standard error of the variant's pooled mean, the
  spread over cohorts of a reference's gain over the floor divided by the square root of the
  cohorts. At least 10: the board's mean over the variant is read to a tenth of the span.
  The largest is taken over the references whose mean lies within the span's reach (at
  most one span below the floor). A reference further below (on ``hidden_confounding`` a
  model that learns effects from associations, whose errors grow with its distance from
  the floor) is held to its own test instead: its mean is at least 10 of its standard
  errors below the floor (``beyond``), so the board reads it as below the floor as surely
  as it reads the others to a tenth of the span.

``icgbench bench spans`` prints both; docs/baselines.md shows them.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from icgbench.leaderboard.entry import LeaderboardEntry

#: The ratios the release holds every variant x category to.
PER_COHORT_TARGET = 4.0
POOLED_TARGET = 10.0
STREAM = 20261203

Part = tuple[str, str]


@dataclass(frozen=True)
class Span:
    """One variant x normalized metric (see the module)."""

    variant: str
    category: str
    task: str
    metric: str
    cohorts: int
    span: float
    se_cohort: float
    se_cohort_largest: float
    se_cohort_model: str
    se_pooled: float
    se_pooled_model: str
    #: (model, normalized mean, standard errors below the floor) of each reference more
    #: than one span below the floor, left out of ``se_pooled``.
    beyond: tuple[tuple[str, float, float], ...] = ()

    @property
    def per_cohort(self) -> float:
        return self.span / self.se_cohort if self.se_cohort > 0 else math.inf

    @property
    def pooled(self) -> float:
        return self.span / self.se_pooled if self.se_pooled > 0 else math.inf

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "per_cohort": self.per_cohort, "pooled": self.pooled,
                "beyond": [{"model": m, "normalized": n, "below": b}
                           for m, n, b in self.beyond]}


def _signed(part: Part, value: float) -> float:
    from icgbench.tasks.normalized import higher_is_better

    return value if higher_is_better(part) else -value


def measure(entries: list[LeaderboardEntry], folder: Path, root: Path | None = None,
            resamples: int = 50, sample: int = 2) -> list[Span]:
    """Every variant x normalized metric of the board (see the module); ``sample`` cohorts
    per variant are bootstrapped ``resamples`` times for the per-cohort error."""
    from icgbench.io.progress import track
    from icgbench.leaderboard.ranking import floors_of, part_bounds, part_scores
    from icgbench.tasks.normalized import parts_of_categories

    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(STREAM)))
    floors = floors_of(entries)
    fitted = [e for e in entries if (e.model_name, e.package_version) not in floors]
    category_of = {p: c for c, parts in parts_of_categories().items() for p in parts}
    variants = list(dict.fromkeys(e.variant_name for e in entries))
    out = []
    for variant in track(variants, len(variants), "bootstrapping each variant's spans"):
        mine = [e for e in fitted if e.variant_name == variant]
        seeds = sorted({e.seed for e in mine})
        bounds = {e.seed: part_bounds(e) for e in entries if e.variant_name == variant}
        errors = _cohort_errors([e for e in mine if e.seed in seeds[:sample]], folder, root,
                                resamples, rng)
        for part, category in category_of.items():
            spans = [_signed(part, b[part][1] - b[part][0]) for b in bounds.values()
                     if part in b]
            spans = [s for s in spans if s > 0]
            if not spans:
                continue
            span = statistics.fmean(spans)
            pooled, beyond = [], []
            for model in sorted({(e.model_name, e.package_version) for e in mine}):
                gains = [_signed(part, v - bounds[e.seed][part][0])
                         for e in mine if (e.model_name, e.package_version) == model
                         and (v := part_scores(e).get(part)) is not None
                         and part in bounds[e.seed]]
                if len(gains) < 2:
                    continue
                se, mean = statistics.stdev(gains) / math.sqrt(len(gains)), statistics.fmean(gains)
                if mean < -span:
                    beyond.append((model[0], mean / span, -mean / se if se > 0 else math.inf))
                else:
                    pooled.append((se, model[0]))
            by_model: dict[str, list[float]] = {}
            for se, model in errors.get(part, []):
                by_model.setdefault(model, []).append(se)
            if not pooled or not by_model:
                continue
            means = {m: statistics.fmean(v) for m, v in by_model.items()}
            largest = max(means, key=lambda m: means[m])
            se_p, model_p = max(pooled)
            out.append(Span(variant, category, part[0], part[1], len(spans), span,
                            statistics.median(means.values()), means[largest], largest,
                            se_p, model_p, tuple(beyond)))
    return out


def _cohort_errors(entries: list[LeaderboardEntry], folder: Path, root: Path | None,
                   resamples: int, rng: np.random.Generator
                   ) -> dict[Part, list[tuple[float, str]]]:
    """Per normalized metric: (the bootstrap sd of one entry's value, its model) for every
    entry given."""
    from icgbench.bench.resampling import pair_bootstrap, per_subject_parts, resample
    from icgbench.scorer import check_submission

    out: dict[Part, list[tuple[float, str]]] = {}
    for e in entries:
        v = check_submission(folder / e.submission_path, root=root)
        sizes = {s: len(v.truth.ids[s]) for s in ("test", "target_test")}
        draws: dict[Part, list[float]] = {}
        for _ in range(resamples):
            index = {s: rng.integers(0, n, n) for s, n in sizes.items()}
            cut, blocks = resample(v.truth, v.blocks, index)
            for part, value in per_subject_parts(blocks, cut).items():
                draws.setdefault(part, []).append(value)
        k = e.scores.get("structure_recovery", {}).get("k")
        if "structure_recovery" in v.blocks and k is not None:
            for metric, values in pair_bootstrap(v.blocks["structure_recovery"], v.truth,
                                                 int(k), resamples, rng).items():
                draws[("structure_recovery", metric)] = values
        for part, values in draws.items():
            if len(values) > 1:
                out.setdefault(part, []).append((statistics.stdev(values), e.model_name))
    return out
