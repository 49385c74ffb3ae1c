"""Exclusive locks on an open file, where ``fcntl`` exists and where it does not.

POSIX systems lock with ``flock``; Windows, which has no ``fcntl``, locks the file's first
byte with ``msvcrt.locking``. Either lock is released when the process dies, which is what
the staging folders and the board lock rely on (:mod:`icgbench.io.atomic`,
:mod:`icgbench.leaderboard.store`).
"""

from __future__ import annotations

import os
import time

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]
    import msvcrt


def try_lock(fd: int) -> bool:
    """Take the exclusive lock on ``fd`` if it is free; False when another holds it."""
    if fcntl is not None:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True
    os.lseek(fd, 0, os.SEEK_SET)
    try:
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
    except OSError:
        return False
    return True


def lock(fd: int) -> None:
    """Take the exclusive lock on ``fd``, waiting as long as another holds it."""
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_EX)
        return
    while not try_lock(fd):
        time.sleep(0.05)


def unlock(fd: int) -> None:
    """Release the lock this process holds on ``fd``."""
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return
    os.lseek(fd, 0, os.SEEK_SET)
    msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
