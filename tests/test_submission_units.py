"""A model's submissions as one unit (issue 39): folders for validate, score and
leaderboard add; an add of several files is all or nothing; a score report is never taken
for a submission; ``icgbench.validate`` returns the verdict ``--json`` prints."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import icgbench
from icgbench.cli import main
from icgbench.scorer import SubmissionInvalid
from leaderboard_helpers import submission_file

VARIANTS = ("linear_lowhet", "nonlinear_obs")


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "model"
    folder.mkdir()
    for variant in VARIANTS:
        submission_file(folder, "logistic_direct", variant)
    return folder


def test_validate_returns_the_verdict_that_json_prints(tmp_path, capsys):
    folder = _folder(tmp_path)
    good = next(folder.iterdir())
    bad = folder / "bad.json"
    bad.write_text('{"seed": 0')
    for path in (good, bad):
        verdict = icgbench.validate(path)
        assert main(["validate", "--json", str(path)]) == (0 if verdict else 1)
        assert verdict.to_dict() == json.loads(capsys.readouterr().out)
    assert icgbench.validate(good).valid and icgbench.validate(good).blocks
    refused = icgbench.validate(bad)
    assert (refused.valid, refused.stage, refused.count) == (False, "parse", 1)
    with pytest.raises(SubmissionInvalid):
        icgbench.validate(bad, raise_invalid=True)
    missing = icgbench.validate(tmp_path / "nowhere.json")
    assert (missing.valid, missing.stage) == (False, "usage")


def test_a_folder_is_validated_and_scored_as_one_unit_and_its_reports_left_out(
        tmp_path, capsys):
    folder = _folder(tmp_path)
    assert main(["score", str(folder)]) == 0
    out = capsys.readouterr().out
    assert out.count("SCORED ") == 2 and "scored 2 of 2 files" in out
    reports = sorted(p.name for p in folder.glob("*.report.json"))
    assert reports == [f"logistic_direct__{v}.report.json" for v in sorted(VARIANTS)]
    assert main(["validate", str(folder)]) == 0
    assert "2 of 2 files valid" in capsys.readouterr().out
    assert main(["validate", "--json", str(folder)]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 2
    report = folder / reports[0]
    assert main(["validate", str(report)]) == 2
    assert "is a score report" in capsys.readouterr().err
    assert main(["score", str(folder), "--out", str(tmp_path / "r.json")]) == 2
    assert "--out names one report" in capsys.readouterr().err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["validate", str(empty)]) == 2
    assert "a folder with no submission file" in capsys.readouterr().err


def test_an_add_of_several_files_is_all_or_nothing(tmp_path, capsys):
    folder = _folder(tmp_path)
    board = tmp_path / "board"
    bad = folder / "zz_truncated.json"
    bad.write_text('{"schema_version": ')
    assert main(["leaderboard", "add", str(folder), "--dir", str(board), "--tier",
                 "small"]) == 1
    out = capsys.readouterr().out
    assert "INVALID" in out and "zz_truncated.json" in out and "added nothing" in out
    assert not (board / "leaderboard.json").exists()
    assert not board.exists() or not list(board.rglob("*.json.gz"))
    bad.unlink()
    twice = next(folder.glob("*nonlinear_obs*"))
    assert main(["leaderboard", "add", str(folder), "--dir", str(board),
                 "--tier", "small"]) == 0
    capsys.readouterr()
    copy = tmp_path / "copy.json.gz"
    copy.write_bytes(twice.read_bytes())
    for path in folder.iterdir():
        path.rename(tmp_path / ("again_" + path.name))
    before = (board / "leaderboard.json").read_bytes()
    submission_file(folder, "random", "linear_lowhet")
    assert main(["leaderboard", "add", str(folder), str(copy), "--dir", str(board)]) == 1
    assert "already has logistic_direct" in capsys.readouterr().err
    assert (board / "leaderboard.json").read_bytes() == before  # random was not added
    assert len(json.loads(before)["entries"]) == 2
