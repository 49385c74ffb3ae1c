"""Reading a submission file: size limit, optional gzip, strict UTF-8, strict JSON.

Rejected with a clear message: files (or decompressed contents) over the size limit,
non-UTF-8 bytes, invalid JSON, the non-standard NaN/Infinity literals and duplicate object
keys. Numbers too large for a double are caught later, with their JSON path.
"""

from __future__ import annotations

import gzip
import json
import zlib
from pathlib import Path
from typing import Any

from icgbench.errors import UsageError
from icgbench.scorer.errors import SubmissionInvalid

DEFAULT_MAX_BYTES = 512 * 1024 * 1024
GZIP_MAGIC = b"\x1f\x8b"


def read_bytes(path: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> tuple[bytes, bytes]:
    """(file bytes, JSON bytes gunzipped if needed), within ``max_bytes``."""
    path = Path(path)
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise UsageError(f"no such file: {path}") from None
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    if path.is_dir():
        raise UsageError(f"{path} is a folder, not a submission file")
    if size > max_bytes:
        raise SubmissionInvalid([f"$: file is {size} bytes, over the limit of {max_bytes}"],
                                "size")
    data = path.read_bytes()
    return data, gunzip(data, max_bytes) if data[:2] == GZIP_MAGIC else data


def gunzip(data: bytes, max_bytes: int) -> bytes:
    """Decompress gzip data, refusing output over ``max_bytes`` (no gzip bombs)."""
    decompressor = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    try:
        out = decompressor.decompress(data, max_bytes + 1)
        if len(out) > max_bytes or decompressor.unconsumed_tail:
            raise SubmissionInvalid([f"$: decompressed content is over the limit of "
                                     f"{max_bytes} bytes"], "size")
        out += decompressor.flush()
        if not decompressor.eof:
            raise SubmissionInvalid(["$: truncated gzip data"], "parse")
    except (zlib.error, gzip.BadGzipFile, EOFError) as exc:
        raise SubmissionInvalid([f"$: not valid gzip data ({exc})"], "parse") from None
    return out


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON (use a finite number or null)")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate object key {key!r}")
        out[key] = value
    return out


def parse_json(data: bytes) -> Any:
    """Strictly parse JSON bytes; every failure is a SubmissionInvalid naming where."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SubmissionInvalid([f"$: not valid UTF-8 at byte offset {exc.start} ({exc.reason})"],
                                "parse") from None
    if text.startswith("\ufeff"):
        raise SubmissionInvalid(["$: starts with a byte-order mark; write UTF-8 without BOM"],
                                "parse")
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates,
                          parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise SubmissionInvalid([f"$: not valid JSON: {exc.msg} at line {exc.lineno} "
                                 f"column {exc.colno}"], "parse") from None
    except ValueError as exc:
        raise SubmissionInvalid([f"$: {exc}"], "parse") from None
    except RecursionError:
        raise SubmissionInvalid(["$: JSON nested too deeply"], "parse") from None
