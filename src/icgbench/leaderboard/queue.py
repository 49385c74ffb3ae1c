"""The sealed track's queue: submissions waiting for the board's CI to grade them.

Nobody but the CI can grade a sealed-tier submission (the truth is regenerated from its
key), so a contributor cannot send an entry with its scores. A leaderboard pull request
puts the submission file in the sealed board's ``queue/`` folder instead. The pull
request's check validates every queued file completely (``admit(..., dry_run=True)``:
schema, header, ids, lengths) and grades nothing: its log holds no number computed from the
truth, so a stream of probe files learns nothing from it. After the merge, the CI runs
``admit`` with the key: each queued submission is graded on the public half of its cohort's
held-out subjects, added to the board like any entry, and removed from the queue.

Admission is rationed, so that the board's scores cannot be mined either: a model version
gets one entry per cohort (the board's key), and a model name at most
:data:`ADMISSIONS_PER_PERIOD` admissions per :data:`PERIOD` (a full set of cohorts a week);
a file over the ration stays queued, with the reason, for a later admission.
Calibration-cohort submissions go first, so a model's K* is known before its other cohorts
are graded.
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from icgbench.errors import InvalidInputError, UsageError, UserError
from icgbench.leaderboard.entry import LeaderboardEntry, parse_utc
from icgbench.leaderboard.files import QUEUE, queue_problem
from icgbench.leaderboard.store import JSON_NAME, load_board, locked, write_board

if TYPE_CHECKING:
    from icgbench.scorer import Validated

log = logging.getLogger(__name__)

SEALED_TIER = "sealed"
#: The admission ration per model name: a full set of cohorts (one per variant) a week.
ADMISSIONS_PER_PERIOD = 6
PERIOD = dt.timedelta(days=7)


@dataclass(frozen=True)
class Admission:
    """What became of one queued file: its entry, or why it stays queued (neither: a dry
    run found it valid and within the ration)."""

    file: str
    entry: LeaderboardEntry | None = None
    problem: str | None = None
    #: True when the problem is the ration: the file is valid and waits for a later admission
    waiting: bool = False


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
    from icgbench.leaderboard.board import calibration_first

    return calibration_first(files)


def admit(folder: Path, dry_run: bool = False, now: dt.datetime | None = None
          ) -> list[Admission]:
    """Check every queued submission; unless ``dry_run``, grade each one within the ration,
    add it to the board and take it out of the queue. A file that fails, or waits for the
    ration, is left in the queue with its reason recorded. A dry run grades nothing."""
    from icgbench.leaderboard.board import add, known_k
    from icgbench.scorer import validate
    from icgbench.scorer.parse import read_file

    folder = Path(folder)
    now = dt.datetime.now(dt.UTC) if now is None else now
    if not dry_run and not (folder / JSON_NAME).exists():
        with locked(folder):  # the sealed board starts empty, before its first admission
            if not (folder / JSON_NAME).exists():
                write_board(folder, SEALED_TIER, [])
    entries = load_board(folder, new_tier=SEALED_TIER).entries if (
        folder / JSON_NAME).exists() else []
    taken = [Taken(e.key, e.model_name, e.submitted_at) for e in entries]
    staged: set[tuple[str, str, str, int]] = set()  # a dry run's would-be structure entries
    out = []
    for path in queued(folder):
        try:
            v = validate(read_file(path), frozen_only=True)
            doc = v.document
            if doc["tier"] != SEALED_TIER:
                raise InvalidInputError(f"the queue takes sealed-tier submissions; this "
                                        f"one is for the {doc['tier']} tier")
            model, version = doc["model"]["name"], doc["model"]["version"]
            mine = Taken((doc["variant"], doc["seed"], model, version), model, _stamp(now))
            if any(t.key == mine.key for t in taken):
                raise InvalidInputError(
                    f"{model} {version} already has an entry on {doc['variant']} seed "
                    f"{doc['seed']}: one entry per model version and cohort (a new version is "
                    "a new submission)")
            if (wait := ration_problem(taken, mine, now)) is not None:
                out.append(Admission(path.name, problem=wait, waiting=True))
                continue
            if dry_run:
                _check_calibrated(v, set(known_k(entries)) | staged)
                if "structure_recovery" in doc:
                    staged.add((model, version, doc["variant"], doc["seed"]))
                taken.append(mine)  # what admitting the queue in order would take
                out.append(Admission(path.name))
                continue
            entry = add(path, folder, tier=SEALED_TIER, submitted_at=mine.submitted_at)
            path.unlink()
            taken.append(mine)
            log.info("admitted %s as %s", path.name, entry.label)
            out.append(Admission(path.name, entry=entry))
        except UserError as exc:
            out.append(Admission(path.name, problem=str(exc)))
    return out


def _check_calibrated(v: Validated, structure_entries: set[tuple[str, str, str, int]]
                      ) -> None:
    """A dry run's stand-in for :func:`.board.calibration_k`, which needs the graded K*: a
    structure submission off the calibration cohort needs its model version's calibration
    entry, on the board or queued before it."""
    from icgbench.leaderboard.board import calibration_k

    doc = v.document
    cohort = v.descriptor.calibration_cohort
    if "structure_recovery" not in doc or (doc["variant"], doc["seed"]) == tuple(cohort):
        return
    if (doc["model"]["name"], doc["model"]["version"], *cohort) not in structure_entries:
        calibration_k(v, {})  # raises, naming the calibration cohort to add first


class Taken(NamedTuple):
    """An admission the ration counts: the entry's board key, model name and time."""

    key: tuple[str, int, str, str]
    model: str
    submitted_at: str


def ration_problem(taken: list[Taken], candidate: Taken, now: dt.datetime) -> str | None:
    """Why ``candidate`` must wait, or None: at most ADMISSIONS_PER_PERIOD admissions per
    model name per PERIOD (one entry per model version and cohort is checked first)."""
    model = candidate.model
    since = now - PERIOD
    recent = sorted(t.submitted_at for t in taken if t.model == model
                    and _when(t.submitted_at) > since)
    if len(recent) >= ADMISSIONS_PER_PERIOD:
        until = _when(recent[-ADMISSIONS_PER_PERIOD]) + PERIOD
        return (f"{model} had {len(recent)} admissions in the last {PERIOD.days} days (at "
                f"most {ADMISSIONS_PER_PERIOD}): it stays queued until "
                f"{_stamp(until)}")
    return None


def _stamp(when: dt.datetime) -> str:
    return when.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _when(stamp: str) -> dt.datetime:
    return parse_utc(stamp) or dt.datetime.min.replace(tzinfo=dt.UTC)
