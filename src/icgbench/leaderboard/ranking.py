"""Ranking a board's entries: like with like, and only the differences that are real.

Three kinds of table, each over a scope of cohorts (every cohort of the board, or a
variant's seeds):

- ``overall`` (:func:`rank_overall`) and a category's normalized score
  (:func:`rank_category`): the normalized mean over *every* cohort of the scope
  (:func:`icgbench.tasks.normalized.aggregate`: a cohort a model has no entry for counts as
  its floor). A model covering fewer cohorts than the scope holds is **partial**: it is
  listed apart, after every model that covers them all, whatever its mean, so a model
  graded on 60 of 360 cohorts never ranks above one graded on all 360.
- a raw metric (:func:`rank_metric`, ``leaderboard show --metric``): the mean over the
  model's cohorts; ranked only when a model is needed to win it (``Metric.ranked``), else
  listed without places (ECE and the conformity shares a constant can win; the transfer
  gaps).

Places follow the means (equal means share a place); **group letters** say which models
are really apart (:mod:`.uncertainty`: every pair tested on its own cohorts, a paired test
blocked by variant, drawn as a compact letter display: two models share a letter exactly
when they are not separable, whatever else is on the board). Reference lines (``random``;
the truth readers on the page) are shown at their mean, never placed or grouped.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from icgbench.leaderboard.entry import CEILING_SUFFIX, FLOOR_SUFFIX, LeaderboardEntry

#: A model: (name, package version).
Key = tuple[str, str]
Cohort = tuple[str, int]
Floors = frozenset[Key] | set[Key]


@dataclass(frozen=True)
class Ranked:
    """One model's row: its mean over the scope, sample std and 95% interval (of the
    cohorts' shares for a normalized mean), how many cohorts it has entries for, its place
    and group letters (None for a reference line or an unranked metric) and whether it is
    partial."""

    model: str
    package_version: str
    mean: float | None
    std: float | None
    seeds: int
    low: float | None = None
    high: float | None = None
    place: int | None = None
    group: str | None = None
    partial: bool = False
    #: For ``overall``: each category's (normalized mean, interval low, interval high).
    categories: Mapping[str, tuple[float | None, float | None, float | None]] = field(
        default_factory=dict)


def group_label(group: str | None) -> str:
    """A row's group letters ('' for none)."""
    return group or ""


def floors_of(entries: Iterable[LeaderboardEntry]) -> set[Key]:
    """The (model, version) pairs of ``entries`` drawn as reference lines, not ranked."""
    from icgbench.leaderboard.names import is_floor

    return {(e.model_name, e.package_version) for e in entries
            if is_floor(e.model_name, e.package_version, e.tier)}


def part_scores(e: LeaderboardEntry) -> dict[tuple[str, str], float | None]:
    """The entry's value of every normalized metric it records."""
    from icgbench.tasks import TASKS

    return {(t, p.metric): e.scores[t].get(p.metric) for t, task in TASKS.items()
            if t in e.scores for p in task.normalized}


def part_bounds(e: LeaderboardEntry) -> dict[tuple[str, str], tuple[float, float]]:
    """The (floor, ceiling) the entry records for each normalized metric of its cohort."""
    out = {}
    for (task, metric) in part_scores(e):
        floor = e.scores[task].get(f"{metric}{FLOOR_SUFFIX}")
        ceiling = e.scores[task].get(f"{metric}{CEILING_SUFFIX}")
        if floor is not None and ceiling is not None:
            out[(task, metric)] = (floor, ceiling)
    return out


def _capped(bounds: tuple[float, float] | None) -> tuple[float | None, float | None]:
    """An interval of a normalized mean, at most 1 (it is negative below the floor)."""
    if bounds is None:
        return None, None
    return min(1.0, bounds[0]), min(1.0, bounds[1])


def _placed(parts: list[list[Ranked]], shares: Mapping[Key, Mapping[Cohort, float]],
            floors: Floors) -> list[Ranked]:
    """The rows of ``parts`` (each ordered best first: the complete models, then the
    partial ones) with places, numbered on across the parts, and group letters over all of
    them, among the non-reference rows."""
    from dataclasses import replace

    from icgbench.leaderboard.uncertainty import letters, places

    out: list[Ranked] = []
    place_of: dict[Key, int] = {}
    for rows in parts:
        ranked = [r for r in rows if (r.model, r.package_version) not in floors]
        first = len(place_of)
        for r, p in zip(ranked, places([r.mean if r.mean is not None else float("-inf")
                                        for r in ranked]), strict=True):
            place_of[(r.model, r.package_version)] = p + first
    order = [k for k in place_of]
    values = {f"{m} {v}": dict(shares[(m, v)]) for m, v in order}
    group_of = dict(zip(order, letters(values, [f"{m} {v}" for m, v in order]), strict=True))
    for rows in parts:
        out += [replace(r, place=place_of.get((r.model, r.package_version)),
                        group=group_of.get((r.model, r.package_version))) for r in rows]
    return out


def public_half_categories(entries: list[LeaderboardEntry]) -> tuple[str, ...]:
    """The categories ``overall`` averages over for ``entries``: on the sealed board's
    public half (sealed entries none of which records a withheld task's metric) those not
    withheld (:mod:`icgbench.tasks.withheld`); else all (the final standings included)."""
    from icgbench.leaderboard.names import SEALED_TIER
    from icgbench.tasks import CATEGORIES, TASKS
    from icgbench.tasks.withheld import fully_withheld, shown_categories

    hidden = [name for name, task in TASKS.items() if fully_withheld(task)]
    if entries and all(e.tier == SEALED_TIER and not any(e.scores.get(t) for t in hidden)
                       for e in entries):
        return shown_categories(TASKS.values())
    return CATEGORIES


