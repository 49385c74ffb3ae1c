"""Writes that are all-or-nothing: a temporary file in the same folder, then a rename."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from icgbench.errors import UsageError


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


def write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (readers see the old file or the new one)."""
    path = Path(path)
    ensure_writable_dir(path.parent)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def make_dir_public(path: Path) -> None:
    """Give a folder made by mkdtemp (mode 0700) the permissions a plain mkdir would."""
    os.chmod(path, 0o777 & ~_umask())


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_text(path: Path, text: str) -> None:
    """Write UTF-8 ``text`` to ``path`` atomically."""
    write_bytes(path, text.encode("utf-8"))


@contextlib.contextmanager
def staged_dir(target: Path) -> Iterator[Path]:
    """Yield a fresh temporary folder beside ``target``; on success move its files in.

    Each file lands in ``target`` by an atomic rename, so a reader never sees a partial
    file; on failure the staging folder is removed and ``target`` is left untouched.
    """
    target = Path(target)
    ensure_writable_dir(target.parent if target.parent != Path("") else Path("."))
    try:
        stage = Path(
            tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".staging", dir=target.parent)
        )
    except OSError as exc:
        raise UsageError(f"cannot write into {target.parent}: {exc.strerror or exc}") from None
    make_dir_public(stage)
    try:
        yield stage
        ensure_writable_dir(target)
        for item in sorted(stage.rglob("*")):
            if item.is_file():
                dest = target / item.relative_to(stage)
                dest.parent.mkdir(parents=True, exist_ok=True)
                os.replace(item, dest)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
