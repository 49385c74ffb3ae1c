"""Issue 49, item 14: escaping by Unicode category. 151 invisible characters (zero-width
spaces, the byte order mark, tag characters, ...) went through ``printable``; now every
character of Cc, Cf, Co, Cs, Zl, Zp and the tag block is escaped, from one table that
Python, the page's facts and the R package share."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

from icgbench.io.unprintable import CATEGORIES, RANGES, computed
from icgbench.io.untrusted import printable, printable_lines

ROOT = Path(__file__).resolve().parents[1]


def test_the_table_is_what_unicodedata_gives():
    assert computed() == RANGES


def test_every_hidden_character_is_escaped_and_nothing_else():
    hidden = [c for first, last in RANGES for c in range(first, last + 1)]
    assert len(hidden) > 100_000  # private use included
    for code in [*hidden[::97], 0x200B, 0xFEFF, 0xE0041, 0x202E, 0x2060, 0xAD]:
        assert printable(chr(code)).startswith("\\"), hex(code)
    for code in range(0x20, 0x3000):
        if unicodedata.category(chr(code)) not in CATEGORIES:
            assert printable(chr(code)) == chr(code), hex(code)
    assert printable("a\u200bb\U000e0041") == "a\\u200bb\\U000e0041"
    assert printable_lines("x\ty\nz\u200b") == "x\ty\nz\\u200b"


def test_the_page_and_r_read_the_same_table():
    facts = json.loads((ROOT / "schemas" / "checker" / "facts.json").read_text())
    assert [tuple(r) for r in facts["unprintable"]] == list(RANGES)


def test_a_command_prints_a_hidden_character_escaped(tmp_path, capsys):
    from icgbench.cli import main

    path = tmp_path / "x\u200by.json"
    path.write_text("{")
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out
    assert "x\\u200by.json" in out and "\u200b" not in out
