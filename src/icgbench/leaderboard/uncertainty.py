"""How sure a ranking is: a 95% interval for every mean, and which models the leader's lead
over is not real.

A board mean is the average of one metric over a model's cohorts (seeds of a variant, or
every cohort for ``overall``). Cohorts are independent draws of the data-generating
process, so the spread over cohorts is the uncertainty that matters to a reader who asks
"would this hold on new data?": it holds the subject sampling of the held-out split and the
randomness of the cohort itself. The interval is Student's t over cohorts, ``mean +/-
t(0.975, n - 1) * sd / sqrt(n)``; for ``overall`` (cohorts of different variants) it is
conservative, since part of the spread is between variants. A test on fresh cohorts checks
that it covers the expected score at about the stated rate.

Ties: each model is compared with the leader on the cohorts both were graded on, by a
paired t-test of the per-cohort differences (two-sided), and the p-values of all the
comparisons with the leader are adjusted by Holm's step-down method (family-wise error
0.05). A model whose difference from the leader is not significant after adjustment is
*tied with the leader*; so is one that shares fewer than two cohorts with it (nothing can
separate them).
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


def paired_p(a: ByCohort, b: ByCohort) -> float | None:
    """Two-sided paired t-test p-value of ``a - b`` over their shared cohorts; None when
    they share fewer than two. Equal differences: 1.0 when all zero, else 0.0."""
    shared = sorted(set(a) & set(b))
    if len(shared) < 2:
        return None
    diffs = [a[c] - b[c] for c in shared]
    sd = statistics.stdev(diffs)
    mean = statistics.fmean(diffs)
    if sd == 0.0:
        return 1.0 if mean == 0.0 else 0.0
    from scipy.stats import t

    stat = mean / (sd / math.sqrt(len(diffs)))
    return float(2 * t.sf(abs(stat), len(diffs) - 1))


def holm(pvalues: Mapping[str, float], alpha: float = ALPHA) -> set[str]:
    """The hypotheses Holm's step-down method rejects at family-wise error ``alpha``."""
    ordered = sorted(pvalues.items(), key=lambda kv: (kv[1], kv[0]))
    rejected = set()
    for i, (name, p) in enumerate(ordered):
        if p > alpha / (len(ordered) - i):
            break
        rejected.add(name)
    return rejected


def tied_with_leader(values: Mapping[str, ByCohort], leader: str,
                     alpha: float = ALPHA) -> set[str]:
    """The models (keys of ``values``, the leader excluded) whose difference from
    ``leader`` is not significant: paired t-tests over shared cohorts, Holm-adjusted."""
    pvalues, untestable = {}, set()
    for name, by_cohort in values.items():
        if name == leader:
            continue
        p = paired_p(values[leader], by_cohort)
        if p is None:
            untestable.add(name)
        else:
            pvalues[name] = p
    return untestable | (set(pvalues) - holm(pvalues, alpha))


def separable_pairs(values: Mapping[str, ByCohort], order: Sequence[str],
                    alpha: float = ALPHA) -> tuple[int, int]:
    """(separable, total) adjacent pairs of ``order``: pairs whose paired t-test over shared
    cohorts is significant at ``alpha`` after Holm's adjustment over the adjacent pairs."""
    pvalues = {}
    for i, (a, b) in enumerate(itertools.pairwise(order)):
        p = paired_p(values[a], values[b])
        pvalues[str(i)] = 1.0 if p is None else p
    return len(holm(pvalues, alpha)), len(pvalues)
