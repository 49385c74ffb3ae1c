"""Where commands write by default, and the fallback when that place is not writable."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from icgbench.errors import UsageError
from icgbench.io.atomic import ensure_writable_dir

#: The file that makes a folder a leaderboard (``icgbench.leaderboard.store.JSON_NAME``).
BOARD_FILE = "leaderboard.json"


def outside_boards(path: Path, option: str = "--outdir") -> Path:
    """``path``, unless it is or lies inside a leaderboard folder (one holding
    ``leaderboard.json``): a command's outputs there would be strays that fail the board's
    verification. Raises UsageError naming the board."""
    here = Path(path).resolve()
    for folder in (here, *here.parents):
        if (folder / BOARD_FILE).is_file():
            raise UsageError(f"{option} {path} lies inside the leaderboard {folder}: its "
                             "files would be strays on the board; write them elsewhere")
    return Path(path)


def writable_or_temp(requested: Path | None, default: Path) -> Path:
    """The requested folder (must be writable), or the default, or a temporary folder.

    An explicit request that cannot be written is an error; an unwritable default falls
    back to a fresh temporary folder, with a message on stderr saying so.
    """
    if requested is not None:
        return ensure_writable_dir(outside_boards(requested))
    try:
        return ensure_writable_dir(outside_boards(default))
    except UsageError as exc:
        fallback = Path(tempfile.mkdtemp(prefix="icgbench-"))
        print(f"icgbench: {exc}; writing to {fallback} instead", file=sys.stderr)
        return fallback
