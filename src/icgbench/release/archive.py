"""Release archives: ``pack`` a tier into a reproducible tar.gz; ``install`` one safely.

A downloaded archive is checked member by member against the committed descriptor
(exact bytes and SHA-256) while it is unpacked into a staging folder; only a complete,
exact archive is installed, file by file with atomic renames. A corrupt, truncated or
tampered archive, an unexpected or missing member, or a member whose path would escape
the target folder is refused and nothing is left behind. What an archive's headers may
cost is bounded before tarfile reads them (:mod:`icgbench.release.tar_headers`), and every
member name quoted in a message is cut to 200 characters. Whatever tarfile still fails on
is reported in one line, as a corrupt archive.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import io
import os
import tarfile
import zlib
from pathlib import Path, PurePosixPath

from icgbench.errors import InvalidInputError, UsageError, UserError
from icgbench.io import untrusted
from icgbench.io.atomic import check_output, owned_staging, write_bytes
from icgbench.release import descriptor as descriptors
from icgbench.release.descriptor import Descriptor
from icgbench.release.tar_headers import check_headers

DESCRIPTOR_MEMBER = "datapackage.json"
CHUNK = 1 << 20


def quoted_name(name: str) -> str:
    """A member name as a message quotes it: escaped and cut to 200 characters."""
    return repr(untrusted.shown(name))


def _committed(descriptor: Descriptor) -> bytes:
    """The committed descriptor's bytes (a regular file, bounded)."""
    try:
        return descriptors.read_bytes(descriptor.path)
    except (OSError, untrusted.InputProblem) as exc:
        raise UsageError(f"cannot read release descriptor {descriptor.path}: {exc}") from None


def pack(descriptor: Descriptor, out: Path) -> Path:
    """Write the tier's descriptor and files as a reproducible tar.gz at ``out``.

    Every file is checked against the descriptor first, so an archive never carries an
    altered file under the release's name.
    """
    from icgbench.release.files import checked_bytes

    check_output(out, pack_inputs(descriptor), "archive")
    missing = [str(descriptor.base / r.path) for r in descriptor.resources
               if not (descriptor.base / r.path).exists()]
    if missing:
        raise UsageError(f"cannot pack: {len(missing)} file(s) missing, first {missing[0]} "
                         "(build the tier first: icgbench data build)")
    readers = {DESCRIPTOR_MEMBER: functools.partial(_committed, descriptor),
               **{r.path: functools.partial(checked_bytes, descriptor, r)
                  for r in descriptor.resources}}
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name in sorted(readers):
            data = readers[name]()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mtime = 0
            info.mode = 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))
    compressed = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=compressed, mtime=0) as gz:
        gz.write(raw.getvalue())
    write_bytes(out, compressed.getvalue(), pack_inputs(descriptor))
    return out


def pack_inputs(descriptor: Descriptor) -> list[Path]:
    """The files ``pack`` reads: the descriptor and every file it lists."""
    return [descriptor.path, *(descriptor.base / r.path for r in descriptor.resources)]


def archive_limit(descriptor: Descriptor) -> int:
    """The most bytes a genuine archive of ``descriptor`` can take (tar headers, padding)."""
    members = len(descriptor.resources) + 1
    content = sum(r.bytes for r in descriptor.resources) + descriptor.path.stat().st_size
    return 2 * (content + 1024 * members) + (1 << 20)


def safe_member_name(name: str) -> bool:
    """A member name that stays inside the folder it is unpacked into."""
    path = PurePosixPath(name)
    return bool(name) and not path.is_absolute() and ".." not in path.parts and "\\" not in name


def unpack_verified(archive: Path, descriptor: Descriptor, stage: Path) -> None:
    """Extract ``archive`` into ``stage``, checking every member against ``descriptor``."""
    expected = {r.path: r for r in descriptor.resources}
    seen: set[str] = set()
    try:
        with gzip.open(archive, "rb") as stream:
            check_headers(stream)
        with tarfile.open(archive, mode="r:gz") as tar:
            for member in tar:
                name = member.name
                if not safe_member_name(name):
                    raise InvalidInputError(f"archive member {quoted_name(name)} would escape the "
                                            "target folder")
                if not member.isfile():
                    raise InvalidInputError(f"archive member {quoted_name(name)} is not a regular "
                                            "file")
                if name in seen:
                    raise InvalidInputError(f"archive member {quoted_name(name)} appears twice")
                seen.add(name)
                source = tar.extractfile(member)
                assert source is not None
                if name == DESCRIPTOR_MEMBER:
                    committed = _committed(descriptor)
                    if member.size != len(committed) or source.read() != committed:
                        raise InvalidInputError("the archive's datapackage.json differs from "
                                                "the committed descriptor")
                    continue
                if name not in expected:
                    raise InvalidInputError(f"archive member {quoted_name(name)} is not in the "
                                            "descriptor")
                r = expected[name]
                if member.size != r.bytes:
                    raise InvalidInputError(f"archive member {quoted_name(name)} declares "
                                            f"{member.size} bytes; the descriptor says "
                                            f"{r.bytes} (nothing was written)")
                digest, size = hashlib.sha256(), 0
                target = stage / name
                target.parent.mkdir(parents=True, exist_ok=True)
                with open(target, "wb") as out:
                    while block := source.read(CHUNK):
                        digest.update(block)
                        size += len(block)
                        out.write(block)
                if size != r.bytes or "sha256:" + digest.hexdigest() != r.hash:
                    raise InvalidInputError(f"archive member {name!r} does not match the "
                                            f"descriptor ({size} bytes, sha256:"
                                            f"{digest.hexdigest()}; expected {r.bytes} bytes, "
                                            f"{r.hash})")
    except RecursionError:  # a nesting no bound above foresaw: refused all the same
        raise InvalidInputError(f"corrupt archive {quoted_name(archive.name)}: its headers are "
                                "nested too deeply") from None
    except UserError:  # a member refused above: its own message
        raise
    except (tarfile.TarError, EOFError, OSError, gzip.BadGzipFile, zlib.error,
            ValueError) as exc:  # ValueError: tarfile parses some header fields unchecked
        raise InvalidInputError(f"corrupt or truncated archive {quoted_name(archive.name)}: "
                                f"{untrusted.printable(untrusted.shown(str(exc)))}") from None
    missing = sorted(set(expected) - seen)
    if missing:
        raise InvalidInputError(f"archive lacks {len(missing)} file(s) of the release, first "
                                f"{quoted_name(missing[0])}")


def install(archive: Path, descriptor: Descriptor, dest: Path) -> Path:
    """Verify ``archive`` against ``descriptor`` and install its files into ``dest``.

    Nothing is installed unless every member matches; files are then moved in one by one
    with atomic renames, and the committed descriptor is written beside them.
    """
    targets = [dest / r.path for r in descriptor.resources] + [dest / DESCRIPTOR_MEMBER]
    for target in targets:
        check_output(target, [archive], what="installed file")
    with owned_staging(dest, "download") as stage:
        unpacked = stage / "files"
        unpacked.mkdir()
        unpack_verified(archive, descriptor, unpacked)
        for r in descriptor.resources:
            target = dest / r.path
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(unpacked / r.path, target)
        if (dest / DESCRIPTOR_MEMBER).resolve() != descriptor.path.resolve():
            write_bytes(dest / DESCRIPTOR_MEMBER, _committed(descriptor))
    return dest
