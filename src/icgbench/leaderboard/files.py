"""What a board folder may hold, where a path read from a board may point, and strays.

A board folder holds ``leaderboard.json``, ``leaderboard.csv``, the writers' lock file and
``submissions/`` with exactly the stored submission of every entry, all regular files and
folders. Besides these, the public board's folder may hold ``sealed/``, the sealed
track's board (which must hold a ``leaderboard.json``; its own files follow the same
rules), and a sealed board holds its ``queue/`` of submission files (:mod:`.queue`).
Nothing else belongs anywhere under the folder: ``verify`` reports a symbolic link or
special file anywhere, an unexpected file or folder, an *orphan* (a stored file no entry
references, e.g. left by an ``add`` killed before it rewrote the board), or a writer's
leftover temporary file. ``leaderboard repair`` removes orphans and leftovers.

Every path read from a board (an entry's ``submission_path``, a stored path of an older
schema version, a path in the board's git history) goes through :func:`path_problem` and,
before any read, copy or unlink on disk, :func:`inside`: a relative path of plain parts
(no ``..``, no absolute path, no control character) under the board folder, through no
symbolic link.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from icgbench.errors import InvalidInputError, UsageError
from icgbench.io import untrusted
from icgbench.leaderboard.entry import SUBMISSIONS
from icgbench.leaderboard.store import (
    CSV_NAME,
    JSON_NAME,
    LOCK_NAME,
    parse_board,
    read_json_file,
)
from icgbench.release.tiers import SEALED_NAME

#: The sealed track's board, kept inside the public board's folder (so a leaderboard pull
#: request touches leaderboard/ only) and verified on its own.
SEALED_BOARD = "sealed"
#: The sealed board's queue of submissions waiting for the CI to grade them (see .queue).
QUEUE = "queue"
#: The files at the top of every board folder (the lock is made by the first writer).
BOARD_FILES = frozenset({JSON_NAME, CSV_NAME, LOCK_NAME})
#: The folders a board may hold besides ``submissions/``, by whether it is a sealed board:
#: the public board keeps the sealed track's board, a sealed board its queue.
NESTED = {False: SEALED_BOARD, True: QUEUE}
#: Temporary files of ``atomic.write_bytes``: ``.<name>.<random>.tmp``.
TEMPORARY = re.compile(r"^\..+\.[A-Za-z0-9_]+\.tmp$")
#: A queued submission file: a plain name ending in .json or .json.gz.
QUEUED_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,127}\.json(\.gz)?\Z")
#: A queued file is one submission (a full-tier one is about 0.25 MB uncompressed).
MAX_QUEUED_BYTES = 16 * 1024 * 1024
#: Characters never allowed in a path read from a board (controls, and the backslash).
_BAD_CHARACTER = re.compile(r"[\x00-\x1f\x7f\\]")


def path_problem(relative: object, under: str | None = SUBMISSIONS) -> str | None:
    """Why ``relative`` cannot name a file inside a board folder, or None.

    A board path is a non-empty relative POSIX path of plain parts: no absolute path, no
    ``.`` or ``..`` part, no empty part, no control character or backslash; with
    ``under``, its first part must be that folder (stored submissions: ``submissions``).
    """
    if not isinstance(relative, str) or not relative:
        return f"{relative!r} is not a path"
    if len(relative) > 1024:
        return f"a path of {len(relative)} characters (at most 1024)"
    if _BAD_CHARACTER.search(relative):
        return f"{relative!r} holds a control character or a backslash"
    if relative.startswith("/"):
        return f"{relative!r} is an absolute path; a board path is relative to the board"
    parts = relative.split("/")
    if any(p in ("", ".", "..") for p in parts):
        return (f"{relative!r} has an empty, '.' or '..' part (a board path stays inside "
                "the board)")
    if under is not None and (parts[0] != under or len(parts) < 2):
        return f"{relative!r} is not under {under}/"
    return None


def inside(folder: Path, relative: object, under: str | None = SUBMISSIONS) -> Path:
    """``folder / relative``, checked before any read, copy or unlink of a board path.

    The path must pass :func:`path_problem`, and no part below ``folder`` may be a
    symbolic link (checked on disk, part by part), so it can only name something inside
    the board folder. InvalidInputError otherwise: the board names a path it cannot hold.
    """
    problem = path_problem(relative, under)
    if problem is not None:
        raise InvalidInputError(f"refusing a path read from the board {folder}: {problem}")
    path = Path(folder)
    for part in PurePosixPath(str(relative)).parts:
        path = path / part
        if path.is_symlink():
            raise InvalidInputError(f"{path} is a symbolic link; a board holds regular files "
                                    "and folders only")
    return path


@dataclass(frozen=True)
class Stray:
    """A path in a board folder that does not belong there, and why."""

    path: str  # relative to the board folder, with /
    reason: str
    kind: str  # orphan, leftover, link, special, unexpected
    nested: bool = False  # inside the sealed board of a public board's folder

    @property
    def removable(self) -> bool:
        """True for what ``repair`` may delete: orphans and writers' leftovers of this
        board (a nested board's are its own ``repair``'s)."""
        return self.kind in ("orphan", "leftover") and not self.nested


def board_folder(folder: Path) -> Path:
    """``folder`` if it can be a board: an existing folder that is not a symbolic link."""
    folder = Path(folder)
    if folder.is_symlink():
        raise UsageError(f"{folder} is a symbolic link; give the board folder itself")
    if not folder.exists():
        raise UsageError(f"no such folder: {folder}")
    if not folder.is_dir():
        raise UsageError(f"{folder} is not a folder")
    if not (folder / JSON_NAME).exists() and not (folder / JSON_NAME).is_symlink():
        raise UsageError(f"{folder} is not a leaderboard folder (no {JSON_NAME} in it)")
    return folder


def _listing(folder: Path) -> list[tuple[str, int]]:
    """(name, lstat mode) of everything directly in ``folder``, by name."""
    return sorted((e.name, e.stat(follow_symlinks=False).st_mode) for e in os.scandir(folder))


def _not_regular(rel: str, mode: int) -> Stray | None:
    if stat.S_ISLNK(mode):
        return Stray(rel, "a symbolic link (a board holds regular files only)", "link")
    if not stat.S_ISDIR(mode) and not stat.S_ISREG(mode):
        return Stray(rel, "not a regular file", "special")
    return None


def _entries(folder: Path, rel: str) -> Iterator[tuple[str, int, Stray | None]]:
    """(path, mode, the stray it is as a link or special file, else None) of everything
    directly in ``folder/rel``: what every walk below reports the same way."""
    for name, mode in _listing(folder / rel):
        path = f"{rel}/{name}"
        yield path, mode, _not_regular(path, mode)


def _stored(folder: Path, rel: str, referenced: set[str]) -> list[Stray]:
    """Strays under ``submissions/``: anything but the referenced submission files."""
    out = []
    for path, mode, odd in _entries(folder, rel):
        if odd is not None:
            out.append(odd)
        elif stat.S_ISDIR(mode):
            out += _stored(folder, path, referenced)
        elif TEMPORARY.match(PurePosixPath(path).name):
            out.append(Stray(path, "a temporary file left by a killed writer", "leftover"))
        elif path not in referenced:
            out.append(Stray(path, "a stored file no entry references (an orphan)", "orphan"))
    return out


def queue_problem(path: Path) -> str | None:
    """Why a file cannot sit in a sealed board's queue, or None: it must be a regular
    submission file (a plain name ending in .json or .json.gz, at most MAX_QUEUED_BYTES,
    gzip data or a JSON object). Its content is validated when it is graded."""
    if not QUEUED_NAME.match(path.name):
        return "the queue holds submission files only (a plain name ending in .json or .json.gz)"
    try:
        data = untrusted.read_regular(path, MAX_QUEUED_BYTES, follow_symlinks=False)
    except (OSError, untrusted.InputProblem) as exc:
        return f"a queued submission must be a regular file of at most {MAX_QUEUED_BYTES} " \
               f"bytes ({exc})"
    if not (data.startswith(untrusted.GZIP_MAGIC) or data.lstrip(b" \t\r\n").startswith(b"{")):
        return "a queued submission is gzip data or a JSON object; this is neither"
    return None


def _everything(folder: Path, rel: str) -> list[Stray]:
    """Everything under a folder that does not belong at all, each named."""
    out = []
    for path, mode, odd in _entries(folder, rel):
        if odd is not None:
            out.append(odd)
        else:
            out.append(Stray(path, f"inside {rel}/, which does not belong in a board",
                             "unexpected"))
            if stat.S_ISDIR(mode):
                out += _everything(folder, path)
    return out


def _queue(folder: Path, rel: str) -> list[Stray]:
    out = []
    for path, mode, odd in _entries(folder, rel):
        if odd is not None:
            out.append(odd)
        elif stat.S_ISDIR(mode):
            out.append(Stray(path, "a folder in the queue (it holds submission files only)",
                             "unexpected"))
        elif (problem := queue_problem(folder / path)) is not None:
            out.append(Stray(path, problem, "unexpected"))
    return out


def _nested_board(folder: Path, rel: str) -> list[Stray]:
    """The sealed board inside a public board's folder: it must be a board (a readable
    ``leaderboard.json``), and everything in it must belong to it."""
    nested = folder / rel
    try:
        mode: int | None = os.lstat(nested / JSON_NAME).st_mode
    except FileNotFoundError:
        mode = None
    if mode is None or not stat.S_ISREG(mode):
        return [Stray(rel, f"a {rel}/ folder holds the sealed track's board, and this one has "
                      f"no {rel}/{JSON_NAME} (a regular file)", "unexpected"),
                *_everything(folder, rel)]
    out, referenced = [], set()
    try:
        board = parse_board(read_json_file(nested) or b"", f"{rel}/{JSON_NAME}")
        referenced = {e.get("submission_path") for e in board.entries}
        if board.tier != SEALED_NAME:
            out.append(Stray(f"{rel}/{JSON_NAME}", f"the board in {rel}/ must be a "
                             f"{SEALED_NAME}-tier board, not {board.tier}", "unexpected"))
    except InvalidInputError as exc:
        out.append(Stray(f"{rel}/{JSON_NAME}", f"not a readable board ({exc})", "unexpected"))
    for s in strays(nested, {r for r in referenced if isinstance(r, str)}, sealed=True):
        out.append(Stray(f"{rel}/{s.path}", s.reason, s.kind, nested=True))
    return out


def strays(folder: Path, referenced: set[str], sealed: bool = False) -> list[Stray]:
    """Everything under ``folder`` that is not the board's own: its files, its referenced
    submissions, and (public board) a sealed board or (``sealed`` board) its queue."""
    folder = Path(folder)
    out = []
    for name, mode in _listing(folder):
        if (odd := _not_regular(name, mode)) is not None:
            out.append(odd)
        elif stat.S_ISDIR(mode):
            if name == SUBMISSIONS:
                out += _stored(folder, name, referenced)
            elif name == NESTED[sealed]:
                out += _queue(folder, name) if sealed else _nested_board(folder, name)
            else:
                where = {QUEUE: f" (a sealed board's queue belongs in {SEALED_BOARD}/{QUEUE}/)",
                         SEALED_BOARD: " (a sealed board holds no board of its own)"}
                out.append(Stray(name, "an unexpected folder" + where.get(name, ""),
                                 "unexpected"))
                out += _everything(folder, name)
        elif TEMPORARY.match(name):
            out.append(Stray(name, "a temporary file left by a killed writer", "leftover"))
        elif name not in BOARD_FILES:
            out.append(Stray(name, "an unexpected file", "unexpected"))
    return out
