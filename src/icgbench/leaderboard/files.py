"""What a board folder may hold, and what in it does not belong.

A board folder holds ``leaderboard.json``, ``leaderboard.csv``, the writers' lock file and
``submissions/`` with exactly the stored submission of every entry, all regular files and
folders; the public board's folder may also hold ``sealed/``, the sealed track's board,
which is checked as a board of its own, and a sealed board ``queue/`` (:mod:`.queue`).
Anything else is reported by ``verify``: a symbolic link or special file anywhere, an
unexpected file, an *orphan* (a stored file no entry references, e.g. left by an ``add``
killed before it rewrote the board), or a writer's leftover temporary file. ``leaderboard
repair`` removes orphans and leftovers.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from icgbench.errors import UsageError
from icgbench.leaderboard.entry import SUBMISSIONS
from icgbench.leaderboard.store import CSV_NAME, JSON_NAME, LOCK_NAME

#: The sealed track's board, kept inside the public board's folder (so a leaderboard pull
#: request touches leaderboard/ only) and verified on its own.
SEALED_BOARD = "sealed"
#: The sealed board's queue of submissions waiting for the CI to grade them (see .queue).
QUEUE = "queue"
EXPECTED_TOP = {JSON_NAME, CSV_NAME, LOCK_NAME, SUBMISSIONS}
TOP_FOLDERS = {SUBMISSIONS, SEALED_BOARD, QUEUE}
#: Temporary files of ``atomic.write_bytes``: ``.<name>.<random>.tmp``.
TEMPORARY = re.compile(r"^\..+\.[A-Za-z0-9_]+\.tmp$")


@dataclass(frozen=True)
class Stray:
    """A path in a board folder that does not belong there, and why."""

    path: str  # relative to the board folder, with /
    reason: str
    kind: str  # orphan, leftover, link, special, unexpected

    @property
    def removable(self) -> bool:
        """True for what ``repair`` may delete: orphans and writers' leftovers."""
        return self.kind in ("orphan", "leftover")


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


def strays(folder: Path, referenced: set[str]) -> list[Stray]:
    """Everything in ``folder`` that is not the board's files or a referenced submission."""
    out = []
    for root, dirs, files in os.walk(folder, followlinks=False):
        here = Path(root)
        for name in sorted(dirs) + sorted(files):
            path = here / name
            rel = path.relative_to(folder).as_posix()
            mode = os.lstat(path).st_mode
            top = here == Path(folder)
            if stat.S_ISLNK(mode):
                out.append(Stray(rel, "a symbolic link (a board holds regular files only)",
                                 "link"))
            elif stat.S_ISDIR(mode):
                if top and name not in TOP_FOLDERS:
                    out.append(Stray(rel, "an unexpected folder", "unexpected"))
            elif not stat.S_ISREG(mode):
                out.append(Stray(rel, "not a regular file", "special"))
            elif TEMPORARY.match(name):
                out.append(Stray(rel, "a temporary file left by a killed writer", "leftover"))
            elif top:
                if name not in EXPECTED_TOP:
                    out.append(Stray(rel, "an unexpected file", "unexpected"))
            elif rel not in referenced:
                out.append(Stray(rel, "a stored file no entry references (an orphan)",
                                 "orphan"))
        dirs[:] = [d for d in dirs if not (here / d).is_symlink()
                   and (here != Path(folder) or d == SUBMISSIONS)]  # sealed/: its own board
    return out
