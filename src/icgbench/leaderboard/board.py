"""The public board: adding scored submissions, verifying every recorded number, ranking.

Every entry is backed by the submission file it was scored from, stored gzip-compressed
under ``submissions/<model>/<variant>__seed<k>.json.gz``; ``verify`` re-scores each one
against the verified release and reports every field that differs, so no number on the
board is typed by hand.
"""

from __future__ import annotations

import gzip
import hashlib
import math
import statistics
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from icgbench.atomic import write_bytes
from icgbench.data import tier_descriptor
from icgbench.errors import InvalidInputError, UsageError
from icgbench.leaderboard.entry import LeaderboardEntry, entry_from_report, headline_scores
from icgbench.leaderboard.store import CSV_NAME, append_entry, csv_text, read_entries
from icgbench.progress import track
from icgbench.scorer import SubmissionInvalid, grade, validate
from icgbench.scorer.parse import parse_json, read_bytes

SUBMISSIONS = "submissions"
TOLERANCE = 1e-12


def submission_path(model: str, variant: str, seed: int) -> str:
    """Where a model's submission for a cohort lives, relative to the board folder."""
    return f"{SUBMISSIONS}/{model}/{variant}__seed{seed}.json.gz"


def safe_target(folder: Path, relative: str) -> Path:
    """``folder / relative``, refusing any path that would leave ``folder``."""
    target = (folder / relative).resolve()
    if not target.is_relative_to(folder.resolve()):
        raise UsageError(f"submission path {relative!r} would escape the board folder")
    return target


def calibrated_k(doc: dict[str, Any], descriptor: Any, entries: list[LeaderboardEntry]
                 ) -> int | None:
    """The K* a structure submission is graded at, by the calibration protocol.

    None on the calibration cohort itself (K* is chosen there, in-sample); otherwise the k
    recorded on the same model version's calibration-cohort entry, which must exist.
    """
    if "structure_recovery" not in doc:
        return None
    variant, seed = descriptor.calibration_cohort
    if (doc["variant"], doc["seed"]) == (variant, seed):
        return None
    for e in entries:
        if (e.model_name, e.package_version, e.variant_name, e.seed) == (
                doc["model"]["name"], doc["model"]["version"], variant, seed):
            k = e.scores.get("structure_recovery", {}).get("k")
            if k is not None:
                return int(k)
    raise InvalidInputError(
        f"structure_recovery is graded at the K* chosen on the calibration cohort ({variant}, "
        f"seed {seed}): add {doc['model']['name']} {doc['model']['version']}'s submission "
        "for that cohort first")


def add(source: Path, folder: Path, notes: str = "", submitted_at: str | None = None
        ) -> LeaderboardEntry:
    """Validate and score ``source``, store it in the board, append its entry."""
    if submitted_at is None:
        from icgbench.leaderboard.entry import now_utc

        submitted_at = now_utc()
    file_bytes, json_bytes = read_bytes(Path(source))
    stored = file_bytes if file_bytes[:2] == b"\x1f\x8b" else gzip.compress(json_bytes,
                                                                            mtime=0)
    v = validate(stored)
    if v.document["model"].get("oracle"):
        raise UsageError("an oracle reads the truth: it is a reference line, not an entry")
    doc = v.document
    relative = submission_path(doc["model"]["name"], doc["variant"], doc["seed"])
    target = safe_target(folder, relative)
    k_star = calibrated_k(doc, v.descriptor, read_entries(folder))
    declared = doc.get("structure_recovery", {}).get("k")
    if k_star is not None and declared is not None and declared != k_star:
        raise InvalidInputError(f"$.structure_recovery.k is {declared}, but this model's K* "
                                f"from its calibration-cohort entry is {k_star}")
    report = grade(v, structure_k=k_star).document
    entry = entry_from_report(report, relative, notes, submitted_at)
    if any(e.key == entry.key for e in read_entries(folder)):
        raise InvalidInputError(f"the board already has {entry.label}")
    if target.exists() and target.read_bytes() != stored:
        raise InvalidInputError(f"{relative} already exists with other content")
    write_bytes(target, stored)
    append_entry(entry, folder)
    return entry


@dataclass(frozen=True)
class Discrepancy:
    """One recorded value that the re-scoring does not reproduce."""

    entry: str
    field: str
    recorded: Any
    recomputed: Any

    def __str__(self) -> str:
        return (f"{self.entry}: {self.field} recorded {self.recorded!r}, "
                f"recomputed {self.recomputed!r}")


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=TOLERANCE, abs_tol=TOLERANCE)
    return a == b


