"""Issue 49, round 5's archive cases, through the commands: every bound is checked before
the work it bounds, nothing raises a traceback, no report is overwritten, and a SIGTERM
during unpacking leaves no temporary folder behind.

Before the fixes: a skipped member of a compressed tar was decompressed whatever its size
(item 5); a zip listing millions of entries was read whole before its member count was
checked (item 6); an encrypted zip member raised a RuntimeError traceback (item 7); x.json
and x.json.gz wrote one report, the second over the first (item 8); an archive named twice
on one command line failed with "File exists", and a SIGTERM while unpacking left the
temporary folder (item 9).
"""

from __future__ import annotations

import bz2
import gzip
import io
import os
import signal
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

import pytest

from icgbench.cli import main
from icgbench.scorer.archives import MAX_MEMBERS, MAX_SKIPPED_BYTES
from leaderboard_helpers import submission_file


def _submission_bytes(tmp_path: Path) -> bytes:
    return submission_file(tmp_path, "random", "linear_lowhet").read_bytes()


def _run(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, captured.out + captured.err


def test_a_huge_member_passed_over_in_a_compressed_tar_is_refused_from_its_header(
        tmp_path, capsys):
    """A README whose header declares 20 GiB: refused at its header, before a byte of it
    is decompressed (the archive is a few kilobytes of zeros, bzip2-compressed)."""
    archive = tmp_path / "bomb.tar"
    header = tarfile.TarInfo("README")
    header.size = 20 * 1024 ** 3  # declared; tarfile would write all of it, so by hand
    archive.write_bytes(bz2.compress(header.tobuf(format=tarfile.GNU_FORMAT)
                                     + b"\0" * (1 << 20)))
    start = time.monotonic()
    code, out = _run(capsys, "validate", str(archive))
    assert code == 1 and "hold more than" in out and "README" in out, out
    assert time.monotonic() - start < 10


def test_passed_over_members_count_against_their_own_bound(tmp_path, capsys):
    archive = tmp_path / "padded.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for i in range(3):
            data = b"x" * (MAX_SKIPPED_BYTES // 2)
            info = tarfile.TarInfo(f"notes{i}.txt")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    code, out = _run(capsys, "validate", str(archive))
    assert code == 1 and "notes2.txt" in out and str(MAX_SKIPPED_BYTES) in out, out


def _zip_with_declared_entries(path: Path, entries: int, directory: int) -> None:
    """A real zip of one member whose end record declares ``entries`` members and a central
    directory of ``directory`` bytes (a lying or a huge archive; either is refused)."""
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("a.json", "{}")
    data = bytearray(path.read_bytes())
    at = data.rfind(b"PK\x05\x06")
    data[at + 8:at + 10] = min(entries, 0xFFFF).to_bytes(2, "little")
    data[at + 10:at + 12] = min(entries, 0xFFFF).to_bytes(2, "little")
    data[at + 12:at + 16] = directory.to_bytes(4, "little")
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("entries, directory, message", [
    (2_500_000, 46, f"more than {MAX_MEMBERS} members"),
    (1, 200 * 1024 ** 2, "central directory is"),
])
def test_a_zips_member_count_and_directory_are_bounded_before_it_is_read(
        tmp_path, capsys, entries, directory, message):
    archive = tmp_path / "listing.zip"
    _zip_with_declared_entries(archive, entries, directory)
    code, out = _run(capsys, "validate", str(archive))
    assert code == 1 and message in out, out


def test_an_encrypted_member_is_refused_without_a_traceback(tmp_path, capsys):
    archive = tmp_path / "locked.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("linear_lowhet.json", _submission_bytes(tmp_path))
    data = bytearray(archive.read_bytes())
    for signature, flag_at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):  # set bit 0: encrypted
        at = data.find(signature)
        data[at + flag_at] |= 0x01
    archive.write_bytes(bytes(data))
    for command in ("validate", "score"):
        code, out = _run(capsys, command, str(archive))
        assert code == 1 and "is encrypted" in out, (command, out)
    board = tmp_path / "board"
    code, out = _run(capsys, "leaderboard", "add", str(archive), "--dir", str(board),
                     "--tier", "small")
    assert code == 1 and "is encrypted" in out and not board.exists(), out


def test_two_submissions_that_would_write_one_report_are_refused_before_any_is_written(
        tmp_path, capsys):
    folder = tmp_path / "model"
    folder.mkdir()
    data = _submission_bytes(tmp_path)
    (folder / "x.json").write_bytes(data)
    (folder / "x.json.gz").write_bytes(gzip.compress(data))
    code, out = _run(capsys, "score", str(folder))
    assert code == 2 and "would both write x.report.json" in out, out
    assert not list(folder.glob("*.report.json"))
    archive = tmp_path / "twice.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("linear_lowhet.json", data)
    code, out = _run(capsys, "score", str(archive), str(archive))
    assert code == 2 and "would both write" in out, out
    assert not (tmp_path / "twice.zip.reports").exists() or not list(
        (tmp_path / "twice.zip.reports").iterdir())


def test_an_archive_named_twice_and_one_of_the_same_name_elsewhere_validate(tmp_path, capsys):
    data = _submission_bytes(tmp_path)
    (tmp_path / "sub").mkdir()
    for where in (tmp_path / "two.zip", tmp_path / "sub" / "two.zip"):
        with zipfile.ZipFile(where, "w") as z:
            z.writestr("linear_lowhet.json", data)
    code, out = _run(capsys, "validate", str(tmp_path / "two.zip"), str(tmp_path / "two.zip"),
                     str(tmp_path / "sub" / "two.zip"))
    assert code == 0 and "3 of 3 files valid" in out, out


def test_a_sigterm_while_unpacking_leaves_no_temporary_folder(tmp_path):
    """A large archive of many members is being unpacked by ``icgbench validate`` when
    SIGTERM arrives: the command ends with 143 and its ``icgbench-unpacked-*`` folder is
    gone."""
    data = _submission_bytes(tmp_path)
    archive = tmp_path / "many.tar"
    with tarfile.open(archive, "w") as tar:
        for i in range(MAX_MEMBERS):
            info = tarfile.TarInfo(f"m{i:04d}.json")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch)}
    proc = subprocess.Popen([sys.executable, "-m", "icgbench", "validate", str(archive)],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not list(scratch.glob("icgbench-unpacked-*")) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert list(scratch.glob("icgbench-unpacked-*")), "the unpacking never started"
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert b"Traceback" not in err
    assert not list(scratch.glob("icgbench-unpacked-*"))


@pytest.mark.parametrize("command", ["score --out", "score beside", "template", "publish",
                                     "generate"])
def test_no_command_writes_into_a_board_folder(tmp_path, capsys, command):
    """Issue 49, item 13: these wrote into a board folder, refused only at the next
    verify (the files are strays there)."""
    board = tmp_path / "board"
    (board / "submissions").mkdir(parents=True)
    (board / "leaderboard.json").write_text('{"schema_version": "0.2", "tier": "small", '
                                            '"entries": []}')
    stored = board / "submissions" / "mine.json"
    stored.write_bytes(_submission_bytes(tmp_path))
    argv = {"score --out": ["score", str(_outside(tmp_path)), "--out",
                            str(board / "r.json")],
            "score beside": ["score", str(stored)],
            "template": ["submission", "template", "--variant", "linear_lowhet", "--out",
                         str(board / "t.json")],
            "publish": ["data", "publish", "--outdir", str(board / "pub")],
            "generate": ["generate", "--variant", "linear_lowhet", "--seed", "1",
                         "--n-subjects", "20", "--outdir", str(board / "cohort")]}[command]
    before = sorted(p.relative_to(board) for p in board.rglob("*"))
    code, out = _run(capsys, *argv)
    assert code == 2 and "lies inside the leaderboard" in out, out
    assert sorted(p.relative_to(board) for p in board.rglob("*")) == before


def _outside(tmp_path: Path) -> Path:
    path = tmp_path / "outside.json"
    path.write_bytes(_submission_bytes(tmp_path))
    return path
