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
from collections.abc import Iterable, Mapping
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
from icgbench.scorer import SubmissionInvalid, Validated, check_submission, grade
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


#: A board entry's key: (variant, seed, model, version).
Key = tuple[str, int, str, str]


def require_calibration_entry(v: Validated, keys: Iterable[Key]) -> None:
    """The sealed track's calibration rule: a structure file off the calibration cohort
    needs its model version's calibration-cohort file admitted (or queued before it), so
    that K* can be chosen there when structure is graded (at retirement:
    :mod:`icgbench.tasks.withheld`)."""
    doc = v.document
    variant, seed = v.descriptor.calibration_cohort
    if "structure_recovery" not in doc or (doc["variant"], doc["seed"]) == (variant, seed):
        return
    model, version = doc["model"]["name"], doc["model"]["version"]
    if (variant, seed, model, version) not in set(keys):
        raise InvalidInputError(
            f"structure_recovery is graded at the K* chosen on the calibration cohort "
            f"({variant}, seed {seed}): add {model} {version}'s submission for that cohort "
            "first")


def admission_check(v: Validated, entries: list[LeaderboardEntry], board_tier: str,
                    staged: Iterable[Key] = ()) -> int | None:
    """Every check an add makes of a validated file before grading it, against a board's
    ``entries`` (and, for a dry run of a queue, the files ``staged`` before it): not an
    oracle, the board's tier, no look-alike or reference name, not already on the board,
    its calibration cohort first. Returns the K* its structure block is graded at (None:
    chosen on this cohort, or not graded at admission). The one rule both ``add`` and
    ``admit --dry-run`` apply, so a green dry run means admission takes the file."""
    doc = v.document
    if doc["model"].get("oracle"):
        raise UsageError("an oracle reads the truth: it is a reference line, not an entry")
    if doc["tier"] != board_tier:
        raise InvalidInputError(
            f"this is a {board_tier}-tier board (the public board takes full-tier entries "
            f"only); the file is a {doc['tier']}-tier submission")
    keys = [e.key for e in entries] + list(staged)
    clash = Names(((k[2], k[3]) for k in keys), board_tier).problem(
        doc["model"]["name"], doc["model"]["version"])
    if clash is not None:
        raise InvalidInputError(clash)
    key = (doc["variant"], doc["seed"], doc["model"]["name"], doc["model"]["version"])
    if key in set(keys):
        raise InvalidInputError(
            f"the board already has {key[2]} {key[3]} on {key[0]} seed {key[1]}: one entry "
            "per model version and cohort (a new version is a new submission)")
    if v.sealed:
        require_calibration_entry(v, keys)
        return None
    return calibration_k(v, known_k(entries))


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


class FilesInvalid(Exception):
    """Some files of an add are not valid submissions: nothing was added."""

    def __init__(self, invalid: list[tuple[Path, SubmissionInvalid]]) -> None:
        super().__init__(f"{len(invalid)} invalid file(s)")
        self.invalid = invalid


def add(source: Path, folder: Path, notes: str = "", submitted_at: str | None = None,
        tier: str = PUBLIC_TIER, lock_timeout: float = DEFAULT_LOCK_TIMEOUT
        ) -> LeaderboardEntry:
    """Validate and grade ``source``, store it in the board, append its entry.

    ``tier`` is the tier of a board created by this call; an existing board keeps its own.
    """
    try:
        return add_all([source], folder, notes, submitted_at, tier, lock_timeout)[0]
    except FilesInvalid as exc:
        raise exc.invalid[0][1] from None


def add_all(sources: list[Path], folder: Path, notes: str = "",
            submitted_at: str | None = None, tier: str = PUBLIC_TIER,
            lock_timeout: float = DEFAULT_LOCK_TIMEOUT) -> list[LeaderboardEntry]:
    """Add every file of ``sources`` or none: each is validated, checked for admission and
    graded (calibration-cohort files first, so the others are graded at their K*) before
    anything is written; then the submissions are stored and the entries appended in one
    write. Raises :class:`FilesInvalid` naming every invalid file."""
    if (problem := text_problem(notes, "--notes")) is not None:
        raise UsageError(problem)
    staged: list[tuple[Path, bytes, Validated]] = []
    invalid: list[tuple[Path, SubmissionInvalid]] = []
    for source in calibration_first(list(sources)):
        stored = stored_bytes(read_file(Path(source)))
        try:
            staged.append((Path(source), stored, check_submission(stored, frozen_only=True)))
        except SubmissionInvalid as exc:
            invalid.append((Path(source), exc))
    if invalid:
        raise FilesInvalid(invalid)
    folder = Path(folder)
    with locked(folder, lock_timeout):
        board = load_board(folder, new_tier=tier, trust_committed=True)
        require_current(folder, board)
        entries = list(board.entries)
        when = submitted_at or now_utc()
        graded: list[tuple[LeaderboardEntry, bytes]] = []
        for source, stored, v in staged:
            try:
                k_star = admission_check(v, entries, board.tier)
            except InvalidInputError as exc:
                raise InvalidInputError(f"{source} cannot join {folder}: {exc}") from None
            problem = timestamp_problem(when, v.descriptor.document.get("created"),
                                        dt.datetime.now(dt.UTC))
            if problem is not None:
                raise UsageError(f"submitted_at: {problem}")
            entry = entry_from_report(grade(v, structure_k=k_star).document, notes, when)
            entries.append(entry)
            graded.append((entry, stored))
        csv_same = board.committed or check_csv(folder, board.entries) == "same"
        for entry, stored in graded:
            target = inside(folder, entry.submission_path)
            log.info("graded %s; storing it at %s", entry.label, target)
            write_bytes(target, stored)  # an unreferenced file here is a killed add's: replaced
        failpoints.reached("board.submission_stored")
        write_appended(folder, board, [entry for entry, _ in graded], csv_same)
    return [entry for entry, _ in graded]


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


