"""Writes that are all-or-nothing, and staging folders that clean up after a crash.

A file is written to a temporary file in the same folder and renamed into place, and
only over nothing or a regular file that is not an input of the same command
(:func:`check_output`): a rename would replace a device node, and a report written over
the submission it grades destroys the submission. A folder of outputs is built in a
*staging folder* beside its target and installed by renames. A staging folder holds an
exclusively locked ``.owner`` file for as long as its process lives, so a later run can
tell the leftovers of a killed process (the lock is free) from the work of a live one (the
lock is held) and remove only the former.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from icgbench.errors import UsageError
from icgbench.io import failpoints, locks
from icgbench.io.untrusted import kind_of

OWNER = ".owner"
STAGING_SUFFIX = ".staging"
#: A half-made staging folder (killed between mkdtemp and taking ownership) older than
#: this is a leftover.
UNOWNED_GRACE_SECONDS = 3600.0


def ensure_writable_dir(path: Path) -> Path:
    """Create ``path`` (and parents) or raise UsageError saying why it cannot be used."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create directory {path}: {exc.strerror or exc}") from None
    if not path.is_dir():
        raise UsageError(f"{path} exists and is not a directory")
    if not os.access(path, os.W_OK | os.X_OK):
        raise UsageError(f"directory {path} is not writable")
    return path


def check_output(path: Path, inputs: Iterable[Path] = (), what: str = "output") -> Path:
    """``path``, when writing it replaces nothing or a regular file other than ``inputs``.

    Raises UsageError (exit 2) naming the reason when ``path`` is a folder, a device, a FIFO
    or anything but a regular file, or when it is the same file as one of ``inputs``
    (compared by device and inode, so links and other spellings are caught).
    """
    path = Path(path)
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return path  # nothing there yet (or unreachable: writing says why)
    if not stat.S_ISREG(mode):
        raise UsageError(f"refusing to write the {what} to {path}: it is {kind_of(mode)}, "
                         "not a regular file")
    for source in inputs:
        try:
            same = os.path.samefile(path, source)
        except OSError:
            continue
        if same:
            shown = "" if Path(source) == path else f" (the same file as {source})"
            raise UsageError(f"refusing to write the {what} to {path}: it is an input of "
                             f"this command{shown}; choose another file")
    return path


def write_bytes(path: Path, data: bytes, inputs: Iterable[Path] = ()) -> None:
    """Write ``data`` to ``path`` atomically (readers see the old file or the new one),
    never over anything :func:`check_output` refuses."""
    path = check_output(Path(path), inputs)
    ensure_writable_dir(path.parent)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:  # named by its target, never by a temporary file's name
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        failpoints.reached("atomic.temp_written")
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    failpoints.reached("atomic.renamed")


def make_dir_public(path: Path) -> None:
    """Give a folder made by mkdtemp (mode 0700) the permissions a plain mkdir would."""
    os.chmod(path, 0o777 & ~_umask())


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_text(path: Path, text: str, inputs: Iterable[Path] = ()) -> None:
    """Write UTF-8 ``text`` to ``path`` atomically (see :func:`write_bytes`)."""
    write_bytes(path, text.encode("utf-8"), inputs)


def _owner_is_gone(folder: Path) -> bool:
    try:
        fd = os.open(folder / OWNER, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    try:
        return locks.try_lock(fd)
    finally:
        os.close(fd)


def remove_stale_staging(parent: Path, kind: str) -> list[Path]:
    """Remove the staging folders of ``kind`` in ``parent`` left by killed processes."""
    removed = []
    for path in sorted(Path(parent).glob(f".{kind}.*")):
        if path.is_symlink() or not path.is_dir():
            continue
        if path.name.endswith(STAGING_SUFFIX):
            stale = _owner_is_gone(path)
        else:  # killed before it took ownership
            stale = time.time() - path.stat().st_mtime > UNOWNED_GRACE_SECONDS
        if stale:
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


@contextlib.contextmanager
def owned_staging(parent: Path, kind: str) -> Iterator[Path]:
    """A fresh folder ``parent/.<kind>.<random>.staging``, owned while this process lives.

    Leftovers of killed processes of the same kind are removed first. The folder is
    removed on exit, whether the block succeeded or not.
    """
    parent = Path(parent)
    ensure_writable_dir(parent)
    remove_stale_staging(parent, kind)
    try:
        fresh = Path(tempfile.mkdtemp(prefix=f".{kind}.", suffix=".new", dir=parent))
    except OSError as exc:
        raise UsageError(f"cannot write into {parent}: {exc.strerror or exc}") from None
    fd = os.open(fresh / OWNER, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                 | os.O_CLOEXEC, 0o600)
    locks.lock(fd)
    stage = fresh.with_name(fresh.name.removesuffix(".new") + STAGING_SUFFIX)
    os.rename(fresh, stage)  # only now visible as a staging folder, already locked
    make_dir_public(stage)
    failpoints.reached("staging.created")
    try:
        yield stage
    finally:
        shutil.rmtree(stage, ignore_errors=True)
        os.close(fd)


@contextlib.contextmanager
def replaced_dir(target: Path, kind: str, marker: str | None = None) -> Iterator[Path]:
    """Yield an empty folder; on success it replaces ``target`` as a whole.

    The swap is two renames inside a staging folder (the old ``target`` moves in, the new
    folder moves out), so ``target`` is always the old folder or the new one, never a
    mixture; after a crash between the renames it is absent and the next run removes the
    leftovers. With ``marker``, an existing non-empty ``target`` must hold that file (it
    was written by the same command): nothing else is ever replaced.
    """
    target = Path(target)
    parent = target.parent if str(target.parent) else Path(".")
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        raise UsageError(f"{target} exists and is not a folder")
    if marker is not None and target.is_dir() and any(target.iterdir()) \
            and not (target / marker).is_file():
        raise UsageError(f"refusing to replace {target}: it is not empty and holds no "
                         f"{marker} (it was not written by this command); choose another "
                         "folder or empty it")
    with owned_staging(parent, kind) as stage:
        out = stage / "output"
        out.mkdir()
        make_dir_public(out)
        yield out
        failpoints.reached("staging.filled")
        if target.exists():
            os.rename(target, stage / "previous")
            failpoints.reached("staging.old_moved_aside")
        os.rename(out, target)
