"""``icgbench.io.untrusted.printable``: text a stranger wrote, made safe for a terminal.

Every class of character it must escape is checked one by one, with the escape it gives;
ordinary text (accents, CJK, emoji, backslashes) passes unchanged.
"""

from __future__ import annotations

import pytest

from icgbench.io.untrusted import printable

C0 = [chr(c) for c in range(0x00, 0x20)]
C1 = [chr(c) for c in range(0x80, 0xA0)]
BIDI = ["\u061c", "\u200e", "\u200f", *map(chr, range(0x202A, 0x202F)),
        *map(chr, range(0x2066, 0x206A))]
SEPARATORS = ["\u2028", "\u2029"]


def _expected(char: str) -> str:
    named = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
    code = ord(char)
    return named.get(char) or (f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}")


@pytest.mark.parametrize("char", [*C0, "\x7f", *C1, *BIDI, *SEPARATORS],
                         ids=lambda c: f"U+{ord(c):04X}")
def test_every_control_character_is_escaped_visibly(char):
    shown = printable(f"a{char}b")
    assert shown == f"a{_expected(char)}b"
    assert shown.isprintable() and shown.isascii()


@pytest.mark.parametrize("text, expected", [
    ("\x1b[2J\x1b]0;title\x07", "\\x1b[2J\\x1b]0;title\\x07"),  # clear screen, set a title
    ("\x9b31m", "\\x9b31m"),                                      # C1 CSI: red, one byte
    ("line one\nline two\r\n", "line one\\nline two\\r\\n"),      # one line, always
    ("\x00\x08\x7f", "\\x00\\x08\\x7f"),                          # NUL, backspace, DEL
    ("abc\u202edcba.exe", "abc\\u202edcba.exe"),                  # right-to-left override
    ("\u2066x\u2069 \u200f\u061c", "\\u2066x\\u2069 \\u200f\\u061c"),
    ("a\u2028b\u2029c", "a\\u2028b\\u2029c"),
    ("bad byte \udcff", "bad byte \\udcff"),                      # surrogateescape residue
])
def test_sequences_are_escaped(text, expected):
    assert printable(text) == expected


@pytest.mark.parametrize("text", [
    "", "HTTP 404 Not Found", "caf\u00e9 na\u00efve \u00a0nbsp", "\u6f22\u5b57 \U0001f600",
    "C:\\Users\\me\\icg.tar.gz", "\\x1b is four characters here",
])
def test_ordinary_text_is_left_as_it_is(text):
    assert printable(text) == text
