"""How small a difference the board can tell apart: a power analysis on its own numbers.

Every comparison is the board's own (:func:`icgbench.leaderboard.ranking.normalized_with_shares`):
two models' per-cohort shares of a normalized mean, paired over the cohorts of a scope
(every cohort, or one variant's), blocked by variant. For each pair of models adjacent in a
scope's ``overall`` ranking the report gives the difference, the blocked standard deviation
``s`` of the per-cohort differences, the paired test's p-value, and the **smallest
detectable difference**: the true mean difference a two-sided paired t-test at level 0.05
finds with 80% power on ``n`` cohorts of ``V`` variants (``n - V`` degrees of freedom; the
noncentral t), given that spread.

That spread has two sources, which more data buys down differently:

- **within a cohort**, from sampling its held-out subjects: measured by a bootstrap over
  the test and target-test subjects of a sample of cohorts (both models resampled alike,
  every per-subject metric graded again, floors and ceilings held: a difference of two
  scores does not depend on them); it shrinks with more test subjects;
- **between cohorts**, from the cohorts themselves (the drawn graph, weights, measurement):
  the observed variance of the differences minus the mean within-cohort variance; only
  more cohorts (seeds) shrink it.

With ``k`` seeds per variant and ``m`` test subjects the variance of one cohort's difference
is ``between + within * m0 / m`` (``m0`` the release's test size), which :func:`project`
turns into the detectable difference of any design: docs/baselines.md's power table.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from icgbench.bench.resampling import bootstrap
from icgbench.leaderboard.entry import LeaderboardEntry

#: Bootstrap resamples per cohort, and the random stream they come from.
RESAMPLES = 50
STREAM = 20261201
ALPHA = 0.05
TARGET_POWER = 0.8
#: The scope of the whole board.
ALL = "all"

Cohort = tuple[str, int]
Key = tuple[str, str]


def power(delta: float, variance: float, n: int, alpha: float = ALPHA,
          df: int | None = None) -> float:
    """Power of a two-sided one-sample t-test of ``n`` values with the given variance of
    each value, at a true mean of ``delta`` (``df`` degrees of freedom; default n - 1)."""
    from scipy.stats import nct, t

    df = n - 1 if df is None else df
    if n < 2 or df < 1:
        return 0.0
    if variance <= 0:
        return 1.0
    shift = delta / math.sqrt(variance / n)
    if abs(shift) > 30:  # beyond the noncentral t's numerics; the power is 1 to 1e-12
        return 1.0
    crit = float(t.ppf(1 - alpha / 2, df))
    upper, lower = float(nct.sf(crit, df, shift)), float(nct.cdf(-crit, df, shift))
    # scipy's noncentral t returns NaN for a tail far below 1e-12: it is 0 there
    return (upper if math.isfinite(upper) else 0.0) + (lower if math.isfinite(lower) else 0.0)


def detectable(variance: float, n: int, df: int, target: float = TARGET_POWER) -> float:
    """The smallest true difference the test finds with power ``target``."""
    from scipy.optimize import brentq

    if variance <= 0:
        return 0.0
    if n < 2 or df < 1:
        return math.inf
    scale = math.sqrt(variance / n)
    return float(brentq(lambda d: power(d, variance, n, df=df) - target, 0.0, 20 * scale,
                        xtol=1e-10))


def blocked_variance(differences: Mapping[Cohort, float]) -> tuple[float, int]:
    """The variance of per-cohort differences around their variant means, and its degrees
    of freedom (n - V; one cohort per variant: around the overall mean, n - 1)."""
    by_variant: dict[str, list[float]] = {}
    for (variant, _), d in differences.items():
        by_variant.setdefault(variant, []).append(d)
    n = len(differences)
    df = n - len(by_variant)
    if df < 1:
        mean = statistics.fmean(differences.values())
        return (math.fsum((d - mean) ** 2 for d in differences.values()) / max(n - 1, 1),
                n - 1)
    residuals = [d - statistics.fmean(v) for v in by_variant.values() for d in v]
    return math.fsum(r * r for r in residuals) / df, df


@dataclass(frozen=True)
class PairPower:
    """Two models adjacent in one scope's ``overall`` ranking (see the module)."""

    scope: str
    better: str
    worse: str
    cohorts: int
    variants: int
    difference: float
    sd: float
    p_value: float | None
    detectable: float
    within: float | None = None
    between: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _name(key: Key) -> str:
    return f"{key[0]} {key[1]}"


