"""docs/baselines.md's sections computed from the board are what ``icgbench bench report``
gives on the committed board today."""

from __future__ import annotations

import shutil

import pytest

from conftest import ROOT
from icgbench.bench import board_report
from icgbench.cli import main

pytestmark = pytest.mark.slow


def test_the_board_sections_of_the_baselines_page_are_regenerated_byte_for_byte(
        full_tier_root, tmp_path, capsys):
    page = tmp_path / "baselines.md"
    shutil.copy(ROOT / "docs" / "baselines.md", page)
    assert main(["bench", "report", "--dir", str(ROOT / "leaderboard"), "--out",
                 str(page)]) == 0
    made = board_report.sections(ROOT / "leaderboard", 1, 1, 1)  # lazy: names only
    assert f"rewrote {len(made)} section(s)" in capsys.readouterr().out
    assert all(f"<!-- generated: {name} ({board_report.LABEL}) -->" in page.read_text()
               for name in made)
    assert page.read_text() == (ROOT / "docs" / "baselines.md").read_text()


def test_a_page_without_the_markers_is_a_usage_error(tmp_path, capsys):
    page = tmp_path / "page.md"
    page.write_text("no sections here\n")
    assert main(["bench", "report", "--dir", str(ROOT / "leaderboard"), "--out",
                 str(page)]) == 2
    assert "no section 'power'" in capsys.readouterr().err
    assert page.read_text() == "no sections here\n"
