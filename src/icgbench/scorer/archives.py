"""A model's submissions packed in one archive (``.zip``, ``.tar``, ``.tar.gz``, ``.tgz``).

``validate``, ``score`` and ``leaderboard add`` take an archive where they take a folder: its
submission files (``*.json``, ``*.json.gz``, wherever they sit in the archive; never a
``*.report.json``) are unpacked into a private temporary folder named after the archive and
checked there as if named one by one. An archive comes from a stranger as often as a file
does, so what unpacking it may cost is bounded before anything is written: at most
:data:`MAX_MEMBERS` members, each submission at most the command's ``--max-bytes`` as read
(a zip member that inflates beyond its declared size is cut off, not trusted), at most
:data:`MAX_TOTAL_BYTES` in all. Links, devices, names that would leave the folder, and two
submissions of one name are refused; tar headers are read with the release archives'
bounds (:class:`icgbench.release.archive.BoundedTarInfo`). Other members (a README) are
passed over.
"""

from __future__ import annotations

import gzip
import tarfile
import zipfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from icgbench.errors import InvalidInputError
from icgbench.io.untrusted import printable, shown
from icgbench.release.archive import BoundedTarInfo, quoted_name, safe_member_name

ARCHIVE_SUFFIXES = (".zip", ".tar", ".tar.gz", ".tgz")
#: The most members read from one archive (a model's submissions on the full tier are 360 files).
MAX_MEMBERS = 1024
#: The most bytes unpacked from one archive in all.
MAX_TOTAL_BYTES = 4 * 1024 ** 3
CHUNK = 1 << 20


def is_archive(path: Path) -> bool:
    """A name of the archive kinds taken (by suffix, as the page and the docs say)."""
    return path.name.lower().endswith(ARCHIVE_SUFFIXES)


def unpack_submissions(archive: Path, into: Path, is_submission_name: Callable[[Path], bool],
                       max_bytes: int) -> list[Path]:
    """The submission members of ``archive``, written into the new folder ``into`` (flat, by
    their base names, in name order); InvalidInputError saying what is wrong otherwise."""
    into.mkdir(parents=True)
    where = printable(str(archive))
    written: dict[str, Path] = {}
    total = 0
    try:
        for count, (name, kind, source) in enumerate(_members(archive), start=1):
            if count > MAX_MEMBERS:
                raise InvalidInputError(f"{where}: more than {MAX_MEMBERS} members; an archive "
                                        "of one model's submissions holds a few dozen")
            base = PurePosixPath(name).name
            if not is_submission_name(Path(base)):
                continue
            if not safe_member_name(name):
                raise InvalidInputError(f"{where}: member {quoted_name(name)} would leave the "
                                        "folder it is unpacked into")
            if kind != "file":
                raise InvalidInputError(f"{where}: member {quoted_name(name)} is a {kind}, not a "
                                        "regular file")
            if base in written:
                raise InvalidInputError(f"{where}: two submissions named {quoted_name(base)}")
            target = into / base
            total += _copy_bounded(source(), target, max_bytes, f"{where}: member "
                                   f"{quoted_name(name)}")
            if total > MAX_TOTAL_BYTES:
                raise InvalidInputError(f"{where}: more than {MAX_TOTAL_BYTES} bytes unpacked")
            written[base] = target
    except RecursionError:
        raise InvalidInputError(f"{where}: corrupt archive (headers nested too deeply)"
                                ) from None
    except (tarfile.TarError, zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError,
            gzip.BadGzipFile, zlib.error, ValueError, NotImplementedError) as exc:
        raise InvalidInputError(f"{where}: corrupt or truncated archive: "
                                f"{printable(shown(str(exc)))}") from None
    if not written:
        raise InvalidInputError(f"{where}: an archive with no submission file (*.json, "
                                "*.json.gz; *.report.json is a score report)")
    return [written[name] for name in sorted(written)]


def _members(archive: Path) -> Iterator[tuple[str, str, Callable[[], BinaryIO | None]]]:
    """(name, kind, opener) of each member: kind is "file", "link", "folder" or "special"."""
    if archive.name.lower().endswith(".zip"):
        with zipfile.ZipFile(archive) as z:
            for info in z.infolist():
                mode = info.external_attr >> 16
                kind = ("folder" if info.is_dir() else
                        "link" if (mode & 0o170000) == 0o120000 else
                        "file" if (mode & 0o170000) in (0, 0o100000) else "special")
                yield info.filename, kind, (lambda info=info: z.open(info))
        return
    with tarfile.open(archive, mode="r:*", tarinfo=BoundedTarInfo) as tar:
        for member in tar:
            kind = ("file" if member.isfile() else "folder" if member.isdir() else
                    "link" if member.issym() or member.islnk() else "special")
            yield member.name, kind, (lambda member=member: tar.extractfile(member))


def _copy_bounded(source: BinaryIO | None, target: Path, max_bytes: int, what: str) -> int:
    """Copy at most ``max_bytes`` of ``source`` to ``target``; refuse a longer member."""
    size = 0
    with source as stream, open(target, "xb") as out:
        while block := stream.read(CHUNK):
            size += len(block)
            if size > max_bytes:
                raise InvalidInputError(f"{what} is larger than {max_bytes} bytes (--max-bytes)")
            out.write(block)
    return size