def _normalized_table(entries: list[LeaderboardEntry], scope: Iterable[str] | None,
                      floors: Floors, category: str | None) -> list[Ranked]:
    """``overall`` (``category`` None) or one category's normalized mean over the cohorts
    of ``scope`` (variants; None: all): complete models first, then the partial ones."""
    return normalized_with_shares(entries, scope, floors, category)[0]


def normalized_with_shares(entries: list[LeaderboardEntry], scope: Iterable[str] | None,
                           floors: Floors = frozenset(), category: str | None = None
                           ) -> tuple[list[Ranked], dict[Key, Mapping[Cohort, float]]]:
    """:func:`_normalized_table`'s rows and each model's per-cohort shares of its mean
    (the values its interval and paired tests read: :mod:`icgbench.bench.power` reads
    them too)."""
    from icgbench.leaderboard.uncertainty import interval
    from icgbench.tasks import TASKS
    from icgbench.tasks.normalized import aggregate

    wanted = None if scope is None else set(scope)
    pool = [e for e in entries if wanted is None or e.variant_name in wanted]
    cohorts = sorted({(e.variant_name, e.seed) for e in pool})
    bounds: dict[Cohort, dict[tuple[str, str], tuple[float, float]]] = {}
    by_model: dict[Key, list[LeaderboardEntry]] = {}
    for e in pool:
        bounds.setdefault((e.variant_name, e.seed), {}).update(part_bounds(e))
        by_model.setdefault((e.model_name, e.package_version), []).append(e)
    rows: dict[Key, Ranked] = {}
    shares: dict[Key, Mapping[Cohort, float]] = {}
    shown = public_half_categories(pool)
    for key, mine in by_model.items():
        attempted = {TASKS[t].category for e in mine for t in e.scores if t in TASKS}
        if category is not None and category not in attempted:
            continue
        agg = aggregate({(e.variant_name, e.seed): part_scores(e) for e in mine}, bounds,
                        cohorts, attempted, shown)
        name = "overall" if category is None else category
        mean = agg.overall if category is None else agg.categories[category]
        own = agg.contributions.get(name, dict.fromkeys(cohorts, 0.0))
        shares[key] = own
        values = list(own.values())
        covered = {(e.variant_name, e.seed) for e in mine}
        categories = {} if category is not None else {
            c: (value, *_capped(interval(list(agg.contributions[c].values()))))
            if value is not None else (None, None, None)
            for c, value in agg.categories.items()}
        rows[key] = Ranked(key[0], key[1], mean,
                           statistics.stdev(values) if len(values) > 1 else None,
                           len(covered), *_capped(interval(values)),
                           partial=len(covered) < len(cohorts), categories=categories)

    def order(keys: list[Key]) -> list[Ranked]:
        return [rows[k] for k in sorted(keys, key=lambda k: (
            -(rows[k].mean if rows[k].mean is not None else float("-inf")), k[0], k[1]))]

    complete = order([k for k, r in rows.items() if not r.partial])
    partial = order([k for k, r in rows.items() if r.partial])
    return _placed([complete, partial], shares, floors), shares


def rank_overall(entries: list[LeaderboardEntry], variants: list[str] | None = None,
                 floors: Floors = frozenset()) -> list[Ranked]:
    """``overall`` over the cohorts of ``variants`` (default: every cohort of the board):
    the board's headline (see the module). ``seeds`` counts the cohorts a model has
    entries for."""
    return _normalized_table(entries, variants, floors, None)


def rank_category(entries: list[LeaderboardEntry], variant: str, category: str,
                  floors: Floors = frozenset()) -> list[Ranked]:
    """One category's normalized mean over ``variant``'s cohorts: the task tables' ranking
    (see the module)."""
    return _normalized_table(entries, [variant], floors, category)


def rank_metric(entries: list[LeaderboardEntry], variant: str, task: str, metric: str,
                ranked: bool, higher_is_better: bool | None,
                floors: Floors = frozenset()) -> list[Ranked]:
    """A raw metric's mean over each model's cohorts of ``variant``, best first, with places
    and groups when ``ranked`` (a metric a model is needed to win), else by name."""
    from icgbench.leaderboard.uncertainty import interval

    values: dict[Key, dict[Cohort, float]] = {}
    for e in entries:
        if e.variant_name != variant:
            continue
        x = e.scores.get(task, {}).get(metric)
        if x is not None:
            values.setdefault((e.model_name, e.package_version), {})[(e.variant_name, e.seed)] = x
    sign = -1 if higher_is_better is not False else 1
    rows = []
    for key, by_cohort in values.items():
        xs = list(by_cohort.values())
        low, high = interval(xs) or (None, None)
        rows.append(Ranked(key[0], key[1], statistics.fmean(xs),
                           statistics.stdev(xs) if len(xs) > 1 else None, len(xs), low, high))
    if not ranked or higher_is_better is None:
        return sorted(rows, key=lambda r: (r.model, r.package_version))
    rows.sort(key=lambda r: (sign * r.mean, r.model, r.package_version))
    if higher_is_better is False:  # places and groups read best first, whatever the sign
        signed = {k: {c: -x for c, x in v.items()} for k, v in values.items()}
        flipped = [Ranked(r.model, r.package_version, -r.mean, r.std, r.seeds) for r in rows]
        placed = _placed([flipped], signed, floors)
        return [Ranked(r.model, r.package_version, r.mean, r.std, r.seeds, r.low, r.high,
                       p.place, p.group) for r, p in zip(rows, placed, strict=True)]
    return _placed([rows], values, floors)
