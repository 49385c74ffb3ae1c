"""What the command line writes cannot drive the terminal or forge a line of a CI log.

Every message may quote something a stranger wrote: a file name, a value of a submission, a
model's language, a server's reason phrase. The CLI's standard output and error are
wrapped in :class:`PrintableStream`, which escapes visibly every character
:func:`.untrusted.printable` escapes except the line breaks and tabs the messages
themselves are made of (an escape sequence, a C1 control, a right-to-left override). A
value that could hold a line break of its own (a file name) goes through
:func:`.untrusted.printable` where the message is written, so it stays on its line.
"""

from __future__ import annotations

import contextlib
import io
import sys
from collections.abc import Iterator
from typing import TextIO

from icgbench.io.untrusted import printable_lines


class PrintableStream(io.TextIOBase):
    """A text stream that writes ``printable_lines(text)`` to ``raw``."""

    def __init__(self, raw: TextIO) -> None:
        self.raw = raw

    def write(self, text: str) -> int:
        self.raw.write(printable_lines(text))
        return len(text)

    def flush(self) -> None:
        self.raw.flush()

    def isatty(self) -> bool:
        return self.raw.isatty()

    def fileno(self) -> int:
        return self.raw.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.raw, "encoding", "utf-8")

    def writable(self) -> bool:
        return True


def unfiltered(stream: TextIO) -> TextIO:
    """The stream under a :class:`PrintableStream` (a progress bar draws with escapes)."""
    return stream.raw if isinstance(stream, PrintableStream) else stream


@contextlib.contextmanager
def printable_streams() -> Iterator[None]:
    """Standard output and error wrapped in :class:`PrintableStream` for the block."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = PrintableStream(sys.stdout), PrintableStream(sys.stderr)
    try:
        yield
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        sys.stdout, sys.stderr = saved
