"""Reading input that may come from a stranger: files, gzip streams and JSON text.

Every reader here is bounded by what it actually reads, never by what the file system
claims: a FIFO or a device is refused before a byte is read (the open never blocks), a
file is read in chunks up to a byte limit, gzip output is decompressed in chunks up to a
limit, and a gzip stream must be exactly one member with nothing after it. JSON is parsed
strictly: no NaN/Infinity literals, no duplicate object keys, no byte-order mark, and an
integer literal too large for a double is read as an infinity, so that the finiteness
check that follows reports it with its JSON path instead of an overflow deep in numpy.

Parsing is refused *before* it starts when it could need more memory than its budget
(:func:`parse_cost`): the bytes, the decoded text and the parsed strings at the width
Python stores them (1, 2 or 4 bytes a character: one emoji makes a whole string 4 bytes
a character), plus the objects each value and each object member become.

Errors are :class:`InputProblem` with a plain message; callers wrap them in the error of
their layer (a submission's ``SubmissionInvalid``, a board's ``InvalidInputError``).

Text a stranger wrote (an HTTP reason phrase, a server's message, a name read from a file)
goes into a message through :func:`printable`, so that it cannot drive the terminal.
"""

from __future__ import annotations

import json
import json.scanner
import os
import re
import stat
import zlib
from pathlib import Path
from typing import Any

from icgbench.io.unprintable import character_class

GZIP_MAGIC = b"\x1f\x8b"
CHUNK = 1 << 20
#: Decimal digits of the largest finite double (1.797...e308): an integer literal with
#: more digits is beyond it; one with exactly as many is converted and checked.
_MAX_FINITE_DIGITS = 309
#: Parsing cost beyond the text, in bytes, of each list item or member (a comma) and of
#: each object member (a colon): measured worst cases are 72 (an empty object in a list)
#: and about 210 more for a member with a unique key (key, pair, dict entry).
BYTES_PER_ITEM = 72
BYTES_PER_MEMBER = 216
#: Parsing may use this many bytes of memory per byte of the size limit.
MEMORY_PER_BYTE_LIMIT = 8
#: Lead bytes of UTF-8 characters above U+00FF (2 bytes each in a str) and above U+FFFF (4).
_BELOW_WIDE = bytes(range(0xC4))
_BELOW_ASTRAL = bytes(range(0xF0))
_ESCAPE = re.compile(rb"\\u")
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89abAB]")
#: Longest name or value quoted back in a message.
SHOWN_CHARS = 200


class InputProblem(ValueError):
    """Input that cannot be read safely or correctly; ``kind`` is size, parse or type."""

    def __init__(self, message: str, kind: str = "parse") -> None:
        super().__init__(message)
        self.kind = kind


class DuplicateKey(InputProblem):
    """A JSON object with a key twice; ``key`` is the key (see :func:`duplicate_key_line`)."""

    def __init__(self, key: str) -> None:
        super().__init__(f"duplicate object key {shown(key)!r}")
        self.key = key


