"""Bringing a board folder back to a clean state: ``repair`` after a crash, ``migrate``.

``repair`` finishes what a killed writer left: it renders ``leaderboard.csv`` again when it
lags behind the JSON, and removes orphan submission files and temporary files. It never
touches an entry, and refuses a CSV that differs in earlier rows (that is an edit, not a
crash). ``migrate`` rewrites a board stored at an older schema version at the current one,
moving each stored submission to its new canonical path: first copies, then the board,
then the old files, so a crash at any point leaves a readable board and at worst files
that ``repair`` removes.
"""

from __future__ import annotations

from pathlib import Path

from icgbench import untrusted
from icgbench.atomic import write_bytes, write_text
from icgbench.errors import InvalidInputError
from icgbench.leaderboard.board import no_symlink_below
from icgbench.leaderboard.entry import SCHEMA_VERSION
from icgbench.leaderboard.files import board_folder, strays
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
from icgbench.scorer.parse import DEFAULT_MAX_BYTES


def repair(folder: Path, lock_timeout: float = DEFAULT_LOCK_TIMEOUT) -> list[str]:
    """Repair the board in ``folder``; one line per action taken (empty: nothing to do)."""
    folder = board_folder(folder)
    actions = []
    with locked(folder, lock_timeout):
        board = load_board(folder, new_tier=None)
        require_current(folder, board)
        state = csv_state(folder, board.entries)
        if state == "different":
            raise InvalidInputError(f"{folder / CSV_NAME} differs from {JSON_NAME} in earlier "
                                    "rows: that is an edit, not a crash; restore it from "
                                    "version control")
        if state == "behind":
            write_text(folder / CSV_NAME, csv_text(board.entries))
            actions.append(f"rendered {CSV_NAME} again from {JSON_NAME}")
        left = []
        for s in strays(folder, {e.submission_path for e in board.entries}):
            if s.removable:
                (folder / s.path).unlink()
                actions.append(f"removed {s.path}: {s.reason}")
            else:
                left.append(f"{s.path}: {s.reason}")
        if left:
            raise InvalidInputError("repair removes only what a killed writer leaves; these "
                                    "need a person: " + "; ".join(left))
    return actions


def migrate(folder: Path, lock_timeout: float = DEFAULT_LOCK_TIMEOUT) -> int:
    """Rewrite the board at the current schema version; the number of files moved."""
    folder = board_folder(folder)
    with locked(folder, lock_timeout):
        data = read_json_file(folder) or b""
        raw = parse_board(data, str(folder / JSON_NAME))
        if raw.stored_version == SCHEMA_VERSION:
            return 0
        entries = entries_of(raw, str(folder / JSON_NAME))
        moves = [(old, e.submission_path) for old, e in zip(stored_paths(data), entries,
                                                            strict=True)
                 if old != e.submission_path]
        for old, new in moves:
            try:
                content = untrusted.read_regular(no_symlink_below(folder, old),
                                                 DEFAULT_MAX_BYTES, follow_symlinks=False)
            except (OSError, untrusted.InputProblem) as exc:
                raise InvalidInputError(f"cannot migrate: the stored file {old} is "
                                        f"unreadable ({exc})") from None
            write_bytes(no_symlink_below(folder, new), content)
        write_board(folder, raw.tier, entries)
        for old, _ in moves:
            (folder / old).unlink()
        require_current(folder, load_board(folder, new_tier=None))
    return len(moves)
