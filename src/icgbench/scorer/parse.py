"""Reading a submission file: regular files only, size and memory limits, strict JSON.

Rejected with a clear message: anything but a regular file (a FIFO, a device, a folder),
files or decompressed contents over the size limit (counted as read), gzip that is not
exactly one member, documents whose parsing would need more than 8 times the size limit
in memory, non-UTF-8 bytes, invalid JSON, NaN/Infinity literals and duplicate object keys
(see :mod:`icgbench.untrusted`). Numbers too large for a double are caught later, with
their JSON path.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from icgbench import untrusted
from icgbench.errors import UsageError
from icgbench.scorer.errors import SubmissionInvalid

DEFAULT_MAX_BYTES = 512 * 1024 * 1024
GZIP_MAGIC = untrusted.GZIP_MAGIC


def _invalid(problem: untrusted.InputProblem) -> SubmissionInvalid:
    return SubmissionInvalid([f"$: {problem}"], problem.kind)


def read_file(path: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes:
    """The bytes of a submission file (a usage error when it is missing or not a file)."""
    try:
        return untrusted.read_regular(Path(path), max_bytes)
    except FileNotFoundError:
        raise UsageError(f"no such file: {path}") from None
    except untrusted.InputProblem as problem:
        if problem.kind == "type":
            raise UsageError(str(problem)) from None
        raise SubmissionInvalid([f"$: file is over the limit of {max_bytes} bytes"],
                                "size") from None


def read_document(data: bytes, max_bytes: int = DEFAULT_MAX_BYTES) -> Any:
    """The parsed document of submission file bytes (gzip or plain)."""
    try:
        return untrusted.read_json(data, max_bytes)
    except untrusted.InputProblem as problem:
        raise _invalid(problem) from None


def json_bytes(data: bytes, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes:
    """The JSON text of submission file bytes, gunzipped when needed."""
    try:
        if data[:2] == GZIP_MAGIC:
            return untrusted.gunzip(data, max_bytes, untrusted.memory_budget(max_bytes))
        return data
    except untrusted.InputProblem as problem:
        raise _invalid(problem) from None


def parse_json(data: bytes) -> Any:
    """Strictly parse JSON bytes; every failure is a SubmissionInvalid naming where."""
    try:
        return untrusted.loads(data)
    except untrusted.InputProblem as problem:
        raise _invalid(problem) from None
