"""How many cohorts and test subjects it takes to tell two models apart: a power analysis.

For each variant of a board, the two best models overall (among those graded on all the
variant's cohorts) are compared as the board compares them: the per-cohort difference of
their shares of the normalized ``overall`` mean (:func:`icgbench.tasks.normalized.aggregate`).
That difference varies for two reasons, which more data buys down differently:

- **within a cohort**, from sampling its held-out subjects: measured by a bootstrap over
  the test and target-test subjects (both models resampled alike, every per-subject metric
  graded again; floors and ceilings held at their cohort values, since a difference of two
  scores does not depend on the floor); it shrinks with more test subjects;
- **between cohorts**, from the cohorts themselves (the drawn graph, weights, measurement):
  the observed variance of the differences minus the mean within-cohort variance; only
  more cohorts (seeds) shrink it.

With ``n`` cohorts of ``m`` test subjects the paired t-test's standard error is
``sqrt((between + within * m0 / m) / n)`` (``m0`` the release's test size); the power to
find a true difference ``delta`` at level 0.05 is that of a two-sided t-test with ``n - 1``
degrees of freedom (the noncentral t). The report gives, per variant: the observed
difference, both variances, the power at the release's sizes for ``delta`` = 0.01 and for the
observed difference, and the seeds (at the release's test size) and the test size (at its
seeds) that 80% power at 0.01 would take.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from icgbench.leaderboard.entry import LeaderboardEntry

#: Bootstrap resamples per cohort, and the random stream they come from.
RESAMPLES = 200
STREAM = 20261128
ALPHA = 0.05
TARGET_POWER = 0.8
DELTA = 0.01


@dataclass(frozen=True)
class Power:
    """One variant's power analysis (see the module)."""

    variant: str
    models: tuple[str, str]
    cohorts: int
    test_size: int
    difference: float
    within: float
    between: float
    power_at_delta: float
    power_at_difference: float
    seeds_needed: int | None
    test_size_needed: int | None

    def as_dict(self) -> dict[str, Any]:
        return {f: getattr(self, f) for f in self.__dataclass_fields__}


def power(delta: float, variance: float, n: int, alpha: float = ALPHA) -> float:
    """Power of a two-sided one-sample t-test of ``n`` values with the given variance of
    each value, at a true mean of ``delta``."""
    from scipy.stats import nct, t

    if n < 2:
        return 0.0
    if variance <= 0:
        return 1.0
    df = n - 1
    shift = delta / math.sqrt(variance / n)
    crit = float(t.ppf(1 - alpha / 2, df))
    return float(nct.sf(crit, df, shift) + nct.cdf(-crit, df, shift))


def _resampled(value: Any, index: np.ndarray, n: int) -> Any:
    if isinstance(value, dict):
        return {k: _resampled(v, index, n) for k, v in value.items()}
    if isinstance(value, np.ndarray) and value.ndim >= 1 and len(value) == n:
        return value[index]
    return value


def _resample(truth: Any, blocks: Mapping[str, Any], index: Mapping[str, np.ndarray]
              ) -> tuple[Any, dict[str, Any]]:
    """``truth`` and aligned ``blocks`` with each split's subjects drawn by ``index``."""
    from dataclasses import replace

    import pyarrow as pa

    from icgbench.tasks.blocks import BLOCK_SPLITS

    def per_split(field: Mapping[str, Any]) -> dict[str, Any]:
        return {s: v[index[s]] if s in index else v for s, v in field.items()}

    n_test = len(truth.ids["test"])
    cut = replace(
        truth,
        ids={s: v.take(pa.array(index[s])) if s in index else v for s, v in truth.ids.items()},
        event=per_split(truth.event), true_risk=per_split(truth.true_risk),
        reachable_risk=per_split(truth.reachable_risk),
        end_states=_resampled(dict(truth.end_states), index["test"], n_test),
        counterfactual=_resampled(dict(truth.counterfactual), index["test"], n_test),
        reachable_counterfactual=_resampled(dict(truth.reachable_counterfactual),
                                            index["test"], n_test))
    out = {}
    for name, block in blocks.items():
        split = BLOCK_SPLITS.get(name)
        size = len(truth.ids[split]) if split in truth.ids else 0
        out[name] = _resampled(dict(block), index[split], size) if split in index else block
    return cut, out


def _parts(blocks: Mapping[str, Any], truth: Any) -> dict[tuple[str, str], float]:
    """Every per-subject normalized metric of ``blocks`` (structure is not resampled)."""
    from icgbench.tasks import TASKS

    out = {}
    for name, task in TASKS.items():
        if task.name == "structure_recovery" or not set(task.blocks) <= set(blocks):
            continue
        metrics = task.score(blocks, truth).metrics
        for part in task.normalized:
            value = metrics.get(part.metric)
            if value is not None:
                out[(name, part.metric)] = float(value)
    return out


def _within_variance(paths: tuple[Path, Path], weights: Mapping[tuple[str, str], float],
                     root: Path | None, rng: np.random.Generator, resamples: int) -> float:
    """The bootstrap variance of one cohort's difference of the two models' shares."""
    from icgbench.scorer import validate

    validated = [validate(p, root=root) for p in paths]
    truth = validated[0].truth
    sizes = {s: len(truth.ids[s]) for s in ("test", "target_test")}
    draws = []
    for _ in range(resamples):
        index = {s: rng.integers(0, n, n) for s, n in sizes.items()}
        values = []
        for v in validated:
            cut, blocks = _resample(v.truth, v.blocks, index)
            values.append(_parts(blocks, cut))
        draws.append(math.fsum(w * (values[0].get(p, 0.0) - values[1].get(p, 0.0))
                               for p, w in weights.items()))
    return float(np.var(draws, ddof=1))


