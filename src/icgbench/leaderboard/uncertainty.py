"""How sure a ranking is: a 95% interval for every mean, and which neighbours in a ranking
are really apart.

A board mean is the average of one metric over a model's cohorts (seeds of a variant, or
every cohort for ``overall``). Cohorts are independent draws of the data-generating
process, so the spread over cohorts is the uncertainty that matters to a reader who asks
"would this hold on new data?": it holds the subject sampling of the held-out split and the
randomness of the cohort itself. The interval is Student's t over cohorts, ``mean +/-
t(0.975, n - 1) * sd / sqrt(n)``; for ``overall`` (cohorts of different variants) it is
conservative, since part of the spread is between variants. A test on fresh cohorts checks
that it covers the expected score at about the stated rate.

Which differences are real: every pair of *adjacent* models in a ranking is compared on
the cohorts both were graded on, by a paired t-test of the per-cohort differences blocked
by variant (the differences' variant means are removed from their spread, and the test has
``n - V`` degrees of freedom for ``n`` cohorts of ``V`` variants; one variant: the plain
paired t-test), two-sided. The p-values of all the adjacent pairs of a ranking are adjusted
together by Holm's step-down method (family-wise error 0.05). A pair whose difference is
not significant after adjustment is not separable, and a run of models joined by such
pairs is a **group**: a reader may not order models within a group. A pair whose
differences are all exactly zero (two models with identical scores on every shared cohort,
e.g. the seed's MB-CNets' shared latent scores) is a tie by definition, not a test: it is
left out of Holm's family and joins its group; so is a pair sharing fewer than two cohorts
(nothing can separate it). Equal means share a place.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Mapping, Sequence

LEVEL = 0.95
ALPHA = 0.05

#: A model's values by cohort: (variant, seed) -> value.
ByCohort = Mapping[tuple[str, int], float]


def t_quantile(p: float, df: int) -> float:
    """Student's t quantile (scipy's, imported when first needed)."""
    from scipy.stats import t

    return float(t.ppf(p, df))


def interval(values: Sequence[float], level: float = LEVEL) -> tuple[float, float] | None:
    """The ``level`` t-interval of the mean of ``values``; None for fewer than two."""
    n = len(values)
    if n < 2:
        return None
    mean, sd = statistics.fmean(values), statistics.stdev(values)
    half = t_quantile(0.5 + level / 2, n - 1) * sd / math.sqrt(n)
    return mean - half, mean + half


def _shared_differences(a: ByCohort, b: ByCohort) -> list[tuple[tuple[str, int], float]]:
    return [(c, a[c] - b[c]) for c in sorted(set(a) & set(b))]


def paired_p(a: ByCohort, b: ByCohort) -> float | None:
    """Two-sided p-value of ``a - b`` over their shared cohorts, blocked by variant (see the
    module; one variant: the plain paired t-test); None when they share fewer than two
    cohorts or every difference is exactly zero (a tie, not a test). A constant nonzero
    difference gives 0.0."""
    shared = _shared_differences(a, b)
    if len(shared) < 2:
        return None
    diffs = [d for _, d in shared]
    if all(d == 0.0 for d in diffs):
        return None
    by_variant: dict[str, list[float]] = {}
    for (variant, _), d in shared:
        by_variant.setdefault(variant, []).append(d)
    df = len(diffs) - len(by_variant)
    if df < 1:  # one cohort per variant: no spread within a variant to test against
        df, residuals = len(diffs) - 1, [d - statistics.fmean(diffs) for d in diffs]
    else:
        residuals = [d - statistics.fmean(v) for v in by_variant.values() for d in v]
    spread = math.fsum(r * r for r in residuals) / df
    mean = statistics.fmean(diffs)
    if spread == 0.0:
        return 1.0 if mean == 0.0 else 0.0
    from scipy.stats import t

    stat = mean / math.sqrt(spread / len(diffs))
    return float(2 * t.sf(abs(stat), df))


def holm(pvalues: Mapping[str, float], alpha: float = ALPHA) -> set[str]:
    """The hypotheses Holm's step-down method rejects at family-wise error ``alpha``."""
    ordered = sorted(pvalues.items(), key=lambda kv: (kv[1], kv[0]))
    rejected = set()
    for i, (name, p) in enumerate(ordered):
        if p > alpha / (len(ordered) - i):
            break
        rejected.add(name)
    return rejected


def adjacent_separable(values: Mapping[str, ByCohort], order: Sequence[str],
                       alpha: float = ALPHA) -> list[bool]:
    """For each adjacent pair of ``order`` (best first), whether it is separable: its
    paired test (:func:`paired_p`) is significant after Holm's adjustment over the ranking's
    adjacent pairs that are tests (ties and pairs without two shared cohorts are not)."""
    pvalues = {}
    for i, (a, b) in enumerate(itertools.pairwise(order)):
        p = paired_p(values[a], values[b])
        if p is not None:
            pvalues[str(i)] = p
    rejected = holm(pvalues, alpha)
    return [str(i) in rejected for i in range(max(len(order) - 1, 0))]


def groups(values: Mapping[str, ByCohort], order: Sequence[str], alpha: float = ALPHA
           ) -> list[int]:
    """The group (1, 2, ...) of each model of ``order``: a new group starts after every
    separable adjacent pair."""
    separable = adjacent_separable(values, order, alpha)
    out, group = [], 1
    for i in range(len(order)):
        if i and separable[i - 1]:
            group += 1
        out.append(group)
    return out


def separable_pairs(values: Mapping[str, ByCohort], order: Sequence[str],
                    alpha: float = ALPHA) -> tuple[int, int]:
    """(separable, total) adjacent pairs of ``order`` (see :func:`adjacent_separable`)."""
    flags = adjacent_separable(values, order, alpha)
    return sum(flags), len(flags)


def places(means: Sequence[float], decimals: int = 9) -> list[int]:
    """1-based places of means already ordered best first: equal means (to ``decimals``
    decimals: sums in another order are not a lead) share the better place."""
    out: list[int] = []
    for i, mean in enumerate(means):
        if i and round(mean, decimals) == round(means[i - 1], decimals):
            out.append(out[-1])
        else:
            out.append(i + 1)
    return out
