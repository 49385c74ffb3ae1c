"""The sealed track's queue: submissions waiting for the board's CI to grade them.

Nobody but the CI can grade a sealed-tier submission (the truth is regenerated from its
key), so a contributor cannot send an entry with its scores. A leaderboard pull request
puts the submission file in the sealed board's ``queue/`` folder instead. The pull
request's check validates every queued file completely (``admit(..., dry_run=True)``), and
grades it too where the key is present. After the merge, the CI runs ``admit`` with the
key: each queued submission is graded, added to the board like any entry, and removed from
the queue. Calibration-cohort submissions go first, so a model's K* is known before its
other cohorts are graded.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from icgbench.errors import InvalidInputError, UsageError, UserError
from icgbench.leaderboard.board import add, calibration_first, calibration_k, known_k
from icgbench.leaderboard.entry import LeaderboardEntry, entry_from_report
from icgbench.leaderboard.files import QUEUE, queue_problem
from icgbench.leaderboard.store import load_board

log = logging.getLogger(__name__)

SEALED_TIER = "sealed"


@dataclass(frozen=True)
class Admission:
    """What became of one queued file: its entry (or its graded scores), or the problem."""

    file: str
    entry: LeaderboardEntry | None = None
    summary: dict[str, float | None] | None = None
    problem: str | None = None


def queued(folder: Path) -> list[Path]:
    """The queued submission files of the sealed board in ``folder`` (regular files only)."""
    queue = Path(folder) / QUEUE
    if queue.is_symlink():
        raise UsageError(f"{queue} is a symbolic link; the queue must be a folder")
    if not queue.is_dir():
        return []
    files = []
    for path in sorted(queue.iterdir()):
        if (problem := queue_problem(path)) is not None:
            raise InvalidInputError(f"{path}: {problem}")
        files.append(path)
    return calibration_first(files)


def admit(folder: Path, dry_run: bool = False) -> list[Admission]:
    """Grade every queued submission; unless ``dry_run``, add each to the board and take it
    out of the queue. A file that fails is left in the queue with its problem recorded."""
    from icgbench.scorer import grade, validate
    from icgbench.scorer.parse import read_file

    folder = Path(folder)
    out = []
    staged: list[LeaderboardEntry] = []  # a dry run's graded entries, for later cohorts' K*
    for path in queued(folder):
        try:
            if dry_run:
                v = validate(read_file(path), frozen_only=True)
                if v.document["tier"] != SEALED_TIER:
                    raise InvalidInputError(f"the queue takes sealed-tier submissions; this "
                                            f"one is for the {v.document['tier']} tier")
                if not v.sealed or _key_absent():
                    out.append(Admission(path.name))
                    continue
                entries = load_board(folder, new_tier=SEALED_TIER).entries if (
                    folder / "leaderboard.json").exists() else []
                report = grade(v, structure_k=calibration_k(v, known_k([*entries, *staged])))
                staged.append(entry_from_report(report.document))
                out.append(Admission(path.name, summary=report.summary))
                continue
            entry = add(path, folder, tier=SEALED_TIER)
            path.unlink()
            log.info("admitted %s as %s", path.name, entry.label)
            out.append(Admission(path.name, entry=entry))
        except UserError as exc:
            out.append(Admission(path.name, problem=str(exc)))
    return out


def _key_absent() -> bool:
    from icgbench.leaderboard.verify import key_present

    return not key_present()
