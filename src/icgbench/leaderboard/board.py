"""Adding scored submissions to a board, and ranking its entries.

Every entry is backed by the submission file it was scored from, stored gzip-compressed at
its canonical path ``submissions/<model>/<version>/<variant>__seed<k>.json.gz``. ``add``
is all or nothing: it validates and grades the file, then, holding the board lock, checks
everything that depends on the board (tier, duplicates, look-alike names, the structure
K*), and only then stores the file and rewrites the board. A refused add writes nothing;
an add killed at any instant leaves a board that the next add (or ``leaderboard repair``)
completes without losing a row.
"""

from __future__ import annotations

import datetime as dt
import gzip
import logging
import statistics
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from icgbench.api.tables import tier_descriptor
from icgbench.errors import InvalidInputError, UsageError
from icgbench.io import failpoints
from icgbench.io.atomic import write_bytes
from icgbench.io.untrusted import GZIP_MAGIC, lone_surrogate
from icgbench.leaderboard.entry import (
    LeaderboardEntry,
    entry_from_report,
    now_utc,
    timestamp_problem,
)
from icgbench.leaderboard.files import inside
from icgbench.leaderboard.names import Names
from icgbench.leaderboard.store import (
    DEFAULT_LOCK_TIMEOUT,
    PUBLIC_TIER,
    check_csv,
    load_board,
    locked,
    require_current,
    write_appended,
)
from icgbench.scorer import SubmissionInvalid, Validated, grade, validate
from icgbench.scorer.parse import json_bytes, parse_json, read_file

log = logging.getLogger(__name__)


#: (model, version, variant, seed) -> the k a structure entry was graded at.
KnownK = Mapping[tuple[str, str, str, int], int]


def known_k(entries: list[LeaderboardEntry]) -> dict[tuple[str, str, str, int], int]:
    """The structure k recorded on each entry that has one, by (model, version, cohort):
    all that :func:`calibration_k` needs of a board."""
    out = {}
    for e in entries:
        k = e.scores.get("structure_recovery", {}).get("k")
        if k is not None:
            out[(e.model_name, e.package_version, e.variant_name, e.seed)] = int(k)
    return out


def calibration_k(v: Validated, known: KnownK) -> int | None:
    """The K* a structure submission is graded at, by the calibration protocol.

    None on the calibration cohort itself (K* is chosen there, in-sample, and a declared
    ``k`` is refused); otherwise the k recorded on the same model version's
    calibration-cohort entry (``known``: see :func:`known_k`), which must exist, and a
    declared ``k`` must equal it.
    """
    doc = v.document
    block = doc.get("structure_recovery")
    if block is None:
        return None
    variant, seed = v.descriptor.calibration_cohort
    declared = block.get("k")
    if (doc["variant"], doc["seed"]) == (variant, seed):
        if declared is not None:
            raise InvalidInputError(
                f"/structure_recovery/k is {declared}, but on the calibration cohort "
                f"({variant}, seed {seed}) K* is chosen by the protocol (the K of highest "
                "directed F1); leave k out of this file")
        return None
    k_star = known.get((doc["model"]["name"], doc["model"]["version"], variant, seed))
    if k_star is None:
        raise InvalidInputError(
            f"structure_recovery is graded at the K* chosen on the calibration cohort "
            f"({variant}, seed {seed}): add {doc['model']['name']} {doc['model']['version']}'s "
            "submission for that cohort first")
    if declared is not None and declared != k_star:
        raise InvalidInputError(f"/structure_recovery/k is {declared}, but this model's K* "
                                f"from its calibration-cohort entry is {k_star}")
    return k_star


def text_problem(text: str, what: str) -> str | None:
    """Why free text cannot be stored (not valid Unicode, too long), or None."""
    if (at := lone_surrogate(text)) is not None:
        return f"{what} is not valid Unicode (a lone surrogate at character {at})"
    if len(text) > 2000:
        return f"{what} is {len(text)} characters long; at most 2000"
    return None


def stored_bytes(file_bytes: bytes) -> bytes:
    """What a board stores for a submission file: the file itself if gzip, else gzipped."""
    if file_bytes[:2] == GZIP_MAGIC:
        return file_bytes
    return gzip.compress(json_bytes(file_bytes), mtime=0)