#: What :func:`printable` escapes: every character of :mod:`icgbench.io.unprintable`
#: (controls, format characters, private use, lone surrogates, line and paragraph
#: separators, tags); :func:`printable_lines` keeps the newline and the tab.
_UNPRINTABLE = re.compile(character_class())
_UNPRINTABLE_IN_LINES = re.compile(character_class("\n\t"))
_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escaped(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    return _NAMED_ESCAPES.get(char) or (f"\\x{code:02x}" if code <= 0xFF else
                                        f"\\u{code:04x}" if code <= 0xFFFF else
                                        f"\\U{code:08x}")


def printable(text: str) -> str:
    """``text`` safe to print on a terminal, on one line, with nothing hidden.

    Every character that could move the cursor, change colours, set a window title, end
    the line, hide or reorder what is shown is replaced by a visible escape, as Python
    writes it in a string literal: Unicode's categories Cc, Cf, Co, Cs, Zl and Zp and the
    tag block (:mod:`icgbench.io.unprintable`): the C0 and C1 controls (a newline becomes
    ``\\n``, a carriage return ``\\r``, a tab ``\\t``, ESC ``\\x1b``), the bidirectional
    controls (``\\u202e``), zero-width spaces and joiners (``\\u200b``), the byte order
    mark (``\\ufeff``), tag characters (``\\U000e0041``) and lone surrogates. Other text,
    backslashes included, is left as it is. Use it on anything a stranger wrote (an HTTP
    reason phrase, a server's error text, a name read from an archive) before it goes into
    a message.
    """
    return _UNPRINTABLE.sub(_escaped, text)


def printable_lines(text: str) -> str:
    """As :func:`printable`, but the line breaks and tabs are kept: for text made of
    lines (a command's output), whose untrusted parts went through :func:`printable`."""
    return _UNPRINTABLE_IN_LINES.sub(_escaped, text)


def shown(text: str, limit: int = SHOWN_CHARS) -> str:
    """``text`` cut to ``limit`` characters for a message (``...`` and the count omitted)."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text) - limit} more characters)"


def existing_file(path: Path, what: str = "file") -> Path:
    """``path`` when it is a regular file, for readers that take a path (pyarrow, pandas);
    a UsageError naming it when it is missing, an InvalidInputError when it is not a file."""
    from icgbench.errors import InvalidInputError, UsageError

    try:
        return regular_file(path)
    except FileNotFoundError:
        raise UsageError(f"missing {what} {path}") from None
    except InputProblem as problem:
        raise InvalidInputError(f"{what}: {problem}") from None


def kind_of(mode: int) -> str:
    """What a file of ``mode`` is, in words ("a FIFO (named pipe)", "a folder", ...)."""
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a symbolic link")):
        if test(mode):
            return name
    return "not a regular file"


def regular_file(path: Path) -> Path:
    """``path`` if it is a regular file (or a link to one), for readers that take a path
    (pyarrow, pandas); FileNotFoundError when missing, InputProblem when not a file."""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        raise FileNotFoundError(path) from None
    except OSError as exc:
        raise InputProblem(f"cannot read {path}: {exc.strerror or exc}", "type") from None
    if not stat.S_ISREG(mode):
        raise InputProblem(f"{path} is {kind_of(mode)}; only regular files are read", "type")
    return Path(path)


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
            raise InputProblem(f"{path} is {kind_of(mode)}; only regular files are read",
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


def char_width(data: bytes) -> int:
    """Bytes a character of the str that UTF-8 ``data`` decodes to (Python's 1, 2 or 4)."""
    if data.isascii():
        return 1
    wide = data.translate(None, _BELOW_WIDE)
    if not wide:
        return 1
    return 4 if wide.translate(None, _BELOW_ASTRAL) else 2


def _escape_width(data: bytes) -> int:
    """The widest character a ``\\u`` escape in ``data`` may stand for (1 without any)."""
    if not _ESCAPE.search(data):
        return 1
    return 4 if _SURROGATE_ESCAPE.search(data) else 2


class CostMeter:
    """The running :func:`parse_cost` of a document read in pieces."""

    def __init__(self) -> None:
        self.size = self.items = self.members = 0
        self.text = self.strings = 1
        self._tail = b""

    def add(self, block: bytes) -> int:
        """Count ``block`` in; the cost of everything so far."""
        self.size += len(block)
        self.items += block.count(b",")
        self.members += block.count(b":")
        self.text = max(self.text, char_width(block))
        self.strings = max(self.strings, self.text, _escape_width(block),
                           _escape_width(self._tail + block[:6]))
        self._tail = block[-6:]
        return self.cost

    @property
    def cost(self) -> int:
        return ((1 + self.text + self.strings) * self.size + BYTES_PER_ITEM * (self.items + 1)
                + BYTES_PER_MEMBER * self.members)


def parse_cost(data: bytes) -> int:
    """An upper estimate of the memory, in bytes, that parsing ``data`` as JSON needs.

    The bytes, the decoded text and every parsed string at the width Python stores them
    (one wide character widens the whole text, a ``\\u`` escape the strings), plus each
    value and object member.
    """
    return CostMeter().add(data)


def memory_budget(max_bytes: int) -> int:
    """The parsing budget that goes with a size limit (documented: 8 times the limit)."""
    return MEMORY_PER_BYTE_LIMIT * max_bytes


def _over_budget(cost: int, budget: int) -> InputProblem:
    return InputProblem(f"parsing this document would need about {cost} bytes of memory, "
                        f"over the limit of {budget}", "size")


def gunzip(data: bytes, max_bytes: int, max_memory: int | None = None) -> bytes:
    """One gzip member, decompressed in chunks up to ``max_bytes``, with nothing after it.

    With ``max_memory``, stops as soon as parsing what was decompressed so far would need
    more memory than that (a compressed bomb is refused before it is inflated).
    """
    decompressor = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    chunks: list[bytes] = []
    size = 0
    meter = CostMeter()
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
            if max_memory is not None and meter.add(block) > max_memory:
                raise _over_budget(meter.cost, max_memory)
            chunks.append(block)
            if not block and not pending:
                break
    except zlib.error as exc:  # "Error -3 while decompressing data: <zlib's reason>"
        raise InputProblem(f"not valid gzip data ({str(exc).rsplit(': ', 1)[-1]})") from None
    if not decompressor.eof:
        raise InputProblem("truncated gzip data")
    if decompressor.unused_data:
        raise InputProblem(f"{len(decompressor.unused_data)} byte(s) after the end of the gzip "
                           "stream (a second member or trailing data); write one gzip member "
                           "and nothing else")
    return b"".join(chunks)


def _decode(data: bytes) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputProblem(f"not valid UTF-8 at byte offset {exc.start} ({exc.reason})"
                           ) from None
    if text.startswith("\ufeff"):
        raise InputProblem("starts with a byte-order mark; write UTF-8 without BOM")
    return text


def read_json(data: bytes, max_bytes: int, *, max_string: int | None = None,
              gzipped: bool = True) -> Any:
    """A document from file bytes: gunzipped if gzip (and ``gzipped``), parsed strictly,
    within the size limit and its memory budget (:func:`memory_budget`)."""
    budget = memory_budget(max_bytes)
    if gzipped and data[:2] == GZIP_MAGIC:
        return _parse(_decode(gunzip(data, max_bytes, budget)), max_string)
    if len(data) > max_bytes:
        raise InputProblem(f"{len(data)} bytes, over the limit of {max_bytes}", "size")
    return loads(data, max_memory=budget, max_string=max_string)


#: What a NaN or Infinity literal is told (scorer.messages shows the same words).
CONSTANT_MESSAGE = ("{name} is not valid JSON: every number must be finite (R: replace NA and "
                    "NaN before writing, or leave the value's block out)")


def _reject_constant(name: str) -> Any:
    raise InputProblem(CONSTANT_MESSAGE.format(name=name))


def _members(max_string: int | None) -> Any:
    """The object hook: refuses duplicate keys and, with ``max_string``, long strings."""

    def members(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out = dict(pairs)
        if len(out) != len(pairs):
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    raise DuplicateKey(key)
                seen.add(key)
        if max_string is not None:
            for key, value in pairs:
                if len(key) > max_string or (type(value) is str and len(value) > max_string):
                    long = key if len(key) > max_string else value
                    raise InputProblem(f"a string of {len(long)} characters (in the member "
                                       f"{shown(key, 60)!r}) is over the limit of "
                                       f"{max_string}", "size")
        return out

    return members


def _integer(text: str) -> int | float:
    """An integer literal; one too large for a double becomes a signed infinity."""
    negative = text.startswith("-")
    if len(text) - negative > _MAX_FINITE_DIGITS:
        return float("-inf") if negative else float("inf")
    value = int(text)
    try:
        float(value)
    except OverflowError:
        return float("-inf") if negative else float("inf")
    return value


def loads(data: bytes, *, max_memory: int | None = None, max_string: int | None = None
          ) -> Any:
    """Strictly parse UTF-8 JSON bytes (see the module docstring for the rules).

    With ``max_memory``, refuses before parsing a document whose :func:`parse_cost` is
    over it; with ``max_string``, an object key or member value longer than that.
    """
    if max_memory is not None:
        cost = parse_cost(data)
        if cost > max_memory:
            raise _over_budget(cost, max_memory)
    return _parse(_decode(data), max_string)


def _parse(text: str, max_string: int | None = None) -> Any:
    try:
        return json.loads(text, object_pairs_hook=_members(max_string),
                          parse_constant=_reject_constant, parse_int=_integer)
    except json.JSONDecodeError as exc:
        what = exc.msg.removesuffix(" at")  # "Unterminated string starting at"
        raise InputProblem(f"not valid JSON: {what} at line {exc.lineno} column "
                           f"{exc.colno}") from None
    except InputProblem:
        raise
    except RecursionError:
        raise InputProblem("JSON nested too deeply") from None
    except ValueError as exc:
        raise InputProblem(str(exc)) from None


#: The longest text :func:`duplicate_key_line` searches (it parses in pure Python).
MAX_LOCATED_CHARS = 16 * 1024 * 1024


def duplicate_key_line(text: str) -> int | None:
    """The line of the first duplicate object key in the JSON ``text``, or None.

    "First" is the duplicate the strict parser reports (objects are checked as they close,
    their members in order); the line is that of the repeated member's value. For error
    messages only: it parses again, in pure Python, so it gives up (None) on a text over
    :data:`MAX_LOCATED_CHARS` or one it cannot parse.
    """
    if len(text) > MAX_LOCATED_CHARS:
        return None

    class Found(Exception):
        def __init__(self, position: int) -> None:
            self.position = position

    decoder = json.JSONDecoder()

    def parse_object(s_and_end: Any, strict: bool, scan_once: Any, object_hook: Any,
                     pairs_hook: Any, memo: Any = None) -> tuple[dict[str, Any], int]:
        starts: list[int] = []

        def scan(string: str, index: int) -> Any:
            starts.append(index)
            return scan_once(string, index)

        pairs, end = json.decoder.JSONObject(s_and_end, strict, scan, None, list, memo)
        seen: set[str] = set()
        for (key, _), start in zip(pairs, starts, strict=False):
            if key in seen:
                raise Found(start)
            seen.add(key)
        return dict(pairs), end

    decoder.parse_object = parse_object  # type: ignore[assignment]
    scan_once = json.scanner.py_make_scanner(decoder)
    try:
        scan_once(text, len(text) - len(text.lstrip(" \t\n\r")))
    except Found as found:
        return text.count("\n", 0, found.position) + 1
    except (ValueError, StopIteration, RecursionError):
        return None
    return None


def lone_surrogate(text: str) -> int | None:
    """Index of the first lone surrogate in ``text`` (not valid Unicode), else None."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return exc.start
    return None
