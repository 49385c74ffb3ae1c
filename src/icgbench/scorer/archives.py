"""A model's submissions packed in one archive (``.zip``, ``.tar``, ``.tar.gz``, ``.tgz``).

``validate``, ``score`` and ``leaderboard add`` take an archive where they take a folder: its
submission files (``*.json``, ``*.json.gz``, wherever they sit in the archive; never a
``*.report.json``) are unpacked into a private temporary folder named after the archive and
checked there as if named one by one. An archive comes from a stranger as often as a file
does, so what unpacking it may cost is bounded before anything is written: at most
:data:`MAX_MEMBERS` members, each submission at most the command's ``--max-bytes`` as read
(a zip member that inflates beyond its declared size is cut off, not trusted), at most
:data:`MAX_TOTAL_BYTES` in all. Links, devices, names that would leave the folder, and two
submissions of one name are refused; tar headers are checked with the release archives'
bounds first (:mod:`icgbench.release.tar_headers`). Other members (a README) are
passed over, and bounded too: a compressed tar stream is decompressed to pass over a
member, so each passed-over member may be at most :data:`MAX_SKIPPED_BYTES` (its header
says how large it is before any of it is read), and all of them together as much; a zip
member is never opened to be passed over. A zip's member count is read from its end
record before its central directory is, and an encrypted member is refused.
"""

from __future__ import annotations

import gzip
import tarfile
import zipfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from icgbench.errors import InvalidInputError, UserError
from icgbench.io.untrusted import printable, shown
from icgbench.release.archive import quoted_name, safe_member_name
from icgbench.release.tar_headers import check_headers, decompressed

ARCHIVE_SUFFIXES = (".zip", ".tar", ".tar.gz", ".tgz")
#: The most members read from one archive (a model's submissions on the full tier are 360 files).
MAX_MEMBERS = 1024
#: The most bytes unpacked from one archive in all.
MAX_TOTAL_BYTES = 4 * 1024 ** 3
#: The largest zip central directory read (a member's entry is 46 bytes and its name).
MAX_DIRECTORY_BYTES = MAX_MEMBERS * 1024
#: The most bytes of members that are not submissions (a README, a licence) passed over.
MAX_SKIPPED_BYTES = 16 * 1024 ** 2
CHUNK = 1 << 20
#: A zip's end-of-central-directory record: its signature, its size, and the longest comment
#: that may follow it.
_EOCD, _EOCD_SIZE, _MAX_COMMENT = b"PK\x05\x06", 22, 0xFFFF


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
    total = skipped = 0
    too_many = InvalidInputError(f"{where}: more than {MAX_MEMBERS} members; an archive of "
                                 "one model's submissions holds a few hundred at most")
    try:
        if archive.name.lower().endswith(".zip"):
            entries, directory = _zip_directory(archive)
            if entries > MAX_MEMBERS:
                raise too_many
            if directory > MAX_DIRECTORY_BYTES:
                raise InvalidInputError(f"{where}: its central directory is {directory} bytes "
                                        f"(at most {MAX_DIRECTORY_BYTES} for {MAX_MEMBERS} "
                                        "members)")
        for count, (name, kind, size, source) in enumerate(_members(archive), start=1):
            if count > MAX_MEMBERS:
                raise too_many
            base = PurePosixPath(name).name
            if not is_submission_name(Path(base)):
                skipped += size
                if skipped > MAX_SKIPPED_BYTES:
                    raise InvalidInputError(
                        f"{where}: its members that are not submissions (the last "
                        f"{quoted_name(name)}) hold more than {MAX_SKIPPED_BYTES} bytes")
                continue
            if not safe_member_name(name):
                raise InvalidInputError(f"{where}: member {quoted_name(name)} would leave the "
                                        "folder it is unpacked into")
            if kind == "encrypted":
                raise InvalidInputError(f"{where}: member {quoted_name(name)} is encrypted; "
                                        "pack the submissions without a password")
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
    except UserError:  # refused above with its own message
        raise
    except (tarfile.TarError, zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError,
            gzip.BadGzipFile, zlib.error, ValueError, NotImplementedError) as exc:
        raise InvalidInputError(f"{where}: corrupt or truncated archive: "
                                f"{printable(shown(str(exc)))}") from None
    if not written:
        raise InvalidInputError(f"{where}: an archive with no submission file (*.json, "
                                "*.json.gz; *.report.json is a score report)")
    return [written[name] for name in sorted(written)]


def _zip_directory(archive: Path) -> tuple[int, int]:
    """(members, central directory bytes) a zip's end record declares, read before zipfile
    reads the directory itself (a zip64 archive's 0xFFFF and 0xFFFFFFFF count as that
    large); (0, 0) where no record is found (zipfile then says what is wrong)."""
    with open(archive, "rb") as f:
        f.seek(0, 2)
        length = f.tell()
        start = max(0, length - _EOCD_SIZE - _MAX_COMMENT)
        f.seek(start)
        tail = f.read()
    at = tail.rfind(_EOCD)
    if at < 0 or len(tail) - at < _EOCD_SIZE:
        return 0, 0
    return (int.from_bytes(tail[at + 10:at + 12], "little"),
            int.from_bytes(tail[at + 12:at + 16], "little"))


def _members(archive: Path
             ) -> Iterator[tuple[str, str, int, Callable[[], BinaryIO | None]]]:
    """(name, kind, size, opener) of each member: kind is "file", "link", "folder" or
    "special"; size is the member's declared (uncompressed) size."""
    if archive.name.lower().endswith(".zip"):
        with zipfile.ZipFile(archive) as z:
            for info in z.infolist():
                mode = info.external_attr >> 16
                kind = ("folder" if info.is_dir() else
                        "link" if (mode & 0o170000) == 0o120000 else
                        "encrypted" if info.flag_bits & 0x1 else
                        "file" if (mode & 0o170000) in (0, 0o100000) else "special")
                yield info.filename, kind, info.file_size, (lambda info=info: z.open(info))
        return
    with decompressed(archive) as stream:
        check_headers(stream)
    with tarfile.open(archive, mode="r:*") as tar:
        for member in tar:
            kind = ("file" if member.isfile() else "folder" if member.isdir() else
                    "link" if member.issym() or member.islnk() else "special")
            yield member.name, kind, member.size, (lambda member=member: tar.extractfile(member))


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


