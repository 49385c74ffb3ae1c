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

Which differences are real: every pair of models in a ranking is compared on its own
terms, on the cohorts both were graded on, by a paired t-test of the per-cohort differences
blocked by variant (the differences' variant means are removed from their spread, and the
test has ``n - V`` degrees of freedom for ``n`` cohorts of ``V`` variants; one variant: the
plain paired t-test), two-sided, at level 0.05 for that pair alone. No adjustment depends
on which other models are on the board, so a pair's verdict is the same whatever joins it
(it is a per-comparison error rate: among many pairs, some 5% of the truly equal ones read
as apart). A pair whose differences are all exactly zero (identical scores on every shared
cohort, e.g. the seed's MB-CNets' shared latent scores) is a tie by definition, not a
test; so is a pair sharing fewer than two cohorts (nothing can separate it).

The verdicts are drawn as a **compact letter display** (Piepho 2004, insert and absorb):
each model gets one or more letters, and two models share a letter exactly when they are
not separable. Letters are assigned best first (the best model's first letter is A), so
the letters a model carries can change when another model joins, but whether two models
share one cannot. Equal means share a place.
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


def separable(a: ByCohort, b: ByCohort, alpha: float = ALPHA) -> bool:
    """Whether two models are apart: their paired test (:func:`paired_p`) is significant
    at ``alpha`` (a tie or a pair sharing fewer than two cohorts is not)."""
    p = paired_p(a, b)
    return p is not None and p < alpha


def letters(values: Mapping[str, ByCohort], order: Sequence[str], alpha: float = ALPHA
            ) -> list[str]:
    """The compact letter display of ``order`` (best first): each model's letters, two
    models sharing one exactly when they are not :func:`separable` (see the module)."""
    apart = [(i, j) for i, j in itertools.combinations(range(len(order)), 2)
             if separable(values[order[i]], values[order[j]], alpha)]
    return letter_display(len(order), apart)


def letter_display(n: int, apart: Sequence[tuple[int, int]]) -> list[str]:
    """The letters of ``n`` models (best first) for the pairs ``apart`` (insert and absorb):
    two models share a letter exactly when their pair is not in ``apart``."""
    columns: list[frozenset[int]] = [frozenset(range(n))] if n else []
    for i, j in apart:  # insert: split every column holding both
        split: list[frozenset[int]] = []
        for c in columns:
            split += [c - {i}, c - {j}] if i in c and j in c else [c]
        # absorb: drop a column inside another (or a repeat of an earlier one)
        columns = [c for k, c in enumerate(split) if c and not any(
            c < o or (c == o and m < k) for m, o in enumerate(split))]
    columns.sort(key=lambda c: sorted(c))
    names = [label_of(k + 1) for k in range(len(columns))]
    return ["".join(name for name, c in zip(names, columns, strict=True) if i in c)
            for i in range(n)]


def label_of(number: int) -> str:
    """A letter's name: A, B, ..., Z, then AA, AB, ..."""
    label, n = "", number
    while n:
        n, r = divmod(n - 1, 26)
        label = chr(ord("A") + r) + label
    return label


def separable_pairs(values: Mapping[str, ByCohort], order: Sequence[str],
                    alpha: float = ALPHA) -> tuple[int, int]:
    """(separable, total) pairs of ``order``."""
    flags = [separable(values[a], values[b], alpha) for a, b in itertools.combinations(order, 2)]
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
