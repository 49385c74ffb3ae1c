"""The characters no message shows as they are: Unicode's control, format, private-use and
surrogate categories (Cc, Cf, Co, Cs), the line and paragraph separators (Zl, Zp), and the
whole tag block (U+E0000-U+E007F). Zero-width spaces and joiners, the byte order mark, the
bidirectional controls, soft hyphens and tag characters are all among them: each can hide
or reorder what a reader sees.

The ranges are data (:data:`RANGES`, Unicode 14.0 as Python 3.11 has it), so Python, the
leaderboard page and the R package escape the same characters: ``make contract`` publishes
them in ``schemas/checker/facts.json``; ``python -m icgbench.io.unprintable`` prints them
computed afresh from :mod:`unicodedata` (a test holds the two equal).
"""

from __future__ import annotations

import json
import sys
import unicodedata

CATEGORIES = ("Cc", "Cf", "Co", "Cs", "Zl", "Zp")
TAG_BLOCK = (0xE0000, 0xE007F)

#: (first, last) code points, inclusive, in order.
RANGES: tuple[tuple[int, int], ...] = (
    (0x0, 0x1F), (0x7F, 0x9F), (0xAD, 0xAD), (0x600, 0x605), (0x61C, 0x61C), (0x6DD, 0x6DD),
    (0x70F, 0x70F), (0x890, 0x891), (0x8E2, 0x8E2), (0x180E, 0x180E), (0x200B, 0x200F),
    (0x2028, 0x202E), (0x2060, 0x2064), (0x2066, 0x206F), (0xD800, 0xF8FF), (0xFEFF, 0xFEFF),
    (0xFFF9, 0xFFFB), (0x110BD, 0x110BD), (0x110CD, 0x110CD), (0x13430, 0x13438),
    (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0000, 0xE007F), (0xF0000, 0xFFFFD),
    (0x100000, 0x10FFFD),
)


def computed() -> tuple[tuple[int, int], ...]:
    """:data:`RANGES` from this Python's :mod:`unicodedata`."""
    out: list[tuple[int, int]] = []
    start = None
    for code in range(sys.maxunicode + 2):
        hidden = code <= sys.maxunicode and (
            unicodedata.category(chr(code)) in CATEGORIES
            or TAG_BLOCK[0] <= code <= TAG_BLOCK[1])
        if hidden and start is None:
            start = code
        elif not hidden and start is not None:
            out.append((start, code - 1))
            start = None
    return tuple(out)


def character_class(keep: str = "") -> str:
    """A regular-expression character class of :data:`RANGES`, less the characters
    ``keep``."""
    parts = []
    for first, last in RANGES:
        parts.append(f"\\U{first:08x}" if first == last else f"\\U{first:08x}-\\U{last:08x}")
    body = "".join(parts)
    if not keep:
        return f"[{body}]"
    kept = "".join(f"\\U{ord(c):08x}" for c in keep)
    return f"(?![{kept}])[{body}]"


if __name__ == "__main__":
    print(json.dumps(computed()))
