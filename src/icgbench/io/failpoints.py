"""Named crash points, so tests can kill a writer at an exact step instead of after a sleep.

Code that must survive a crash calls :func:`reached` at each step that matters. Normally
that is one environment lookup and nothing else. With ``ICGBENCH_FAILPOINT=NAME`` (or
``NAME#N``: the N-th time it is reached) the process kills itself there with SIGKILL, as a
power cut or the OOM killer would, leaving whatever is on disk at that instant; tests then
check that the files are the old or the new state, never a mixture. With
``ICGBENCH_FAILPOINT_LOG=FILE`` every point reached is appended to FILE (tests use it to
prove each registered point is really on the path they exercise).
"""

from __future__ import annotations

import os
import signal

ENV = "ICGBENCH_FAILPOINT"
LOG_ENV = "ICGBENCH_FAILPOINT_LOG"

#: Every point, with the step it follows. A test kills a writer at each of them.
POINTS: dict[str, str] = {
    "atomic.temp_written": "a temporary file is complete and synced, not yet renamed",
    "atomic.renamed": "a temporary file has been renamed into place",
    "board.locked": "the board lock is held, nothing written yet",
    "board.submission_stored": "the submission file is stored, leaderboard.json not yet "
    "rewritten",
    "board.json_written": "leaderboard.json is rewritten, leaderboard.csv not yet",
    "staging.created": "a staging folder exists and is owned, nothing in it yet",
    "staging.filled": "a staging folder holds every output file, not yet installed",
    "staging.old_moved_aside": "the previous output folder is moved aside, the new one not "
    "yet in place",
}

_hits: dict[str, int] = {}


def reached(name: str) -> None:
    """Mark step ``name``; kill the process here when a test asked for it."""
    log = os.environ.get(LOG_ENV)
    if log:
        with open(log, "a", encoding="utf-8") as handle:
            handle.write(name + "\n")
    wanted = os.environ.get(ENV)
    if not wanted:
        return
    point, _, count = wanted.partition("#")
    if point != name:
        return
    _hits[name] = _hits.get(name, 0) + 1
    if _hits[name] >= int(count or 1):
        os.kill(os.getpid(), signal.SIGKILL)
