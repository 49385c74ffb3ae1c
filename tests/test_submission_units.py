"""A model's submissions as one unit (issue 39): folders for validate, score and
leaderboard add; an add of several files is all or nothing; a score report is never taken
for a submission; ``icgbench.validate`` returns the verdict ``--json`` prints."""

from __future__ import annotations

import io
import json
import tempfile
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


def _packed(folder: Path, archive: Path, extra: dict[str, bytes] | None = None) -> Path:
    """``folder``'s submissions (and ``extra`` members) in ``archive``, a zip or a tar(.gz),
    under a folder of its own as an archiver would put them."""
    import tarfile
    import zipfile

    members = {f"model/{p.name}": p.read_bytes() for p in sorted(folder.iterdir())}
    members |= extra or {}
    if archive.suffix == ".zip":
        with zipfile.ZipFile(archive, "w") as z:
            for name, data in members.items():
                z.writestr(name, data)
    else:
        with tarfile.open(archive, "w:gz" if archive.name.endswith("gz") else "w") as tar:
            for name, data in members.items():
                info = tarfile.TarInfo(name)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    return archive


@pytest.mark.parametrize("name", ["model.zip", "model.tar.gz", "model.tgz", "model.tar"])
def test_an_archive_is_validated_scored_and_added_as_one_unit(tmp_path, capsys, monkeypatch,
                                                              name):
    scratch = tmp_path / "scratch"  # this test's own temporary folder, to see it emptied
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    folder = _folder(tmp_path)
    archive = _packed(folder, tmp_path / name, {"model/README.md": b"notes",
                                                 "model/old.report.json": b"{}"})
    assert main(["validate", str(archive)]) == 0
    assert "2 of 2 files valid" in capsys.readouterr().out
    assert main(["score", str(archive)]) == 0
    out = capsys.readouterr().out
    assert "scored 2 of 2 files" in out and "<archive>.reports/" in out
    reports = tmp_path / f"{name}.reports"
    assert sorted(p.name for p in reports.iterdir()) == [
        f"logistic_direct__{v}.report.json" for v in sorted(VARIANTS)]
    board = tmp_path / "board"
    assert main(["leaderboard", "add", str(archive), "--dir", str(board), "--tier",
                 "small"]) == 0
    assert len(json.loads((board / "leaderboard.json").read_text())["entries"]) == 2
    assert not list(scratch.iterdir())  # the unpacked files are gone


@pytest.mark.parametrize(("member", "data", "message"), [
    ("../escape.json", b"{}", "would leave the folder"),
    ("/abs.json", b"{}", "would leave the folder"),
    ("model/big.json", b" " * 5000, "larger than 4096 bytes (--max-bytes)"),
    ("other/{first}", b"{}", "two submissions named"),
])
def test_a_hostile_archive_is_refused_with_its_member_named(tmp_path, capsys, member, data,
                                                            message):
    folder = _folder(tmp_path)
    for path in folder.iterdir():
        path.write_bytes(b"{}")  # small, so that --max-bytes 4096 is the only size limit
    first = sorted(p.name for p in folder.iterdir())[0]
    archive = _packed(folder, tmp_path / "model.zip", {member.format(first=first): data})
    assert main(["validate", "--max-bytes", "4096", str(archive)]) == 1
    err = capsys.readouterr().err
    assert message in err and "model.zip" in err and "Traceback" not in err


def test_a_zip_bomb_and_a_link_are_refused(tmp_path, capsys):
    import tarfile
    import zipfile

    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("a.json", b"0" * (10 * 1024 * 1024))  # 10 MB that deflate to 10 kB
    assert bomb.stat().st_size < 100_000
    assert main(["validate", "--max-bytes", "1000000", str(bomb)]) == 1
    assert "larger than 1000000 bytes" in capsys.readouterr().err
    linked = tmp_path / "linked.tar"
    with tarfile.open(linked, "w") as tar:
        info = tarfile.TarInfo("a.json")
        info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tar.addfile(info)
    assert main(["score", str(linked)]) == 1
    assert "is a link, not a regular file" in capsys.readouterr().err
    empty = tmp_path / "none.zip"
    with zipfile.ZipFile(empty, "w") as z:
        z.writestr("README.md", b"nothing to grade")
    assert main(["validate", str(empty)]) == 1
    assert "an archive with no submission file" in capsys.readouterr().err
    (tmp_path / "corrupt.zip").write_bytes(b"PK\x03\x04 not a zip")
    assert main(["validate", str(tmp_path / "corrupt.zip")]) == 1
    assert "corrupt or truncated archive" in capsys.readouterr().err


def test_the_docs_state_the_archive_bounds_the_code_applies():
    from icgbench.scorer.archives import (
        ARCHIVE_SUFFIXES,
        MAX_DIRECTORY_BYTES,
        MAX_MEMBERS,
        MAX_SKIPPED_BYTES,
        MAX_TOTAL_BYTES,
    )

    text = " ".join((Path(__file__).parents[1] / "docs" / "submission.md").read_text().split())
    assert f"at most {MAX_MEMBERS:,} members and {MAX_TOTAL_BYTES // 2**30} GiB unpacked" in text
    assert f"Members passed over hold at most {MAX_SKIPPED_BYTES // 2**20} MiB in all" in text
    assert f"central directory (at most {MAX_DIRECTORY_BYTES // 2**20} MiB)" in text
    assert ", ".join(f"`{s}`" for s in ARCHIVE_SUFFIXES) in text


def test_an_archive_of_too_many_members_is_refused_before_it_is_unpacked(tmp_path, capsys):
    import zipfile

    from icgbench.scorer.archives import MAX_MEMBERS

    crowded = tmp_path / "crowded.zip"
    with zipfile.ZipFile(crowded, "w") as z:
        for i in range(MAX_MEMBERS + 1):
            z.writestr(f"notes/{i}.txt", b"")
    assert main(["validate", str(crowded)]) == 1
    assert f"more than {MAX_MEMBERS} members" in capsys.readouterr().err