def pairs(entries: list[LeaderboardEntry], scopes: Sequence[str] | None = None
          ) -> list[PairPower]:
    """Every pair adjacent in each scope's overall ranking (the whole board, then each
    variant), among the complete models that fit data (not the reference lines)."""
    from icgbench.leaderboard.ranking import floors_of, normalized_with_shares
    from icgbench.leaderboard.uncertainty import paired_p

    floors = floors_of(entries)
    variants = list(dict.fromkeys(e.variant_name for e in entries))
    out = []
    for scope in scopes or [ALL, *variants]:
        rows, shares = normalized_with_shares(entries, None if scope == ALL else [scope],
                                              floors)
        ranked = [(r.model, r.package_version) for r in rows
                  if r.place is not None and not r.partial]
        for a, b in itertools.pairwise(ranked):
            diffs = {c: shares[a][c] - shares[b][c] for c in shares[a] if c in shares[b]}
            variance, df = blocked_variance(diffs)
            n = len(diffs)
            out.append(PairPower(scope, _name(a), _name(b), n, len({c[0] for c in diffs}),
                                 statistics.fmean(diffs.values()), math.sqrt(variance),
                                 paired_p(shares[a], shares[b]),
                                 detectable(variance, n, df)))
    return out


def within_variance(entries: list[LeaderboardEntry], folder: Path, pair: PairPower,
                    cohorts: Sequence[Cohort], root: Path | None, resamples: int,
                    rng: np.random.Generator) -> float:
    """The mean over ``cohorts`` of the bootstrap variance of one cohort's difference of the
    pair's shares of ``overall`` (per-subject metrics resampled; structure, which no
    subject enters, held)."""
    from icgbench.leaderboard.ranking import normalized_with_shares

    _, shares = normalized_with_shares(entries, None if pair.scope == ALL else [pair.scope])
    names = {_name((e.model_name, e.package_version)): (e.model_name, e.package_version)
             for e in entries}
    keys = (names[pair.better], names[pair.worse])
    by_cohort = {(e.variant_name, e.seed, (e.model_name, e.package_version)): e
                 for e in entries}
    variances = []
    for cohort in cohorts:
        mine = [by_cohort.get((*cohort, k)) for k in keys]
        if any(e is None for e in mine):
            continue
        draws = bootstrap(mine, folder, root, resamples, rng)
        scale = [_share_per_unit(entries, pair.scope, k, cohort, shares) for k in keys]
        differences = [math.fsum(scale[0].get(p, 0.0) * d[0].get(p, 0.0)
                                 - scale[1].get(p, 0.0) * d[1].get(p, 0.0) for p in
                                 {*scale[0], *scale[1]}) for d in draws]
        variances.append(float(np.var(differences, ddof=1)))
    return float(np.mean(variances)) if variances else 0.0


