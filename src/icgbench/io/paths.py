"""Where commands write by default, and the fallback when that place is not writable."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from icgbench.errors import UsageError
from icgbench.io.atomic import ensure_writable_dir


def writable_or_temp(requested: Path | None, default: Path) -> Path:
    """The requested folder (must be writable), or the default, or a temporary folder.

    An explicit request that cannot be written is an error; an unwritable default falls
    back to a fresh temporary folder, with a message on stderr saying so.
    """
    if requested is not None:
        return ensure_writable_dir(requested)
    try:
        return ensure_writable_dir(default)
    except UsageError as exc:
        fallback = Path(tempfile.mkdtemp(prefix="icgbench-"))
        print(f"icgbench: {exc}; writing to {fallback} instead", file=sys.stderr)
        return fallback
