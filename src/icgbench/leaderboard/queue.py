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

from icgbench.errors import InvalidInputError, UsageError, UserError
from icgbench.leaderboard.board import add, calibration_first
from icgbench.leaderboard.entry import LeaderboardEntry, parse_utc
from icgbench.leaderboard.files import QUEUE, queue_problem
from icgbench.leaderboard.store import load_board

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


def admit(folder: Path, dry_run: bool = False, now: dt.datetime | None = None
          ) -> list[Admission]:
    """Check every queued submission; unless ``dry_run``, grade each one within the ration,
    add it to the board and take it out of the queue. A file that fails, or waits for the
    ration, is left in the queue with its reason recorded. A dry run grades nothing."""
    from icgbench.scorer import validate
    from icgbench.scorer.parse import read_file

    folder = Path(folder)
    now = dt.datetime.now(dt.UTC) if now is None else now
    entries = load_board(folder, new_tier=SEALED_TIER).entries if (
        folder / "leaderboard.json").exists() else []
    out = []
    for path in queued(folder):
        try:
            v = validate(read_file(path), frozen_only=True)
            doc = v.document
            if doc["tier"] != SEALED_TIER:
                raise InvalidInputError(f"the queue takes sealed-tier submissions; this "
                                        f"one is for the {doc['tier']} tier")
            model, version = doc["model"]["name"], doc["model"]["version"]
            if (wait := ration_problem(entries, model, version, doc["variant"], doc["seed"],
                                       now)) is not None:
                out.append(Admission(path.name, problem=wait))
                continue
            if dry_run:
                out.append(Admission(path.name))
                continue
            entry = add(path, folder, tier=SEALED_TIER, submitted_at=_stamp(now))
            path.unlink()
            entries.append(entry)
            log.info("admitted %s as %s", path.name, entry.label)
            out.append(Admission(path.name, entry=entry))
        except UserError as exc:
            out.append(Admission(path.name, problem=str(exc)))
    return out


def ration_problem(entries: list[LeaderboardEntry], model: str, version: str, variant: str,
                   seed: int, now: dt.datetime) -> str | None:
    """Why a submission must wait (or can never be admitted), or None: one entry per model
    version and cohort; at most ADMISSIONS_PER_PERIOD admissions per model name per PERIOD."""
    if any(e.key == (variant, seed, model, version) for e in entries):
        return (f"{model} {version} already has an entry on {variant} seed {seed}: one entry "
                "per model version and cohort (a new version is a new submission)")
    since = now - PERIOD
    recent = sorted(e.submitted_at for e in entries if e.model_name == model
                    and _when(e.submitted_at) > since)
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
