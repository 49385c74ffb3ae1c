"""Every module imports where ``fcntl`` does not exist (Windows), and the locks still hold.

A child interpreter is given no ``fcntl`` and a stand-in ``msvcrt`` whose ``locking`` takes
a POSIX lock, so the Windows branch of :mod:`icgbench.io.locks` runs for real
here: the board lock is refused to a second process while the first holds it, and a
staging folder's owner is seen alive, then, once it is killed, gone.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

from conftest import ROOT

NO_FCNTL = textwrap.dedent("""
    import os, sys, types
    import fcntl as real
    import asyncio, getpass, multiprocessing, subprocess  # they probe msvcrt for Windows
    msvcrt = types.ModuleType("msvcrt")
    msvcrt.LK_NBLCK, msvcrt.LK_UNLCK = 2, 0
    def locking(fd, mode, nbytes):
        op = real.LOCK_UN if mode == msvcrt.LK_UNLCK else real.LOCK_EX | real.LOCK_NB
        try:
            real.flock(fd, op)  # Windows locks a read-only handle too; lockf would not
        except BlockingIOError:
            raise OSError(36, "Resource deadlock avoided") from None
    msvcrt.locking = locking
    sys.modules["msvcrt"] = msvcrt
    sys.modules["fcntl"] = None  # import fcntl now raises ImportError, as on Windows
    import icgbench.io.locks
    del sys.modules["msvcrt"]  # the stand-in is for icgbench.io.locks alone
""")


def _child(body: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", NO_FCNTL + textwrap.dedent(body), *args],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)


def test_every_public_module_imports_without_fcntl():
    result = _child("""
        import importlib, pkgutil, icgbench
        failed = []
        for info in pkgutil.walk_packages(icgbench.__path__, "icgbench."):
            if info.name.rsplit(".", 1)[-1] == "__main__":
                continue
            try:
                importlib.import_module(info.name)
            except ImportError as exc:
                failed.append(f"{info.name}: {exc}")
        print("\\n".join(failed))
        from icgbench.io import locks
        assert locks.fcntl is None
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "", f"modules that need fcntl:\n{result.stdout}"


def test_the_board_lock_and_staging_owners_hold_without_fcntl(tmp_path):
    board = tmp_path / "board"
    board.mkdir()
    holder = subprocess.Popen(
        [sys.executable, "-c", NO_FCNTL + textwrap.dedent("""
            import sys, time
            from pathlib import Path
            from icgbench.io.atomic import owned_staging
            from icgbench.leaderboard.store import locked
            with locked(Path(sys.argv[1])), owned_staging(Path(sys.argv[1]), "probe"):
                print("held", flush=True)
                sys.stdin.readline()
        """), str(board)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        cwd=ROOT)
    try:
        assert holder.stdout.readline().strip() == "held"
        waiting = _child("""
            import sys
            from pathlib import Path
            from icgbench.errors import UsageError
            from icgbench.io.atomic import remove_stale_staging
            from icgbench.leaderboard.store import locked
            folder = Path(sys.argv[1])
            assert remove_stale_staging(folder, "probe") == []  # its owner is alive
            try:
                with locked(folder, timeout=0.3):
                    print("taken")
            except UsageError as exc:
                print("refused:", exc)
        """, str(board))
        assert waiting.returncode == 0, waiting.stderr
        assert waiting.stdout.startswith("refused: gave up after 0.3 s"), waiting.stdout
        assert list(board.glob(".probe.*.staging"))
    finally:
        holder.kill()  # killed: its staging folder is left, its locks are released
        holder.wait(timeout=60)
    after = _child("""
        import sys
        from pathlib import Path
        from icgbench.io.atomic import remove_stale_staging
        from icgbench.leaderboard.store import locked
        folder = Path(sys.argv[1])
        print(len(remove_stale_staging(folder, "probe")))
        with locked(folder, timeout=5):
            print("taken")
    """, str(board))
    assert after.stdout.split() == ["1", "taken"], after.stderr
    assert not list(board.glob(".probe.*.staging"))
