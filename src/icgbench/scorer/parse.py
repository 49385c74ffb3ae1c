"""Reading a submission file: regular files only, size and memory limits, strict JSON.

Rejected with a clear message: anything but a regular file (a FIFO, a device, a folder),
files or decompressed contents over the size limit (64 MiB by default, counted as read),
gzip that is not exactly one member, documents whose parsing would need more than 8 times
the size limit in memory (counting each string at the width Python stores it), an object
member whose string is over 65,536 characters, non-UTF-8 bytes, invalid JSON, NaN/Infinity
literals and duplicate object keys (see :mod:`icgbench.io.untrusted`). Numbers too large for
a double are caught later, with their JSON path.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from icgbench.errors import UsageError
from icgbench.io import untrusted
from icgbench.scorer.errors import SubmissionInvalid

#: The largest submission read by default, as a file and again decompressed: a full-tier
#: submission with every block is about 2 MB; pass a larger ``max_bytes`` (``--max-bytes``)
#: for a cohort of hundreds of thousands of subjects simulated on the fly.
DEFAULT_MAX_BYTES = 64 * 1024 * 1024
#: The longest string an object member may hold (the longest the schema allows is the
#: model's description, 2,000 characters): a longer one is refused while parsing.
MAX_STRING_CHARS = 65_536
GZIP_MAGIC = untrusted.GZIP_MAGIC


def _invalid(problem: untrusted.InputProblem) -> SubmissionInvalid:
    return SubmissionInvalid([f"/: {problem}"], problem.kind)


def read_file(path: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes:
    """The bytes of a submission file (a usage error when it is missing or not a file)."""
    try:
        return untrusted.read_regular(Path(path), max_bytes)
    except FileNotFoundError:
        raise UsageError(f"no such file: {path}") from None
    except untrusted.InputProblem as problem:
        if problem.kind == "type":
            raise UsageError(str(problem)) from None
        raise SubmissionInvalid([f"/: file is over the limit of {max_bytes} bytes"],
                                "size") from None


def read_document(data: bytes, max_bytes: int = DEFAULT_MAX_BYTES) -> Any:
    """The parsed document of submission file bytes (gzip or plain)."""
    try:
        return untrusted.read_json(data, max_bytes, max_string=MAX_STRING_CHARS)
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


def parse_json(data: bytes, max_bytes: int = DEFAULT_MAX_BYTES) -> Any:
    """Strictly parse JSON bytes within the memory budget of ``max_bytes``; every failure
    is a SubmissionInvalid naming where."""
    try:
        return untrusted.loads(data, max_memory=untrusted.memory_budget(max_bytes),
                               max_string=MAX_STRING_CHARS)
    except untrusted.InputProblem as problem:
        raise _invalid(problem) from None