def add(source: Path, folder: Path, notes: str = "", submitted_at: str | None = None,
        tier: str = PUBLIC_TIER, lock_timeout: float = DEFAULT_LOCK_TIMEOUT
        ) -> LeaderboardEntry:
    """Validate and grade ``source``, store it in the board, append its entry.

    ``tier`` is the tier of a board created by this call; an existing board keeps its own.
    """
    if (problem := text_problem(notes, "--notes")) is not None:
        raise UsageError(problem)
    stored = stored_bytes(read_file(Path(source)))
    v = validate(stored, frozen_only=True)
    doc = v.document
    if doc["model"].get("oracle"):
        raise UsageError("an oracle reads the truth: it is a reference line, not an entry")
    folder = Path(folder)
    with locked(folder, lock_timeout):
        board = load_board(folder, new_tier=tier, trust_committed=True)
        require_current(folder, board)
        if doc["tier"] != board.tier:
            raise InvalidInputError(
                f"{folder} is a {board.tier}-tier board (the public board takes full-tier "
                f"entries only); {source} is a {doc['tier']}-tier submission")
        csv_same = board.committed or check_csv(folder, board.entries) == "same"
        names = Names((e.model_name, e.package_version) for e in board.entries)
        clash = names.problem(doc["model"]["name"], doc["model"]["version"])
        if clash is not None:
            raise InvalidInputError(clash)
        when = submitted_at or now_utc()
        problem = timestamp_problem(when, v.descriptor.document.get("created"),
                                    dt.datetime.now(dt.UTC))
        if problem is not None:
            raise UsageError(f"submitted_at: {problem}")
        report = grade(v, structure_k=calibration_k(v, known_k(board.entries))).document
        entry = entry_from_report(report, notes, when)
        if any(e.key == entry.key for e in board.entries):
            raise InvalidInputError(f"the board already has {entry.label}")
        target = inside(folder, entry.submission_path)
        log.info("graded %s; storing it at %s", entry.label, target)
        write_bytes(target, stored)  # an unreferenced file here is a killed add's: replaced
        failpoints.reached("board.submission_stored")
        write_appended(folder, board, entry, csv_same)
    return entry


def calibration_first(files: list[Path]) -> list[Path]:
    """Submission files ordered so calibration-cohort ones are added before the rest.

    Only the header is read here; each file is validated when it is added.
    """
    def on_calibration(path: Path) -> bool:
        try:
            doc = parse_json(json_bytes(read_file(path)))
            cohort = tier_descriptor(doc["tier"]).calibration_cohort
            return (doc["variant"], doc["seed"]) == cohort
        except (SubmissionInvalid, UsageError, KeyError, TypeError):
            return False

    flags = {p: on_calibration(p) for p in files}
    return sorted(files, key=lambda p: not flags[p])


@dataclass(frozen=True)
class Ranked:
    """One model's mean and sample std over seeds (cohorts) of one metric, its 95% interval
    and whether the leader's lead over it is not significant (see :mod:`.uncertainty`)."""

    model: str
    package_version: str
    mean: float | None
    std: float | None
    seeds: int
    low: float | None = None
    high: float | None = None
    tied: bool = False  # tied with the leader (the leader itself: False)
    #: For ``overall``: each category's (normalized mean, interval low, interval high).
    categories: Mapping[str, tuple[float | None, float | None, float | None]] = field(
        default_factory=dict)


def over_seeds(values: list[float]) -> tuple[float | None, float | None]:
    """Mean and sample standard deviation (n - 1) of one metric over a model's seeds.

    The std is None for fewer than two seeds: one seed says nothing about the spread.
    """
    mean = statistics.fmean(values) if values else None
    std = statistics.stdev(values) if len(values) > 1 else None
    return mean, std


Groups = dict[tuple[str, str], dict[tuple[str, int], float]]


def _groups(entries: list[LeaderboardEntry], keep, value) -> Groups:
    groups: Groups = {}
    for e in entries:
        if not keep(e):
            continue
        x = value(e)
        groups.setdefault((e.model_name, e.package_version), {})
        if x is not None:
            groups[(e.model_name, e.package_version)][(e.variant_name, e.seed)] = x
    return groups


Floors = frozenset[tuple[str, str]] | set[tuple[str, str]]


def _ranked(groups: Groups, higher_is_better: bool | None, floors: Floors = frozenset()
            ) -> list[Ranked]:
    """Rows best first, with intervals and (for a score) ties with the leader; the (model,
    version) pairs in ``floors`` (reference lines) are neither the leader nor tested."""
    from icgbench.leaderboard.uncertainty import interval, tied_with_leader

    sign = -1 if higher_is_better is not False else 1
    order = sorted(groups, key=lambda k: (not groups[k], sign * statistics.fmean(
        groups[k].values()) if groups[k] else 0.0, k[0]))
    tied: set[str] = set()
    ranked = [k for k in order if groups[k] and k not in floors]
    if higher_is_better is not None and ranked:
        named = {f"{m} {v}": groups[(m, v)] for m, v in ranked}
        tied = tied_with_leader(named, f"{ranked[0][0]} {ranked[0][1]}")
    rows = []
    for m, v in order:
        xs = list(groups[(m, v)].values())
        low, high = interval(xs) or (None, None)
        rows.append(Ranked(m, v, *over_seeds(xs), len(xs), low, high, f"{m} {v}" in tied))
    return rows


