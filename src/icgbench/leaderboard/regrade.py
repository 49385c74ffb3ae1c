"""``leaderboard regrade``: a board carried to a new minor data release of its major one.

A minor data release (7.0.0 to 7.1.0) adds cohorts or tables without changing what a
model of the earlier release reads of the cohorts it already had, but it may change how
they are graded (a floor chosen over more cohorts, a model-free answer that reads every
other cohort). Its board is the earlier one regraded: every entry keeps its stored
submission, name, seed, notes and timestamp, and only the graded fields
(:data:`GRADED`) are rewritten from the current release. ``leaderboard verify --base``
then holds the earlier board's entries to exactly that (see :mod:`.history`) and re-grades
every one of them. A major release starts a new board instead (docs/leaderboard.md).

The calibration cohort's entries are regraded first (the others are graded at the K*
recorded there), and the board is written after every :data:`CHECKPOINT` entries, so a
run cut off resumes where it stopped: entries already on the current release are kept.
"""

from __future__ import annotations

import contextlib
import hashlib
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from icgbench.errors import InvalidInputError, UsageError
from icgbench.io import untrusted
from icgbench.io.progress import track
from icgbench.leaderboard.board import KnownK, calibration_k, known_k
from icgbench.leaderboard.entry import GRADED, LeaderboardEntry, entry_from_report
from icgbench.leaderboard.files import board_folder, inside
from icgbench.leaderboard.history import earlier_minor
from icgbench.leaderboard.store import (
    DEFAULT_LOCK_TIMEOUT,
    load_board,
    locked,
    require_current,
    write_board,
)
from icgbench.release.tiers import DATA_VERSION, SEALED_NAME, TIERS
from icgbench.scorer import check_submission, grade
from icgbench.scorer.parse import DEFAULT_MAX_BYTES

#: Entries regraded between two writes of the board.
CHECKPOINT = 256


def regraded(folder: Path, entry: LeaderboardEntry, known: KnownK) -> LeaderboardEntry:
    """``entry`` graded again on the current release from its stored submission: the same
    entry but for :data:`GRADED`."""
    try:
        data = untrusted.read_regular(inside(folder, entry.submission_path),
                                      DEFAULT_MAX_BYTES, follow_symlinks=False)
    except (OSError, untrusted.InputProblem) as exc:
        raise InvalidInputError(f"cannot regrade {entry.label}: its stored file "
                                f"{entry.submission_path} is unreadable ({exc})") from None
    if "sha256:" + hashlib.sha256(data).hexdigest() != entry.submission_sha256:
        raise InvalidInputError(f"cannot regrade {entry.label}: {entry.submission_path} does "
                                f"not have the recorded {entry.submission_sha256}")
    v = check_submission(data)
    report = grade(v, structure_k=calibration_k(v, known)).document
    fresh = entry_from_report(report, entry.notes, entry.submitted_at).as_dict()
    old = entry.as_dict()
    kept = {k for k in old if k not in GRADED and old[k] != fresh.get(k)}
    if kept:
        raise InvalidInputError(f"cannot regrade {entry.label}: grading it again changes "
                                f"{', '.join(sorted(kept))}, which a regrade keeps")
    return LeaderboardEntry.from_dict({**old, **{k: fresh[k] for k in GRADED}})


def _regrade_one(task: tuple[Path, LeaderboardEntry, KnownK]) -> LeaderboardEntry:
    return regraded(*task)


def regrade(folder: Path, jobs: int = 1, lock_timeout: float = DEFAULT_LOCK_TIMEOUT
            ) -> tuple[int, int]:
    """Regrade every entry of the board in ``folder`` graded on an earlier minor release;
    (entries regraded now, entries on the board)."""
    folder = board_folder(folder)
    with locked(folder, lock_timeout):
        board = load_board(folder, new_tier=None)
        require_current(folder, board)
        if board.tier == SEALED_NAME:
            raise UsageError("the sealed board is regraded by the CI that holds its key "
                             "(`leaderboard admit`), not by hand")
        entries = list(board.entries)
        stale = [i for i, e in enumerate(entries) if e.data_version != DATA_VERSION]
        for i in stale:
            if not earlier_minor(entries[i].data_version):
                raise UsageError(
                    f"{entries[i].label} was graded on data release "
                    f"{entries[i].data_version}: only an earlier release of "
                    f"{DATA_VERSION.split('.')[0]}.x is regraded; a new major release "
                    "starts a new board from a fresh sweep (docs/leaderboard.md)")
        calibration = TIERS[board.tier].calibration if board.tier in TIERS else None
        first = [i for i in stale
                 if (entries[i].variant_name, entries[i].seed) == calibration]
        rest = [i for i in stale if i not in set(first)]
        chunks = [first] + [rest[j:j + CHECKPOINT] for j in range(0, len(rest), CHECKPOINT)]
        done = 0
        pool = ProcessPoolExecutor(max_workers=jobs) if jobs > 1 else None
        with pool or contextlib.nullcontext():
            for chunk in (c for c in chunks if c):
                known = known_k(entries)
                work = [(folder, entries[i], known) for i in chunk]
                results = pool.map(_regrade_one, work) if pool else map(_regrade_one, work)
                for i, fresh in zip(chunk, track(results, len(work), "regrading the board"),
                                    strict=True):
                    entries[i] = fresh
                write_board(folder, board.tier, entries)
                done += len(chunk)
    return done, len(entries)