def _share_per_unit(entries: list[LeaderboardEntry], scope: str, key: Key, cohort: Cohort,
                    shares: Mapping[Key, Mapping[Cohort, float]]) -> dict[tuple[str, str], float]:
    """How much one unit of each normalized metric on ``cohort`` moves the model's share
    of ``overall`` there, as :func:`icgbench.tasks.normalized.aggregate` weighs it: its
    direction, times the scope's cohorts, over the variants, the variant's summed span, the
    category's metrics and the categories."""
    from icgbench.leaderboard.ranking import part_bounds
    from icgbench.tasks import CATEGORIES
    from icgbench.tasks.normalized import higher_is_better, parts_of_categories

    pool = [e for e in entries if scope == ALL or e.variant_name == scope]
    cohorts = {(e.variant_name, e.seed) for e in pool}
    bounds: dict[Cohort, dict[tuple[str, str], tuple[float, float]]] = {}
    for e in pool:
        bounds.setdefault((e.variant_name, e.seed), {}).update(part_bounds(e))
    out = {}
    for parts in parts_of_categories().values():
        spans = {}
        for part in parts:
            sign = 1 if higher_is_better(part) else -1
            summed: dict[str, float] = {}
            for c, b in bounds.items():
                if part in b and sign * (b[part][1] - b[part][0]) > 0:
                    summed[c[0]] = summed.get(c[0], 0.0) + sign * (b[part][1] - b[part][0])
            if cohort[0] in summed:
                spans[part] = (sign, summed[cohort[0]], len(summed))
        for part, (sign, total, variants) in spans.items():
            out[part] = sign * len(cohorts) / (variants * total * len(spans) * len(CATEGORIES))
    return out


@dataclass(frozen=True)
class Design:
    """A board shape: seeds per variant and test subjects per cohort, and the largest
    detectable difference it would have over the analysed pairs, overall and in a variant."""

    seeds: int
    test_size: int
    overall: float
    variant: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def project(pair: PairPower, seeds: int, test_size: int, release_test_size: int,
            variants: int) -> float:
    """A pair's detectable difference on ``seeds`` cohorts per variant of ``test_size``
    test subjects (its scope's variants: all of them, or one)."""
    if pair.within is None or pair.between is None:
        raise ValueError("project needs the pair's within and between variances")
    variance = pair.between + pair.within * release_test_size / test_size
    n = seeds * (variants if pair.scope == ALL else 1)
    df = n - (variants if pair.scope == ALL else 1)
    return detectable(variance, n, df)


def designs(analysed: Sequence[PairPower], release_test_size: int, variants: int,
            seeds: Sequence[int], test_sizes: Sequence[int]) -> list[Design]:
    """The largest projected detectable difference overall and in a variant, per design."""
    out = []
    with_parts = [p for p in analysed if p.within is not None]
    for k in seeds:
        for m in test_sizes:
            overall = [project(p, k, m, release_test_size, variants) for p in with_parts
                       if p.scope == ALL]
            single = [project(p, k, m, release_test_size, variants) for p in with_parts
                      if p.scope != ALL]
            out.append(Design(k, m, max(overall, default=math.nan),
                              max(single, default=math.nan)))
    return out


def analyse(entries: list[LeaderboardEntry], folder: Path, root: Path | None = None,
            resamples: int = 0, sample: int = 2) -> list[PairPower]:
    """Every adjacent pair of every scope (:func:`pairs`); with ``resamples`` > 0, each
    pair's within-cohort variance from ``resamples`` bootstrap draws on the first
    ``sample`` seeds of each variant in its scope, and the between-cohort variance."""
    from dataclasses import replace

    from icgbench.io.progress import track

    out = pairs(entries)
    if resamples <= 0:
        return out
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(STREAM)))
    seeds: dict[str, list[int]] = {}
    for e in entries:
        mine = seeds.setdefault(e.variant_name, [])
        if e.seed not in mine:
            mine.append(e.seed)
    done = []
    for p in track(out, len(out), "bootstrapping each pair's within-cohort spread"):
        cohorts = [(v, s) for v, mine in seeds.items() if p.scope in (ALL, v)
                   for s in sorted(mine)[:sample]]
        within = within_variance(entries, folder, p, cohorts, root, resamples, rng)
        done.append(replace(p, within=within, between=max(0.0, p.sd**2 - within)))
    return done


def test_size(entries: list[LeaderboardEntry], root: Path | None = None) -> int:
    """The test split's size of the board's first cohort (every cohort of a tier has the
    same)."""
    from icgbench.api.tables import tier_descriptor

    e = entries[0]
    cohort = next(c for c in tier_descriptor(e.tier, root).cohorts()
                  if (c["variant"], c["seed"]) == (e.variant_name, e.seed))
    return int(cohort["sizes"]["test"])