def floors_of(entries: list[LeaderboardEntry]) -> set[tuple[str, str]]:
    """The (model, version) pairs of ``entries`` drawn as reference lines, not ranked."""
    from icgbench.leaderboard.names import is_floor

    return {(e.model_name, e.package_version) for e in entries
            if is_floor(e.model_name, e.package_version)}


def part_scores(e: LeaderboardEntry) -> dict[tuple[str, str], float | None]:
    """The entry's value of every normalized metric it records."""
    from icgbench.tasks import TASKS

    return {(t, p.metric): e.scores[t].get(p.metric) for t, task in TASKS.items()
            if t in e.scores for p in task.normalized}


def part_bounds(e: LeaderboardEntry) -> dict[tuple[str, str], tuple[float, float]]:
    """The (floor, ceiling) the entry records for each normalized metric of its cohort."""
    from icgbench.leaderboard.entry import CEILING_SUFFIX, FLOOR_SUFFIX

    out = {}
    for (task, metric) in part_scores(e):
        floor = e.scores[task].get(f"{metric}{FLOOR_SUFFIX}")
        ceiling = e.scores[task].get(f"{metric}{CEILING_SUFFIX}")
        if floor is not None and ceiling is not None:
            out[(task, metric)] = (floor, ceiling)
    return out


def rank_overall(entries: list[LeaderboardEntry], variants: list[str] | None = None,
                 floors: Floors = frozenset()) -> list[Ranked]:
    """Models ordered best first on ``overall`` over the cohorts of ``variants`` (default
    all) on the board: the board's overall ranking.

    Each category's score is the normalized mean over those cohorts (every cohort of the
    board counts for every model: one it has no entry for counts as its floor;
    :func:`icgbench.tasks.normalized.aggregate`); the interval and the ties are over the
    cohorts' contributions to the unclipped mean. ``seeds`` counts the cohorts the model
    has entries for."""
    from icgbench.leaderboard.uncertainty import interval, tied_with_leader
    from icgbench.tasks import TASKS
    from icgbench.tasks.normalized import aggregate

    pool = [e for e in entries if variants is None or e.variant_name in variants]
    cohorts = sorted({(e.variant_name, e.seed) for e in pool})
    bounds: dict[tuple[str, int], dict[tuple[str, str], tuple[float, float]]] = {}
    by_model: dict[tuple[str, str], list[LeaderboardEntry]] = {}
    for e in pool:
        bounds.setdefault((e.variant_name, e.seed), {}).update(part_bounds(e))
        by_model.setdefault((e.model_name, e.package_version), []).append(e)
    results = {}
    for key, mine in by_model.items():
        attempted = {TASKS[t].category for e in mine for t in e.scores if t in TASKS}
        results[key] = aggregate({(e.variant_name, e.seed): part_scores(e) for e in mine},
                                 bounds, cohorts, attempted)
    order = sorted(results, key=lambda k: (-results[k].overall, k[0], k[1]))
    ranked = [k for k in order if k not in floors]
    tied: set[str] = set()
    if ranked:
        named = {f"{m} {v}": results[(m, v)].contributions["overall"] for m, v in ranked}
        tied = tied_with_leader(named, f"{ranked[0][0]} {ranked[0][1]}")
    rows = []
    for m, v in order:
        agg = results[(m, v)]
        shares = list(agg.contributions["overall"].values())
        low, high = _clipped(interval(shares))
        categories = {c: (value, *_clipped(interval(list(agg.contributions[c].values()))))
                      if value is not None else (None, None, None)
                      for c, value in agg.categories.items()}
        rows.append(Ranked(m, v, agg.overall, statistics.stdev(shares) if len(shares) > 1
                           else None, len(by_model[(m, v)]), low, high, f"{m} {v}" in tied,
                           categories))
    return rows


def _clipped(bounds: tuple[float, float] | None) -> tuple[float | None, float | None]:
    if bounds is None:
        return None, None
    return min(1.0, max(0.0, bounds[0])), min(1.0, max(0.0, bounds[1]))


def rank(entries: list[LeaderboardEntry], variant: str, task: str, metric: str,
         higher_is_better: bool | None, floors: Floors = frozenset()) -> list[Ranked]:
    """Models ordered best first on ``task.metric`` over their seeds of ``variant``."""
    groups = _groups(entries, lambda e: e.variant_name == variant,
                     lambda e: e.scores.get(task, {}).get(metric))
    return _ranked(groups, higher_is_better, floors)
