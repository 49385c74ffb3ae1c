"""The page's reference lines (ceiling and oracle) ship for the full tier: the shipped rows
are used only where they are the board's release's and the grading code's, are exactly what
grading gives now, and a stale or altered file is graded around, never shown."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from icgbench.api.tables import tier_descriptor
from icgbench.cli import main
from icgbench.leaderboard import references
from icgbench.leaderboard.store import load_board
from leaderboard_helpers import submission_file

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _fresh_cache():
    references.shipped_lines.cache_clear()
    yield
    references.shipped_lines.cache_clear()


@pytest.mark.drift
def test_the_shipped_lines_are_the_grading_codes_and_cover_the_full_tier():
    """Written by the code that grades now (else the public board's first render grades
    420 cohorts: `python -m icgbench.leaderboard.references` rewrites the file)."""
    shipped = references.shipped_lines()
    d = tier_descriptor("full")
    assert set(shipped) == {(c["variant"], c["seed"]) for c in d.cohorts()}
    assert {e.release_fingerprint for rows in shipped.values() for e in rows} == {
        d.fingerprint()}
    assert all([e.model_name for e in rows] == list(references.truth_readers())
               for rows in shipped.values())


@pytest.mark.slow
@pytest.mark.drift
def test_the_shipped_lines_are_what_grading_gives_now():
    board = load_board(ROOT / "leaderboard", new_tier=None).entries
    shipped = references.oracle_entries(board)
    references.shipped_lines.cache_clear()
    graded = references._graded({(e.variant_name, e.seed): {e.release_fingerprint}
                                 for e in board})
    assert shipped == sorted(graded, key=lambda e: (e.variant_name, e.seed,
                                                    references.truth_readers().index(
                                                        e.model_name)))


def _one_cohort_board(tmp_path: Path) -> list:
    folder = tmp_path / "board"
    assert main(["leaderboard", "add", str(submission_file(tmp_path, "random", "linear_lowhet")),
                 "--dir", str(folder), "--tier", "small"]) == 0
    return load_board(folder, new_tier=None).entries


def test_rows_of_another_release_are_graded_again(tmp_path, monkeypatch):
    """A shipped row whose fingerprint is not the board's (here: altered) is not shown:
    the cohort is graded from its release instead."""
    entries = _one_cohort_board(tmp_path)
    graded = references.oracle_entries(entries)
    assert [e.model_name for e in graded] == list(references.truth_readers())
    forged = tuple(dataclasses.replace(e, scores={"summary": {"overall": 1.0}},
                                       release_fingerprint="sha256:" + "0" * 64)
                   for e in graded)
    monkeypatch.setattr(references, "shipped_lines", lambda: {("linear_lowhet", 0): forged})
    assert references.oracle_entries(entries) == graded
    right = tuple(dataclasses.replace(e, notes="shipped") for e in graded)
    monkeypatch.setattr(references, "shipped_lines", lambda: {("linear_lowhet", 0): right})
    assert [e.notes for e in references.oracle_entries(entries)] == ["shipped"] * len(graded)


@pytest.mark.parametrize("change", ["digest", "entries", "not json"])
def test_a_stale_or_broken_file_ships_nothing(tmp_path, monkeypatch, change):
    doc = {"code_digest": references.code_digest(), "tier": "full", "entries": [
        json.loads(SHIPPED_ROW)]}
    if change == "digest":
        doc["code_digest"] = "sha256:" + "1" * 64
    elif change == "entries":
        doc["entries"] = [{"variant_name": "linear_lowhet"}]
    path = tmp_path / "reference_lines.json"
    path.write_text("{" if change == "not json" else json.dumps(doc))
    monkeypatch.setattr(references, "SHIPPED", path)
    assert references.shipped_lines() == {}


def test_a_file_written_by_this_code_ships_its_rows(tmp_path, monkeypatch):
    doc = {"code_digest": references.code_digest(), "tier": "full",
           "entries": [json.loads(SHIPPED_ROW)]}
    path = tmp_path / "reference_lines.json"
    path.write_text(json.dumps(doc))
    monkeypatch.setattr(references, "SHIPPED", path)
    assert [e.model_name for e in references.shipped_lines()[("linear_lowhet", 1)]] == [
        "ceiling"]


def test_the_digest_follows_the_grading_code_only(tmp_path, monkeypatch):
    """A change to a grading module changes the digest; one to the page's does not."""
    package = tmp_path / "icgbench"
    for part in ("tasks", "leaderboard"):
        (package / part).mkdir(parents=True)
        (package / part / "x.py").write_text("A = 1\n")
    fake = package / "leaderboard" / "references.py"
    fake.write_text("")
    monkeypatch.setattr(references, "__file__", str(fake))
    before = references.code_digest()
    (package / "leaderboard" / "x.py").write_text("A = 2\n")
    assert references.code_digest() == before
    (package / "tasks" / "x.py").write_text("A = 2\n")
    assert references.code_digest() != before


SHIPPED_ROW = json.dumps({
    "schema_version": "0.2", "submitted_at": "", "tier": "full",
    "variant_name": "linear_lowhet", "variant_hash": "0" * 12, "model_name": "ceiling",
    "package_version": "0.6.0", "scores": {"summary": {"overall": 0.5}},
    "notes": "reads the truth", "seed": 1, "data_version": "7.1.0",
    "release_fingerprint": "sha256:" + "2" * 64, "submission_path": "",
    "submission_sha256": ""})
