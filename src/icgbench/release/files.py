"""Reading the files of a release folder: regular files only, bounded, hash-checked.

A release folder may come from anywhere (a download, a copy, a tampered checkout), so its
files are read like any hostile input: a FIFO, a device or a folder where a file should
be is refused before a byte is read (a FIFO would hang the reader, ``/dev/zero`` would
fill the memory), and a file is read only up to :data:`SLACK_FACTOR` times the size the
descriptor gives it (another pyarrow may write the same content a little larger; nothing
legitimate is twice as large).
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from icgbench import untrusted
from icgbench.errors import InvalidInputError, UsageError
from icgbench.release import encode
from icgbench.release.descriptor import Descriptor, Resource

log = logging.getLogger(__name__)

#: A release file larger than this many times its descriptor size is altered.
SLACK_FACTOR = 2
#: ... and so is one more than this many bytes over it (for tiny files).
SLACK_BYTES = 1 << 20

_UNSAFE = re.compile(r"(^/|^\\|\.\.|^[A-Za-z]:)")


def safe_relative(path: str) -> bool:
    """True for a path that stays inside the release folder (no ``..``, not absolute)."""
    return not _UNSAFE.search(path)


def size_bound(r: Resource) -> int:
    """The most bytes read of ``r``'s file before it is called altered."""
    return max(SLACK_FACTOR * r.bytes, r.bytes + SLACK_BYTES)


def read_resource(d: Descriptor, r: Resource) -> bytes:
    """The bytes of ``r``'s file, unchecked; FileNotFoundError when missing, else
    InputProblem for an unsafe path, a file that is not regular or one far too large."""
    if not safe_relative(r.path):
        raise untrusted.InputProblem(f"unsafe path {untrusted.shown(r.path)!r}", "type")
    path = d.base / r.path
    try:
        return untrusted.read_regular(path, size_bound(r))
    except untrusted.InputProblem as problem:
        if problem.kind == "size":
            raise untrusted.InputProblem(f"altered: {path} is over {size_bound(r)} bytes; "
                                         f"expected {r.bytes} bytes, {r.hash}", "size"
                                         ) from None
        raise


def regular_file(path: Path, what: str = "release file") -> Path:
    """``path`` when it is a regular file, for readers that take a path (pyarrow, pandas);
    a UsageError naming it when it is missing, an InvalidInputError when it is not a file."""
    try:
        return untrusted.regular_file(path)
    except FileNotFoundError:
        raise UsageError(f"missing {what} {path}") from None
    except untrusted.InputProblem as problem:
        raise InvalidInputError(f"{what}: {problem}") from None


def _same_content(r: Resource, data: bytes) -> bool:
    from icgbench import contract
    from icgbench.release.verify import content_matches

    return content_matches(r, data, contract.table_schema(r.table))


def checked_bytes(d: Descriptor, r: Resource) -> bytes:
    """The bytes of one release file, after checking them against the descriptor (its
    SHA-256, or for bytes another writer produced, its content)."""
    path = d.base / r.path
    try:
        data = read_resource(d, r)
    except FileNotFoundError:
        hint = ("" if d.tier == "small" else
                f"; build it with `icgbench data build --tier {d.tier}` or download it")
        raise UsageError(f"missing release file {path}{hint}") from None
    except untrusted.InputProblem as problem:
        raise InvalidInputError(f"release file {r.name}: {problem}; run `icgbench data "
                                "verify`") from None
    if encode.sha256_bytes(data) != r.hash and not _same_content(r, data):
        raise InvalidInputError(f"release file {path} does not match the descriptor "
                                "(altered or corrupt); run `icgbench data verify`")
    log.debug("read %s (%d bytes, hash checked)", path, len(data))
    return data
