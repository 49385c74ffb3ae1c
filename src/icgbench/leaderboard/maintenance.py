"""Bringing a board folder back to a clean state: ``repair`` after a crash, ``migrate``.

``repair`` finishes what a killed writer left: it renders ``leaderboard.csv`` again when it
lags behind the JSON, and removes orphan submission files and temporary files. It never
touches an entry, and refuses a CSV that differs in earlier rows (that is an edit, not a
crash). ``migrate`` rewrites a board stored at an older schema version at the current one,
moving each stored submission to its new canonical path: first copies, then the board,
then the old files, so a crash at any point leaves a readable board and at worst files
that ``repair`` removes. Every stored path is checked before anything is read, copied or
removed (:func:`.files.inside`: under ``submissions/``, no ``..``, no absolute path, no
symbolic link), and every file's bytes must have its entry's SHA-256: a board that names
a path outside itself, or a file that is not its entry's, is refused with nothing written.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from icgbench.errors import InvalidInputError
from icgbench.io import untrusted
from icgbench.io.atomic import write_bytes, write_text
from icgbench.leaderboard.entry import SCHEMA_VERSION, LeaderboardEntry
from icgbench.leaderboard.files import SEALED_BOARD, board_folder, inside, strays
from icgbench.leaderboard.store import (
    CSV_NAME,
    DEFAULT_LOCK_TIMEOUT,
    JSON_NAME,
    csv_state,
    csv_text,
    entries_of,
    load_board,
    locked,
    parse_board,
    read_json_file,
    require_current,
    stored_paths,
    write_board,
)
from icgbench.release.tiers import SEALED_NAME
from icgbench.scorer.parse import DEFAULT_MAX_BYTES


def repair(folder: Path, lock_timeout: float = DEFAULT_LOCK_TIMEOUT) -> list[str]:
    """Repair the board in ``folder``; one line per action taken (empty: nothing to do)."""
    folder = board_folder(folder)
    actions = []
    with locked(folder, lock_timeout):
        board = load_board(folder, new_tier=None)
        require_current(folder, board)
        removable, left = [], []
        sealed = board.tier == SEALED_NAME
        for s in strays(folder, {e.submission_path for e in board.entries}, sealed=sealed):
            if s.removable:
                removable.append(s)
            elif s.nested and s.kind in ("orphan", "leftover"):
                left.append(f"{s.path}: {s.reason} (the sealed board's own: run `icgbench "
                            f"leaderboard repair --dir {folder / SEALED_BOARD}`)")
            else:
                left.append(f"{s.path}: {s.reason}")
        if left:  # refused before anything is changed
            raise InvalidInputError("repair removes only what a killed writer leaves; these "
                                    "need a person: " + "; ".join(left))
        state = csv_state(folder, board.entries)
        if state == "different":
            raise InvalidInputError(f"{folder / CSV_NAME} differs from {JSON_NAME} in earlier "
                                    "rows: that is an edit, not a crash; restore it from "
                                    "version control")
        if state == "behind":
            write_text(folder / CSV_NAME, csv_text(board.entries))
            actions.append(f"rendered {CSV_NAME} again from {JSON_NAME}")
        for s in removable:
            inside(folder, s.path, under=None).unlink()
            actions.append(f"removed {s.path}: {s.reason}")
    return actions


def _stored_file(folder: Path, relative: object, entry: LeaderboardEntry) -> bytes:
    """The bytes stored at ``relative`` for ``entry``, checked: inside the board, a regular
    file, with the entry's SHA-256."""
    try:
        data = untrusted.read_regular(inside(folder, relative), DEFAULT_MAX_BYTES,
                                      follow_symlinks=False)
    except (OSError, untrusted.InputProblem) as exc:
        raise InvalidInputError(f"cannot migrate: the stored file {relative} of "
                                f"{entry.label} is unreadable ({exc})") from None
    if "sha256:" + hashlib.sha256(data).hexdigest() != entry.submission_sha256:
        raise InvalidInputError(f"cannot migrate: the stored file {relative} is not "
                                f"{entry.label}'s (its SHA-256 is not the recorded "
                                f"{entry.submission_sha256})")
    return data


def migrate(folder: Path, lock_timeout: float = DEFAULT_LOCK_TIMEOUT) -> int:
    """Rewrite the board at the current schema version; the number of files moved."""
    folder = board_folder(folder)
    with locked(folder, lock_timeout):
        data = read_json_file(folder) or b""
        raw = parse_board(data, str(folder / JSON_NAME))
        if raw.stored_version == SCHEMA_VERSION:
            return 0
        entries = entries_of(raw, str(folder / JSON_NAME))
        moves = [(old, e) for old, e in zip(stored_paths(data), entries, strict=True)
                 if old != e.submission_path]
        for old, e in moves:  # everything is checked before anything is written
            _stored_file(folder, old, e)
        olds, news = [str(old) for old, _ in moves], [e.submission_path for e in entries]
        if len(set(olds)) != len(olds) or len(set(news)) != len(news) or set(olds) & set(news):
            raise InvalidInputError(f"cannot migrate {folder}: two entries name one stored "
                                    "file (or one's old path is another's new path); "
                                    "restore the board from version control")
        for old, e in moves:
            write_bytes(inside(folder, e.submission_path), _stored_file(folder, old, e))
        write_board(folder, raw.tier, entries)
        for old, _ in moves:
            inside(folder, old).unlink()
        require_current(folder, load_board(folder, new_tier=None))
    return len(moves)
