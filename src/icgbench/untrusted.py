"""Reading input that may come from a stranger: files, gzip streams and JSON text.

Every reader here is bounded by what it actually reads, never by what the file system
claims: a FIFO or a device is refused before a byte is read (the open never blocks), a
file is read in chunks up to a byte limit, gzip output is decompressed in chunks up to a
limit, and a gzip stream must be exactly one member with nothing after it. JSON is parsed
strictly: no NaN/Infinity literals, no duplicate object keys, no byte-order mark, and an
integer literal too large for a double is read as an infinity, so that the finiteness
check that follows reports it with its JSON path instead of an overflow deep in numpy.

Errors are :class:`InputProblem` with a plain message; callers wrap them in the error of
their layer (a submission's ``SubmissionInvalid``, a board's ``InvalidInputError``).
"""

from __future__ import annotations

import json
import os
import stat
import zlib
from pathlib import Path
from typing import Any

GZIP_MAGIC = b"\x1f\x8b"
CHUNK = 1 << 20
#: Decimal digits beyond which an integer literal cannot be a finite double (10**309 > max).
_MAX_FINITE_DIGITS = 309
#: Parsing cost: bytes of Python objects per JSON value, a deliberately high estimate (a
#: float in a list takes about 36 bytes, a subject id about 65 with its text counted twice).
BYTES_PER_VALUE = 40
#: Parsing may use this many bytes of memory per byte of the size limit.
MEMORY_PER_BYTE_LIMIT = 8


class InputProblem(ValueError):
    """Input that cannot be read safely or correctly; ``kind`` is size, parse or type."""

    def __init__(self, message: str, kind: str = "parse") -> None:
        super().__init__(message)
        self.kind = kind


def _kind_of(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a symbolic link")):
        if test(mode):
            return name
    return "not a regular file"


def read_regular(path: Path, max_bytes: int, *, follow_symlinks: bool = True) -> bytes:
    """The bytes of a regular file, refusing anything else and anything over ``max_bytes``.

    Opens without blocking (a FIFO cannot hang the reader) and, with
    ``follow_symlinks=False``, refuses a symbolic link as the last path component.
    Raises FileNotFoundError for a missing file, InputProblem for everything else.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC
    if not follow_symlinks:
        flags |= os.O_NOFOLLOW
        if stat.S_ISLNK(os.lstat(path).st_mode):
            raise InputProblem(f"{path} is a symbolic link; only regular files are read",
                               "type")
    try:
        fd = os.open(path, flags)
    except (FileNotFoundError, NotADirectoryError):
        raise FileNotFoundError(path) from None
    except IsADirectoryError:
        raise InputProblem(f"{path} is a folder, not a file", "type") from None
    except OSError as exc:
        raise InputProblem(f"cannot open {path}: {exc.strerror or exc}", "type") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise InputProblem(f"{path} is {_kind_of(mode)}; only regular files are read",
                               "type")
        chunks, total = [], 0
        while True:
            block = os.read(fd, min(CHUNK, max_bytes + 1 - total))
            if not block:
                break
            chunks.append(block)
            total += len(block)
            if total > max_bytes:
                raise InputProblem(f"{path} is over the limit of {max_bytes} bytes", "size")
        return b"".join(chunks)
    finally:
        os.close(fd)


def parse_cost(data: bytes) -> int:
    """An upper estimate of the memory, in bytes, that parsing ``data`` as JSON needs."""
    values = data.count(b",") + data.count(b":") + 1
    return 2 * len(data) + BYTES_PER_VALUE * values


def memory_budget(max_bytes: int) -> int:
    """The parsing budget that goes with a size limit (documented: 8 times the limit)."""
    return MEMORY_PER_BYTE_LIMIT * max_bytes


def _over_budget(cost: int, budget: int) -> InputProblem:
    return InputProblem(f"parsing this document would need about {cost} bytes of memory, "
                        f"over the limit of {budget} (8 x the size limit)", "size")


def gunzip(data: bytes, max_bytes: int, max_memory: int | None = None) -> bytes:
    """One gzip member, decompressed in chunks up to ``max_bytes``, with nothing after it.

    With ``max_memory``, stops as soon as parsing what was decompressed so far would need
    more memory than that (a compressed bomb is refused before it is inflated).
    """
    decompressor = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    chunks: list[bytes] = []
    size = cost = 0
    pending = data
    try:
        while not decompressor.eof:
            block = decompressor.decompress(pending, CHUNK) if pending else \
                decompressor.flush()
            pending = decompressor.unconsumed_tail
            size += len(block)
            if size > max_bytes:
                raise InputProblem(f"decompressed content is over the limit of {max_bytes} "
                                   "bytes", "size")
            if max_memory is not None:
                cost += parse_cost(block)
                if cost > max_memory:
                    raise _over_budget(cost, max_memory)
            chunks.append(block)
            if not block and not pending:
                break
    except zlib.error as exc:
        raise InputProblem(f"not valid gzip data ({exc})") from None
    if not decompressor.eof:
        raise InputProblem("truncated gzip data")
    if decompressor.unused_data:
        raise InputProblem(f"{len(decompressor.unused_data)} byte(s) after the end of the gzip "
                           "stream (a second member or trailing data); write one gzip member "
                           "and nothing else")
    return b"".join(chunks)


def read_json(data: bytes, max_bytes: int) -> Any:
    """A document from file bytes: gunzipped if gzip, parsed strictly, within the limits."""
    budget = memory_budget(max_bytes)
    if data[:2] == GZIP_MAGIC:
        return loads(gunzip(data, max_bytes, budget))
    if parse_cost(data) > budget:
        raise _over_budget(parse_cost(data), budget)
    return loads(data)


def _reject_constant(name: str) -> Any:
    raise InputProblem(f"{name} is not valid JSON (use a finite number or null)")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise InputProblem(f"duplicate object key {key!r}")
        out[key] = value
    return out


def _integer(text: str) -> int | float:
    """An integer literal; one too large for a double becomes a signed infinity."""
    if len(text.lstrip("-")) >= _MAX_FINITE_DIGITS:
        return float("-inf") if text.startswith("-") else float("inf")
    value = int(text)
    try:
        float(value)
    except OverflowError:
        return float("-inf") if value < 0 else float("inf")
    return value


def loads(data: bytes) -> Any:
    """Strictly parse UTF-8 JSON bytes (see the module docstring for the rules)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputProblem(f"not valid UTF-8 at byte offset {exc.start} ({exc.reason})"
                           ) from None
    if text.startswith("\ufeff"):
        raise InputProblem("starts with a byte-order mark; write UTF-8 without BOM")
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates,
                          parse_constant=_reject_constant, parse_int=_integer)
    except json.JSONDecodeError as exc:
        raise InputProblem(f"not valid JSON: {exc.msg} at line {exc.lineno} column "
                           f"{exc.colno}") from None
    except InputProblem:
        raise
    except RecursionError:
        raise InputProblem("JSON nested too deeply") from None
    except ValueError as exc:
        raise InputProblem(str(exc)) from None


def lone_surrogate(text: str) -> int | None:
    """Index of the first lone surrogate in ``text`` (not valid Unicode), else None."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return exc.start
    return None
