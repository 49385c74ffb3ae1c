"""Reading the files of a release folder: regular files only, bounded, hash-checked.

A release folder may come from anywhere (a download, a copy, a tampered checkout), so its
files are read like any hostile input: a FIFO, a device or a folder where a file should
be is refused before a byte is read (a FIFO would hang the reader, ``/dev/zero`` would
fill the memory), and a file is read only up to :data:`SLACK_FACTOR` times the size the
descriptor gives it (another pyarrow may write the same content a little larger; nothing
legitimate is twice as large).
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import zlib
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from icgbench.errors import InvalidInputError, UsageError
from icgbench.io import untrusted
from icgbench.release import encode
from icgbench.release.descriptor import Descriptor, Resource

log = logging.getLogger(__name__)

#: A release file larger than this many times its descriptor size is altered.
SLACK_FACTOR = 2
#: ... and so is one more than this many bytes over it (for tiny files).
SLACK_BYTES = 1 << 20
#: Bytes inflated at a time when a gzip stream is hashed.
CHUNK = 1 << 20

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
    path = os.path.join(d.base, r.path)
    try:
        return untrusted.read_regular(path, size_bound(r))
    except untrusted.InputProblem as problem:
        if problem.kind == "size":
            raise untrusted.InputProblem(f"altered: {path} is over {size_bound(r)} bytes; "
                                         f"expected {r.bytes} bytes, {r.hash}", "size"
                                         ) from None
        raise


#: A tampered file is decoded only up to this many bytes per byte its descriptor gives it
#: (a genuine release file decodes to at most about 20 times its size).
DECODED_FACTOR = 64


def decoded_limit(r: Resource) -> int:
    """The most bytes ``r``'s content may decode to (CSV text, or Arrow columns)."""
    return DECODED_FACTOR * r.bytes + SLACK_BYTES


def csv_gz_digest(data: bytes, limit: int) -> str | None:
    """``sha256:<hex>`` of the text in gzip ``data`` (members in turn), decompressed and
    hashed in chunks; None when it is not gzip or holds more than ``limit`` bytes."""
    digest, size, pending = hashlib.sha256(), 0, data
    try:
        while pending:
            inflate = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
            while not inflate.eof:
                block = inflate.decompress(pending, CHUNK) if pending else inflate.flush()
                pending = inflate.unconsumed_tail
                size += len(block)
                if size > limit:
                    return None
                digest.update(block)
                if not block and not pending:
                    return None  # truncated
            pending = inflate.unused_data
    except zlib.error:
        return None
    return "sha256:" + digest.hexdigest()


def _string_bytes(column: pa.ChunkedArray) -> int:
    """Bytes the strings of ``column`` take once decoded (counted without decoding)."""
    total = 0
    for chunk in column.chunks:
        if pa.types.is_dictionary(chunk.type):
            lengths = pc.binary_length(chunk.dictionary)
            total += pc.sum(pc.take(lengths, chunk.indices)).as_py() or 0
        else:
            total += chunk.nbytes
    return total


def _parquet_digest(r: Resource, data: bytes, schema: dict[str, Any]) -> str | None:
    """The content digest of Parquet ``data`` when its footer and decoded size fit ``r``."""
    metadata = pq.read_metadata(encode.parquet_source(data))
    limit = decoded_limit(r)
    stored = sum(metadata.row_group(g).column(c).total_uncompressed_size
                 for g in range(metadata.num_row_groups) for c in range(metadata.num_columns))
    if metadata.num_rows != r.rows or stored > limit:
        return None
    arrow = metadata.schema.to_arrow_schema()
    texts = [f.name for f in arrow if pa.types.is_string(f.type)
             or pa.types.is_large_string(f.type)]
    table = pq.ParquetFile(encode.parquet_source(data), read_dictionary=texts).read()
    fixed = sum(table[n].nbytes for n in table.column_names if n not in texts)
    if fixed + sum(_string_bytes(table[n]) for n in texts) > limit:
        return None
    return encode.content_digest(encode.conform(table, schema, r.name), schema)


def content_matches(r: Resource, data: bytes, schema: dict[str, Any]) -> bool:
    """True when ``data`` holds the frozen content of ``r`` though its bytes differ (a Parquet
    file written by another pyarrow, a .csv.gz compressed by another zlib).

    What a tampered file may cost is bounded: a row count other than the descriptor's, or
    content that would decode to more than :func:`decoded_limit`, does not match.
    """
    try:
        if r.format == "parquet":
            return _parquet_digest(r, data, schema) == r.content_digest
        return csv_gz_digest(data, decoded_limit(r)) == r.csv_sha256
    except Exception:  # any unreadable file simply does not match
        return False


def _same_content(r: Resource, data: bytes) -> bool:
    from icgbench import contract

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
