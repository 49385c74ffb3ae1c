"""A board carried to a new minor data release: ``leaderboard regrade`` and its history rule.

The base commit holds a board graded on an earlier minor release of this major one (its
entries say ``7.0.0`` and carry that release's scores). ``regrade`` rewrites only the
graded fields from the stored submissions; ``verify --base`` then holds every other field
and every stored file, and grades every entry again. A submission fitted on a compatible
earlier release validates as the current release's, and nothing else does.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from git_helpers import cloned, commit
from icgbench.cli import main
from icgbench.leaderboard.entry import GRADED, LeaderboardEntry
from icgbench.leaderboard.store import CSV_NAME, JSON_NAME, csv_text, json_text
from icgbench.release.descriptor import load_descriptor, public_digest
from icgbench.release.tiers import COMPATIBLE_RELEASES, DATA_VERSION, TIERS
from icgbench.scorer import SubmissionInvalid, check_submission
from leaderboard_helpers import submission_doc, submission_file, two_entry_repository

pytestmark = pytest.mark.usefixtures("no_board_figures")

ROOT = Path(__file__).resolve().parents[1]
EARLIER = next(iter(COMPATIBLE_RELEASES))


def _board(path: Path) -> dict:
    return json.loads((path / JSON_NAME).read_text())


def _rewrite(board: Path, change) -> None:
    doc = _board(board)
    for e in doc["entries"]:
        change(e)
    entries = [LeaderboardEntry.from_dict(e) for e in doc["entries"]]
    (board / JSON_NAME).write_text(json_text(doc["tier"], entries))
    (board / CSV_NAME).write_text(csv_text(entries))


def _as_earlier(entry: dict) -> None:
    """What the entry looked like graded on the earlier release: its version, another
    fingerprint, other risk scores."""
    entry["data_version"] = EARLIER
    entry["release_fingerprint"] = "sha256:" + "0" * 64
    risk = entry["scores"].get("risk_prediction")
    if risk:
        risk["auroc"] = 0.5


@pytest.fixture(scope="module")
def earlier(tmp_path_factory):
    """A repository whose base commit holds a two-entry board of the earlier release, and
    the entries as graded on this one."""
    repo, _ = two_entry_repository(tmp_path_factory)
    graded = _board(repo / "leaderboard")["entries"]
    _rewrite(repo / "leaderboard", _as_earlier)
    base = commit(repo, "a board of the earlier release")
    return repo, base, graded


@pytest.fixture
def clone(earlier, tmp_path):
    repo, base, graded = earlier
    return cloned(repo, tmp_path / "clone"), base, graded


def _verify(board: Path, base: str, capsys) -> tuple[int, str]:
    code = main(["leaderboard", "verify", "--dir", str(board), "--tier", "small", "--base",
                 base, "--jobs", "1"])
    return code, capsys.readouterr().out


def test_regrade_rewrites_only_the_graded_fields_and_the_history_holds(clone, capsys):
    repo, base, graded = clone
    board = repo / "leaderboard"
    before = _board(board)["entries"]
    code = main(["leaderboard", "regrade", "--dir", str(board), "--jobs", "1"])
    out = capsys.readouterr().out
    assert code == 0 and f"2 of 2 entries graded again on data release {DATA_VERSION}" in out
    after = _board(board)["entries"]
    assert after == graded  # exactly what grading on this release records
    for old, new in zip(before, after, strict=True):
        assert {k for k in old if old[k] != new[k]} <= set(GRADED)
    commit(repo, "regraded")
    assert _verify(board, base, capsys)[0] == 0
    again = main(["leaderboard", "regrade", "--dir", str(board), "--jobs", "1"])
    assert again == 0 and "0 of 2 entries" in capsys.readouterr().out  # nothing left


@pytest.mark.parametrize(("field", "value"), [
    ("notes", "rewritten"), ("submitted_at", "2026-01-01T00:00:00Z"), ("seed", 1)])
def test_a_regrade_that_changes_a_kept_field_fails_the_history(clone, capsys, field, value):
    repo, base, _ = clone
    board = repo / "leaderboard"
    assert main(["leaderboard", "regrade", "--dir", str(board), "--jobs", "1"]) == 0
    _rewrite(board, lambda e: e.update({field: value}) if e["model_name"] == "random" else 0)
    commit(repo, "regraded, and a field changed")
    code, out = _verify(board, base, capsys)
    assert code == 1 and f"changed: {field} (a regrade keeps them)" in out, out


def test_a_regrade_base_kept_as_it_was_fails_verify(clone, capsys):
    """Every entry of a regraded base is graded again: one left on the earlier release's
    numbers is a discrepancy, not history."""
    repo, base, _ = clone
    code, out = _verify(repo / "leaderboard", base, capsys)
    assert code == 1 and "data_version" in out and EARLIER in out, out


def test_a_replaced_stored_file_fails_the_history_of_a_regrade(clone, capsys):
    repo, base, _ = clone
    board = repo / "leaderboard"
    assert main(["leaderboard", "regrade", "--dir", str(board), "--jobs", "1"]) == 0
    entry = next(e for e in _board(board)["entries"] if e["model_name"] == "random")
    stored = board / entry["submission_path"]
    replacement = submission_file(repo, "random", "linear_lowhet", name="other.json.gz")
    doc = submission_doc("random", "linear_lowhet")
    doc["risk_prediction"]["proba"] = [0.5] * len(doc["risk_prediction"]["proba"])
    replacement.write_bytes(gzip.compress(json.dumps(doc).encode(), mtime=0))
    stored.write_bytes(replacement.read_bytes())
    replacement.unlink()
    commit(repo, "regraded, and a submission replaced")
    code, out = _verify(board, base, capsys)
    assert code == 1 and "stored file as in the board at" in out, out


def test_a_mixed_base_keeps_its_rows_byte_for_byte(earlier, tmp_path, capsys):
    """A base with one entry of this release is not a regrade base: its rows stay bytes."""
    repo, _, _ = earlier
    out = cloned(repo, tmp_path / "mixed")
    board = out / "leaderboard"
    _rewrite(board, lambda e: e.update(data_version=DATA_VERSION)
             if e["model_name"] == "random" else None)
    base = commit(out, "one entry already on this release")
    assert main(["leaderboard", "regrade", "--dir", str(board), "--jobs", "1"]) == 0
    capsys.readouterr()
    commit(out, "regraded")
    code, text = _verify(board, base, capsys)
    assert code == 1 and "changed: data_version, release_fingerprint, scores" in text, text


def test_regrade_refuses_another_major_release(clone, capsys):
    repo, _, _ = clone
    board = repo / "leaderboard"
    major = int(DATA_VERSION.split(".")[0])
    _rewrite(board, lambda e: e.update(data_version=f"{major - 1}.0.0"))
    before = (board / JSON_NAME).read_bytes()
    code = main(["leaderboard", "regrade", "--dir", str(board)])
    err = capsys.readouterr().err
    assert code == 2 and "a new major release starts a new board" in err, err
    assert (board / JSON_NAME).read_bytes() == before


@pytest.mark.parametrize(("version", "accepted"), [
    (EARLIER, True), (DATA_VERSION, True), ("6.0.0", False), ("7.9.0", False),
    (f"{EARLIER}+sealed.1", False)])
def test_a_submission_of_a_compatible_release_validates_as_this_ones(version, accepted):
    doc = submission_doc("random", "linear_lowhet")
    doc["data_version"] = version
    if accepted:
        assert check_submission(json.dumps(doc).encode()).descriptor.version == DATA_VERSION
    else:
        with pytest.raises(SubmissionInvalid, match="is not the release's version"):
            check_submission(json.dumps(doc).encode())


@pytest.mark.parametrize("tier", ["small", "full"])
def test_each_compatible_release_left_its_cohorts_public_tables_unchanged(tier):
    """The claim that makes an earlier file gradable as this release's: the digest of that
    release's cohorts' public tables, recorded when it was current, is what the committed
    descriptor gives today (and the descriptor lists the release)."""
    d = load_descriptor(ROOT / TIERS[tier].descriptor_path)
    listed = d.document["icgbench:compatible_releases"]
    assert set(listed) == set(COMPATIBLE_RELEASES) and EARLIER in d.compatible_versions
    for version, record in COMPATIBLE_RELEASES.items():
        digest = public_digest(d.document["resources"], record["variants"])
        assert digest == record["digests"][tier] == listed[version]["public_digest"], version
        held = {c["variant"] for c in d.cohorts()}
        assert set(record["variants"]) < held  # a minor release adds, never removes