def verify_entry(folder: Path, entry: LeaderboardEntry,
                 entries: list[LeaderboardEntry] | None = None) -> list[Discrepancy]:
    """Re-score one entry's stored submission and compare every recorded field.

    A structure entry is re-graded at the K* its model's calibration-cohort entry records,
    and that entry's own K* is recomputed when it is verified itself.
    """
    label = entry.label
    try:
        path = safe_target(folder, entry.submission_path)
        data = path.read_bytes()
    except (OSError, UsageError) as exc:
        return [Discrepancy(label, "submission_path", entry.submission_path,
                            f"unreadable: {exc}")]
    out = []
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    if digest != entry.submission_sha256:
        out.append(Discrepancy(label, "submission_sha256", entry.submission_sha256, digest))
    try:
        v = validate(data)
        k_star = calibrated_k(v.document, v.descriptor,
                              read_entries(folder) if entries is None else entries)
        report = grade(v, structure_k=k_star).document
    except InvalidInputError as exc:
        detail = "; ".join(exc.errors[:3]) if isinstance(exc, SubmissionInvalid) else str(exc)
        return [*out, Discrepancy(label, "submission", "valid", detail)]
    recomputed = entry_from_report(report, entry.submission_path, entry.notes,
                                   entry.submitted_at)
    for field in ("variant_name", "variant_hash", "model_name", "package_version", "seed",
                  "data_version", "release_fingerprint"):
        if getattr(entry, field) != getattr(recomputed, field):
            out.append(Discrepancy(label, field, getattr(entry, field),
                                   getattr(recomputed, field)))
    fresh = headline_scores(report)
    for task in sorted(set(entry.scores) | set(fresh)):
        for metric in sorted(set(entry.scores.get(task, {})) | set(fresh.get(task, {}))):
            old = entry.scores.get(task, {}).get(metric, "(absent)")
            new = fresh.get(task, {}).get(metric, "(absent)")
            if not _same(old, new):
                out.append(Discrepancy(label, f"scores.{task}.{metric}", old, new))
    return out


def _verify_one(args: tuple[Path, LeaderboardEntry, list[LeaderboardEntry]]
                ) -> list[Discrepancy]:
    return verify_entry(*args)


def verify(folder: Path, jobs: int = 1) -> tuple[list[LeaderboardEntry], list[Discrepancy]]:
    """Every entry re-scored (on ``jobs`` processes); the CSV must render the JSON exactly."""
    entries = read_entries(folder)
    problems = []
    csv_path = Path(folder) / CSV_NAME
    if not csv_path.exists() or csv_path.read_text(encoding="utf-8") != csv_text(entries):
        problems.append(Discrepancy(CSV_NAME, "content", "rows of leaderboard.json",
                                    "missing or different"))
    keys = [e.key for e in entries]
    for e in entries:
        if keys.count(e.key) > 1:
            problems.append(Discrepancy(e.label, "key", "unique", "duplicated"))
    work = [(Path(folder), e, entries) for e in entries]
    if jobs > 1 and len(work) > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            results = list(track(pool.map(_verify_one, work, chunksize=4), len(work),
                                 "re-scoring the board"))
    else:
        results = [_verify_one(w) for w in track(work, len(work), "re-scoring the board")]
    for found in results:
        problems.extend(found)
    return entries, problems


def calibration_first(files: list[Path]) -> list[Path]:
    """Submission files ordered so calibration-cohort ones are added before the rest.

    Only the header is read here; each file is validated when it is added.
    """
    def on_calibration(path: Path) -> bool:
        try:
            doc = parse_json(read_bytes(path)[1])
            cohort = tier_descriptor(doc["tier"]).calibration_cohort
            return (doc["variant"], doc["seed"]) == cohort
        except (SubmissionInvalid, UsageError, KeyError, TypeError):
            return False

    flags = {p: on_calibration(p) for p in files}
    return sorted(files, key=lambda p: not flags[p])


@dataclass(frozen=True)
class Ranked:
    """One model's mean and sample std over seeds of one metric on one variant."""

    model: str
    package_version: str
    mean: float | None
    std: float | None
    seeds: int


def rank(entries: list[LeaderboardEntry], variant: str, task: str, metric: str,
         higher_is_better: bool | None) -> list[Ranked]:
    """Models ordered best first on ``task.metric`` over their seeds of ``variant``."""
    groups: dict[tuple[str, str], list[float]] = {}
    for e in entries:
        if e.variant_name != variant:
            continue
        value = e.scores.get(task, {}).get(metric)
        groups.setdefault((e.model_name, e.package_version), [])
        if value is not None:
            groups[(e.model_name, e.package_version)].append(value)
    rows = [Ranked(m, v, statistics.fmean(xs) if xs else None,
                   statistics.stdev(xs) if len(xs) > 1 else None, len(xs))
            for (m, v), xs in groups.items()]
    sign = -1 if higher_is_better is not False else 1
    return sorted(rows, key=lambda r: (r.mean is None, sign * (r.mean or 0.0), r.model))
