"""What a tar archive's headers may cost, checked before :mod:`tarfile` reads them.

tarfile reads an extended header (pax, or a GNU long name) into memory whole, whatever its
declared size; it reads the header after each extended one by recursion (about 400 pax
global headers in a row overflowed the stack); and it parses GNU sparse maps without a
bound. :func:`check_headers` walks the headers of the decompressed stream first, with the
public :meth:`tarfile.TarInfo.frombuf`, and refuses an extended header over
:data:`MAX_HEADER_BYTES`, more than :data:`MAX_EXTENDED_HEADERS` of them in a row, and any
sparse member, before tarfile reads the archive at all. It steps from header to header as
tarfile does (a pax ``size`` record moves the next header; only a regular or unknown
member's data is skipped), so the two read the same headers; where the walk cannot read a
header, tarfile stops there too and says what is wrong. The cost is a second
decompression of the archive (``benchmarks/bench_archive.py`` prints its share).
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import re
import tarfile
from pathlib import Path
from typing import BinaryIO

from icgbench.errors import InvalidInputError

#: The largest pax or GNU long-name header read (a genuine archive's take a few hundred
#: bytes; tarfile would read any size into memory at once).
MAX_HEADER_BYTES = 64 * 1024
#: The most extended headers read in a row, before the member they describe (a genuine
#: archive needs at most a global header and a member's own).
MAX_EXTENDED_HEADERS = 8

BLOCK = tarfile.BLOCKSIZE
_PAX = (tarfile.XHDTYPE, tarfile.XGLTYPE, tarfile.SOLARIS_XHDTYPE)
_EXTENDED = (*_PAX, tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK)
_RECORD = re.compile(rb"(\d+) ([^=]+)=")
_SPARSE = "archive holds a sparse member; it is not a release archive"


def _padded(size: int) -> int:
    """``size`` rounded up to whole blocks, as the archive stores it."""
    return -(-size // BLOCK) * BLOCK


def _pax_records(payload: bytes) -> dict[bytes, bytes] | None:
    """The ``length keyword=value`` records of a pax header, as tarfile parses them; None
    where tarfile would refuse the header (a zero length)."""
    records: dict[bytes, bytes] = {}
    pos = 0
    while match := _RECORD.match(payload, pos):
        length = int(match.group(1))
        if length == 0:
            return None
        records[match.group(2)] = payload[match.end(2) + 1:match.start(1) + length - 1]
        pos += length
    return records


def _size(value: bytes) -> int:
    """A pax ``size`` value as tarfile reads it (0 where it is not a number)."""
    try:
        return int(value.decode("utf-8", "surrogateescape"))
    except ValueError:
        return 0


def check_headers(stream: BinaryIO) -> None:
    """Walk the headers of the decompressed tar ``stream``; InvalidInputError on an
    oversized extended header, a long run of them or a sparse member."""
    offset, in_a_row = 0, 0
    global_records: dict[bytes, bytes] = {}
    chain: dict[bytes, bytes] | None = None  # the records the chain's first pax header sees
    while True:
        try:
            info = tarfile.TarInfo.frombuf(stream.read(BLOCK), "utf-8", "surrogateescape")
        except tarfile.HeaderError:  # the end, or a header tarfile refuses or stops at
            return
        if info.type == tarfile.GNUTYPE_SPARSE:
            raise InvalidInputError(_SPARSE)
        if info.type in _EXTENDED:
            if info.size > MAX_HEADER_BYTES:
                raise InvalidInputError(
                    f"archive has an extended header of {info.size} bytes at offset {offset} "
                    f"(at most {MAX_HEADER_BYTES} are read); it is not a release archive")
            if in_a_row >= MAX_EXTENDED_HEADERS:
                raise InvalidInputError(
                    f"archive has over {MAX_EXTENDED_HEADERS} extended headers in a row (at "
                    f"offset {offset}); it is not a release archive")
            in_a_row += 1
            payload = stream.read(_padded(info.size))
            offset += BLOCK + len(payload)
            if info.type in _PAX:
                records = _pax_records(payload)
                if records is None:
                    return
                if any(key.startswith(b"GNU.sparse") for key in records):
                    raise InvalidInputError(_SPARSE)
                if info.type == tarfile.XGLTYPE:
                    global_records.update(records)
                    chain = global_records if chain is None else chain
                elif chain is None:
                    chain = {**global_records, **records}
            continue
        size = info.size
        if chain is not None and b"size" in chain:
            size = _size(chain[b"size"])
        skip = _padded(size) if info.isreg() or info.type not in tarfile.SUPPORTED_TYPES else 0
        stream.seek(skip, io.SEEK_CUR)
        offset += BLOCK + skip
        in_a_row, chain = 0, None


def decompressed(path: Path) -> BinaryIO:
    """``path`` opened as tarfile's ``r:*`` mode reads it: a plain tar when its first block
    is a header, else by its compression's magic bytes (gzip, bzip2, xz)."""
    with open(path, "rb") as f:
        head = f.read(BLOCK)
    try:
        tarfile.TarInfo.frombuf(head, "utf-8", "surrogateescape")
    except tarfile.HeaderError:
        if head.startswith(b"\x1f\x8b"):
            return gzip.open(path, "rb")
        if head.startswith(b"BZh"):
            return bz2.open(path, "rb")
        if head.startswith(b"\xfd7zXZ\x00"):
            return lzma.open(path, "rb")
    return open(path, "rb")
