"""``leaderboard verify``: every number re-scored, every file accounted for, history kept.

For each entry, the submission stored at its canonical path is re-validated and re-graded
against the verified release, and every recorded field (tier, cohort, model, release
fingerprint, file hash, each score) must be reproduced. Around the entries: the board is
of the expected tier, at the current schema version, its CSV is exactly the rendering of
its JSON (byte for byte), no key is duplicated, no two model names (or versions) differ
only by case, Unicode compatibility or look-alike characters, no entry impersonates a
reference model (:mod:`.names`), every ``submitted_at`` lies between its release's date
and now, and the folder holds nothing else (no orphan, no symbolic link, nothing
anywhere that is not the board's: :mod:`.files`). With ``base`` (a git ref), the board at
that ref must be a prefix of this one, byte for byte, entry for entry and stored file for
stored file (see :mod:`.history`), and only the entries added since are re-graded (the
others were verified when they merged; ``full`` re-grades them too).

Each entry is re-graded on its own (in ``jobs`` worker processes): a worker is sent the
entry and the few structure K* of its own model version, never the board, so the cost
per entry does not grow with the board.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import math
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from icgbench.errors import InvalidInputError
from icgbench.io import untrusted
from icgbench.io.progress import track
from icgbench.leaderboard.board import KnownK, calibration_k, known_k
from icgbench.leaderboard.discrepancy import Discrepancy
from icgbench.leaderboard.entry import (
    SCHEMA_VERSION,
    LeaderboardEntry,
    entry_from_report,
    headline_scores,
    timestamp_problem,
)
from icgbench.leaderboard.files import board_folder, inside, strays
from icgbench.leaderboard.history import history_problems, read_base, verified_rows
from icgbench.leaderboard.names import Names
from icgbench.leaderboard.store import (
    CSV_NAME,
    JSON_NAME,
    PUBLIC_TIER,
    csv_state,
    parse_board,
    read_json_file,
)
from icgbench.release.tiers import SEALED_NAME
from icgbench.scorer import SubmissionInvalid, Validated, check_submission, grade
from icgbench.scorer.parse import DEFAULT_MAX_BYTES

TOLERANCE = 1e-12
FIELDS = ("tier", "variant_name", "variant_hash", "model_name", "package_version", "seed",
          "data_version", "release_fingerprint")


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=TOLERANCE, abs_tol=TOLERANCE)
    return a == b


def verify_entry(folder: Path, entry: LeaderboardEntry, known: KnownK,
                 now: dt.datetime | None = None) -> list[Discrepancy]:
    """Re-score one entry's stored submission and compare every recorded field.

    ``known``: the structure k of the entry's own model version's entries (see
    :func:`.board.known_k`); ``now``: the time of the check (``submitted_at`` may not be
    later).
    """
    label = entry.label
    out = []
    if entry.submission_path != entry.canonical_path:
        out.append(Discrepancy(label, "submission_path", entry.submission_path,
                               entry.canonical_path))
    if (late := timestamp_problem(entry.submitted_at, now=now)) is not None:
        out.append(Discrepancy(label, "submitted_at", entry.submitted_at, late))
    try:
        data = untrusted.read_regular(inside(folder, entry.submission_path), DEFAULT_MAX_BYTES,
                                      follow_symlinks=False)
    except (OSError, InvalidInputError, untrusted.InputProblem) as exc:
        return [*out, Discrepancy(label, "submission_path", entry.submission_path,
                                  f"unreadable: {exc}")]
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    if digest != entry.submission_sha256:
        out.append(Discrepancy(label, "submission_sha256", entry.submission_sha256, digest))
    try:
        descriptor, key = sealed_release(entry) if entry.tier == SEALED_NAME else (None, None)
    except InvalidInputError as exc:
        return [*out, Discrepancy(label, "data_version", entry.data_version, str(exc))]
    try:
        v = check_submission(data, descriptor=descriptor, key=key)
        if v.document["model"].get("oracle"):
            raise InvalidInputError("an oracle submission (it reads the truth) cannot be an "
                                    "entry")
        created = v.descriptor.document.get("created")
        if not late and (early := timestamp_problem(entry.submitted_at, created)) is not None:
            out.append(Discrepancy(label, "submitted_at", entry.submitted_at, early))
        if v.sealed:
            return [*out, *_compare(entry, header_fields(v))]  # scores need the key
        # a sealed entry's public half grades no structure (tasks.withheld): no K* there
        report = grade(v, structure_k=None if v.key is not None else calibration_k(v, known)
                       ).document
    except InvalidInputError as exc:
        detail = "; ".join(exc.errors[:3]) if isinstance(exc, SubmissionInvalid) else str(exc)
        return [*out, Discrepancy(label, "submission", "valid", detail)]
    recomputed = entry_from_report(report, entry.notes, entry.submitted_at)
    out += _compare(entry, {f: getattr(recomputed, f) for f in FIELDS})
    fresh = headline_scores(report)
    for task in sorted(set(entry.scores) | set(fresh)):
        for metric in sorted(set(entry.scores.get(task, {})) | set(fresh.get(task, {}))):
            old = entry.scores.get(task, {}).get(metric, "(absent)")
            new = fresh.get(task, {}).get(metric, "(absent)")
            if not _same(old, new):
                out.append(Discrepancy(label, f"scores.{task}.{metric}", old, new))
    return out


def _compare(entry: LeaderboardEntry, found: dict[str, Any]) -> list[Discrepancy]:
    return [Discrepancy(entry.label, f, getattr(entry, f), found[f]) for f in FIELDS
            if getattr(entry, f) != found[f]]


def header_fields(v: Validated) -> dict[str, Any]:
    """The entry fields a validated submission fixes without grading (what a sealed entry
    can be checked against where the key is absent)."""
    doc = v.document
    return {"tier": doc["tier"], "variant_name": doc["variant"],
            "variant_hash": doc["variant_hash"], "model_name": doc["model"]["name"],
            "package_version": doc["model"]["version"], "seed": doc["seed"],
            "data_version": v.descriptor.version,
            "release_fingerprint": v.descriptor.fingerprint()}


def sealed_release(entry: LeaderboardEntry) -> tuple[Any, bytes | None]:
    """The descriptor and key a sealed entry is graded with: its generation's, as the
    repository records it (:mod:`icgbench.release.generations`). A retired generation's key
    is published; the current one's is the board's secret (None where it is absent). An
    entry of a generation the repository does not record cannot be graded: an error."""
    from icgbench.release import generations, locate, sealed

    root = locate.release_root()
    g = generations.find(root, entry.data_version)
    if g is None:
        raise InvalidInputError(
            f"{entry.data_version!r} is not a sealed generation this repository records "
            f"({generations.FOLDER}/{generations.RECORD}): the entry cannot be graded")
    d = generations.descriptor_of(root, g)
    return d, generations.published_key(g) if g.retired else sealed.key_from_env()


def key_present() -> bool:
    """True where the sealed tier's key is set (the board's CI): sealed entries re-grade."""
    import os

    from icgbench.release.descriptor import SEALED_KEY_ENV

    return bool(os.environ.get(SEALED_KEY_ENV))


#: One worker task: the board folder, one entry, its model version's known k, the time.
Task = tuple[Path, LeaderboardEntry, dict[tuple[str, str, str, int], int], dt.datetime]


def _verify_one(task: Task) -> list[Discrepancy]:
    return verify_entry(*task)


def _tasks(folder: Path, entries: list[LeaderboardEntry], now: dt.datetime, start: int = 0
           ) -> list[Task]:
    """One task per entry from ``start`` on, each carrying only its own model version's
    structure k (from every entry of the board)."""
    by_model: dict[tuple[str, str], dict[tuple[str, str, str, int], int]] = {}
    for key, k in known_k(entries).items():
        by_model.setdefault(key[:2], {})[key] = k
    return [(folder, e, by_model.get((e.model_name, e.package_version), {}), now)
            for e in entries[start:]]


def board_problems(folder: Path, tier: str, raw_tier: str, entries: list[LeaderboardEntry],
                   known_csv: tuple[int, bytes] | None = None, verified: int = 0
                   ) -> list[Discrepancy]:
    """Everything about the board as a whole: tier, CSV, keys, names, stray files
    (``known_csv``: see :func:`.store.csv_state`; the first ``verified`` entries are a
    verified board's, whose keys and names were checked when it merged)."""
    out = []
    if raw_tier != tier:
        out.append(Discrepancy(JSON_NAME, "tier", f"{tier} (the board's tier)", raw_tier))
    for e in entries:
        if e.tier != raw_tier:
            out.append(Discrepancy(e.label, "tier", e.tier, f"{raw_tier} (the board's tier)"))
    state = csv_state(folder, entries, known_csv)
    if state != "same":
        hint = ("one or more rows behind (a killed writer; `icgbench leaderboard repair` "
                "renders it again)" if state == "behind" else "different (edited by hand?)")
        out.append(Discrepancy(CSV_NAME, "content", f"the rendering of {JSON_NAME}", hint))
    seen: set[tuple[str, int, str, str]] = set()
    names = Names()
    for i, e in enumerate(entries):
        if i >= verified and e.key in seen:
            out.append(Discrepancy(e.label, "key", "unique", "duplicated"))
        seen.add(e.key)
        clash = names.problem(e.model_name, e.package_version) if i >= verified else None
        if clash is not None:
            out.append(Discrepancy(e.label, "model_name", e.model_name, clash))
        names.add(e.model_name, e.package_version)
    referenced = {e.submission_path for e in entries}
    for s in strays(folder, referenced, sealed=raw_tier == SEALED_NAME):
        out.append(Discrepancy(s.path, "file", "a board file or a referenced submission",
                               s.reason))
    return out


def _chunk(count: int, jobs: int) -> int:
    """Tasks per hand-over to a worker: few hand-overs, yet every worker kept busy."""
    return max(1, min(64, count // (jobs * 8)))


def verify(folder: Path, jobs: int = 1, tier: str = PUBLIC_TIER, base: str | None = None,
           full: bool = False) -> tuple[list[LeaderboardEntry], list[Discrepancy]]:
    """Every check of the module docstring; (entries, discrepancies), empty when all hold.

    With ``base``, the entries the board at ``base`` already held (byte for byte, as the
    history check requires) were verified when they merged: only the entries added since
    are re-graded, unless ``full``. A new major release starts a new board: all re-grade.
    """
    folder = board_folder(folder)
    data = read_json_file(folder) or b""
    try:
        raw = parse_board(data, str(folder / JSON_NAME))
    except InvalidInputError as exc:
        return [], [Discrepancy(JSON_NAME, "document", "a valid board", str(exc))]
    if raw.stored_version != SCHEMA_VERSION:
        return [], [Discrepancy(JSON_NAME, "schema_version", raw.stored_version,
                                f"{SCHEMA_VERSION} (run `icgbench leaderboard migrate --dir "
                                f"{folder}`)")]
    problems: list[Discrepancy] = []
    base_board, unreadable = None, None
    if base is not None:
        try:
            base_board = read_base(folder, base)
        except InvalidInputError as exc:
            unreadable = Discrepancy(f"the board at {base}", "history", "a readable board",
                                     str(exc))
    start = 0 if full else verified_rows(base_board, data)
    for i, version in enumerate(raw.entry_versions):
        if version != SCHEMA_VERSION:
            problems.append(Discrepancy(f"entry {i}", "schema_version", version,
                                        f"{SCHEMA_VERSION}, the board's (a row is never "
                                        "stored at another version than its board)"))
    entries = []
    for i, item in enumerate(raw.entries):
        try:
            entries.append(LeaderboardEntry.verified(item) if i < start
                           else LeaderboardEntry.from_dict(item))
        except InvalidInputError as exc:
            problems.append(Discrepancy(f"entry {i}", "schema", "valid", str(exc)))
    start = min(start, len(entries))
    known = None
    if base_board is not None and base_board.csv is not None and start == len(
            base_board.board.entries):
        known = (start, base_board.csv)  # the base's CSV was checked when it merged
    problems += board_problems(folder, tier, raw.tier, entries, known, start)
    logging.getLogger(__name__).info("re-scoring %d of %d entries of %s (%d unchanged since "
                                     "%s)", len(entries) - start, len(entries), folder, start,
                                     base)
    work = _tasks(folder, entries, dt.datetime.now(dt.UTC), start)
    if jobs > 1 and len(work) > 1:
        with ProcessPoolExecutor(max_workers=min(jobs, len(work))) as pool:
            results = list(track(pool.map(_verify_one, work,
                                          chunksize=_chunk(len(work), jobs)),
                                 len(work), "re-scoring the board"))
    else:
        results = [_verify_one(w) for w in track(work, len(work), "re-scoring the board")]
    for found in results:
        problems.extend(found)
    if unreadable is not None:
        problems.append(unreadable)
    elif base is not None:
        # without the key a new sealed entry cannot be graded: admission adds them, on main
        grows = raw.tier != SEALED_NAME or key_present()
        problems += history_problems(base, base_board, folder, raw, data, new_entries=grows)
    return entries, problems