Part = tuple[str, str]


def _weights(bounds: Mapping[int, Mapping[Part, tuple[float, float]]]) -> dict[Part, float]:
    """Each normalized metric's weight in a cohort's share of ``overall``, per unit of
    score: its direction over (its mean span, its category's metrics, the five
    categories)."""
    from icgbench.tasks.normalized import higher_is_better, parts_of_categories

    categories = parts_of_categories()
    weights = {}
    for parts in categories.values():
        spans = {}
        for part in parts:
            sign = 1 if higher_is_better(part) else -1
            values = [sign * (b[part][1] - b[part][0]) for b in bounds.values() if part in b]
            values = [v for v in values if v > 0]
            if values:
                spans[part] = (sign, math.fsum(values) / len(values))
        for part, (sign, span) in spans.items():
            weights[part] = sign / (span * len(spans) * len(categories))
    return weights


def _difference(pair: tuple[LeaderboardEntry, LeaderboardEntry],
                bounds: Mapping[Part, tuple[float, float]], weights: Mapping[Part, float]
                ) -> float:
    """One cohort's difference of the two models' shares of ``overall`` (a metric a model
    has no score for is at its floor)."""
    gains = [{p: e.scores[p[0]][p[1]] - bounds[p][0] for p in weights
              if p in bounds and e.scores.get(p[0], {}).get(p[1]) is not None} for e in pair]
    return math.fsum(w * (gains[0].get(p, 0.0) - gains[1].get(p, 0.0))
                     for p, w in weights.items())


def _result(variant: str, models: tuple[str, str], differences: list[float],
            within: list[float], test_size: int, delta: float) -> Power:
    n = len(differences)
    within_mean = float(np.mean(within))
    between = max(0.0, float(np.var(differences, ddof=1)) - within_mean)
    observed = float(np.mean(differences))

    def with_seeds(k: int) -> float:
        return power(delta, between + within_mean, k)

    def with_test_size(k: int) -> float:
        return power(delta, between + within_mean * test_size / k, n)

    return Power(variant=variant, models=models, cohorts=n, test_size=test_size,
                 difference=observed, within=within_mean, between=between,
                 power_at_delta=with_seeds(n),
                 power_at_difference=power(observed, between + within_mean, n),
                 seeds_needed=_smallest(with_seeds),
                 test_size_needed=_smallest(with_test_size, start=test_size))


def analyse(entries: list[LeaderboardEntry], folder: Path, root: Path | None = None,
            delta: float = DELTA, resamples: int = RESAMPLES) -> list[Power]:
    """The power analysis of each variant of a board (see the module), ``resamples``
    bootstrap draws per cohort."""
    from icgbench.io.progress import track
    from icgbench.leaderboard.ranking import floors_of, part_bounds, rank_overall

    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(STREAM)))
    floors = floors_of(entries)
    out = []
    variants = list(dict.fromkeys(e.variant_name for e in entries))
    for variant in track(variants, len(variants), "bootstrapping each variant's top pair"):
        top = [(r.model, r.package_version) for r in rank_overall(entries, [variant], floors)
               if not r.partial and (r.model, r.package_version) not in floors][:2]
        if len(top) < 2:
            continue
        mine = [{e.seed: e for e in entries if e.variant_name == variant
                 and (e.model_name, e.package_version) == key} for key in top]
        seeds = sorted(set(mine[0]) & set(mine[1]))
        if len(seeds) < 2:  # one cohort says nothing of the spread between cohorts
            continue
        bounds = {s: part_bounds(mine[0][s]) for s in seeds}
        weights = _weights(bounds)
        per_subject = {p: w for p, w in weights.items() if p[0] != "structure_recovery"}
        differences = [_difference((mine[0][s], mine[1][s]), bounds[s], weights)
                       for s in seeds]
        within = [_within_variance((folder / mine[0][s].submission_path,
                                    folder / mine[1][s].submission_path),
                                   per_subject, root, rng, resamples) for s in seeds]
        out.append(_result(variant, (top[0][0], top[1][0]), differences, within,
                           _test_size(mine[0][seeds[0]], root), delta))
    return out


def _test_size(entry: LeaderboardEntry, root: Path | None) -> int:
    from icgbench.api.tables import tier_descriptor

    cohort = next(c for c in tier_descriptor(entry.tier, root).cohorts()
                  if (c["variant"], c["seed"]) == (entry.variant_name, entry.seed))
    return int(cohort["sizes"]["test"])


def _smallest(power_of, start: int = 2, factor: int | None = None, limit: int = 10**7
              ) -> int | None:
    """The smallest k >= ``start`` whose power reaches TARGET_POWER (power grows with k):
    doubling to a bound, then bisection; None when none up to ``limit`` does."""
    high = start
    while power_of(high) < TARGET_POWER:
        high *= 2
        if high > limit:
            return None
    low = max(start, high // 2)
    if power_of(low) >= TARGET_POWER:
        return low
    while high - low > 1:
        mid = (low + high) // 2
        if power_of(mid) >= TARGET_POWER:
            high = mid
        else:
            low = mid
    return high
