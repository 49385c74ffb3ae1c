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
from icgbench.generator import variant_names
from icgbench.leaderboard.entry import LeaderboardEntry, parse_utc
from icgbench.leaderboard.files import QUEUE, queue_problem
from icgbench.leaderboard.store import JSON_NAME, load_board, locked, write_board

if TYPE_CHECKING:
    from icgbench.leaderboard.board import Key
    from icgbench.scorer import Validated

log = logging.getLogger(__name__)

SEALED_TIER = "sealed"
#: The admission ration per model name: a full set of cohorts (one per variant) a week.
ADMISSIONS_PER_PERIOD = len(variant_names())
PERIOD = dt.timedelta(days=7)
#: The files one pull request may add to the queue (or change in it), whatever their model
#: names: a full set of cohorts. Many names in one pull request get no more.
QUEUED_PER_PULL_REQUEST = len(variant_names())


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


def require_current_generation(v: Validated) -> None:
    """Only the current sealed generation is admitted: once a generation is retired its
    key is public, and a file built from the published truth would score perfectly."""
    from icgbench.release import generations, locate

    version = v.descriptor.version
    g = generations.find(locate.release_root(), version)
    if g is None:
        raise InvalidInputError(f"sealed release {version} is not a recorded generation "
                                f"({generations.FOLDER}): nothing of it can be admitted")
    if g.retired:
        raise InvalidInputError(
            f"sealed release {version} (generation {g.generation}) was retired on "
            f"{g.retired_on} and its key published: its admissions are closed (its truth is "
            "public); submit to the current generation")


def _blob_id(data: bytes) -> str:
    """Git's object id of a file's bytes."""
    import hashlib

    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def queued_since(folder: Path, base: str, files: list[Path]) -> list[Path]:
    """The queued ``files`` a pull request adds or changes: not at ``base`` with the same
    bytes (all of them when the base's queue cannot be listed: fail closed)."""
    from icgbench.leaderboard import gitrepo

    top, prefix = gitrepo.repository(Path(folder))
    commit = gitrepo.resolve_commit(top, base)
    queue = f"{prefix}/{QUEUE}" if prefix != "." else QUEUE
    at_base = gitrepo.tree(top, commit, queue)
    return [f for f in files
            if at_base.get(f"{queue}/{f.name}", ("", ""))[1] != _blob_id(f.read_bytes())]


def admit(folder: Path, dry_run: bool = False, now: dt.datetime | None = None,
          base: str | None = None) -> list[Admission]:
    """Check every queued submission; unless ``dry_run``, grade each one within the ration,
    add it to the board and take it out of the queue. A file that fails, or waits for the
    ration, is left in the queue with its reason recorded. A dry run grades nothing, and
    applies every rule admission applies (:func:`.board.admission_check`); with ``base``
    (a pull request's), it also refuses a queue to which the pull request adds more than
    :data:`QUEUED_PER_PULL_REQUEST` files."""
    from icgbench.leaderboard.board import add, admission_check
    from icgbench.scorer import check_submission
    from icgbench.scorer.parse import read_file

    folder = Path(folder)
    now = dt.datetime.now(dt.UTC) if now is None else now
    if not dry_run and not (folder / JSON_NAME).exists():
        with locked(folder):  # the sealed board starts empty, before its first admission
            if not (folder / JSON_NAME).exists():
                write_board(folder, SEALED_TIER, [])
    entries = load_board(folder, new_tier=SEALED_TIER).entries if (
        folder / JSON_NAME).exists() else []
    files = queued(folder)
    if base is not None:
        added = queued_since(folder, base, files)
        if len(added) > QUEUED_PER_PULL_REQUEST:
            raise InvalidInputError(
                f"this pull request adds or changes {len(added)} files in {folder / QUEUE}; "
                f"at most {QUEUED_PER_PULL_REQUEST} per pull request, whatever their model "
                "names (a full set of cohorts): split it")
    taken = [Taken(e.key, e.model_name, e.submitted_at) for e in entries]
    staged: list[Key] = []  # the entries admitted (or, in a dry run, would be) so far
    out = []
    for path in files:
        try:
            v = check_submission(read_file(path), frozen_only=True)
            doc = v.document
            if doc["tier"] != SEALED_TIER:
                raise InvalidInputError(f"the queue takes sealed-tier submissions; this "
                                        f"one is for the {doc['tier']} tier")
            require_current_generation(v)
            admission_check(v, entries, SEALED_TIER, staged)
            model = doc["model"]["name"]
            mine = Taken((doc["variant"], doc["seed"], model, doc["model"]["version"]), model,
                         _stamp(now))
            if (wait := ration_problem(taken, mine, now)) is not None:
                out.append(Admission(path.name, problem=wait, waiting=True))
                continue
            if dry_run:
                staged.append(mine.key)
                taken.append(mine)  # what admitting the queue in order would take
                out.append(Admission(path.name))
                continue
            entry = add(path, folder, tier=SEALED_TIER, submitted_at=mine.submitted_at)
            path.unlink()
            staged.append(mine.key)
            taken.append(mine)
            log.info("admitted %s as %s", path.name, entry.label)
            out.append(Admission(path.name, entry=entry))
        except UserError as exc:
            out.append(Admission(path.name, problem=str(exc)))
    return out


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
