"""A hostile pull request against the board: tiers, names, paths, links, text, locks, files.

Each test is one class of attack from the hostile-input review, on a small-tier board
(history and the PR workflow are in test_board_history.py, crashes in test_crash_safety.py).
"""

from __future__ import annotations

import csv
import fcntl
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from icgbench import __version__
from icgbench.cli import main
from icgbench.errors import InvalidInputError, UsageError
from icgbench.leaderboard import read_entries
from icgbench.leaderboard.board import add
from icgbench.leaderboard.names import fold, name_clash
from icgbench.leaderboard.store import CSV_NAME, JSON_NAME, LOCK_NAME, csv_text, defused
from icgbench.leaderboard.verify import verify
from leaderboard_helpers import (
    small_board_copy,
    submission_doc,
    submission_file,
    two_entry_board,
)

# Pages here are read for their tables, links and files: built without the board's figures.
pytestmark = pytest.mark.usefixtures("no_board_figures")

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    return two_entry_board(tmp_path_factory)


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and p.name != LOCK_NAME}


def _file(tmp_path: Path, doc: dict, name: str = "sub.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def _fields(problems) -> set[str]:
    return {p.field for p in problems}


@pytest.mark.slow
def test_the_public_board_takes_full_tier_entries_only(tmp_path, board):
    folder = tmp_path / "public"
    with pytest.raises(InvalidInputError, match=r"full-tier board .* small-tier submission"):
        add(submission_file(tmp_path, "random", "linear_lowhet"), folder)
    assert not (folder / JSON_NAME).exists() and not (folder / "submissions").exists()
    _, problems = verify(board)  # the default, the public board's tier: full
    assert "tier" in _fields(problems)
    assert main(["leaderboard", "verify", "--dir", str(board)]) == 1
    assert main(["leaderboard", "verify", "--dir", str(board), "--tier", "small"]) == 0


def test_an_entry_claiming_another_tier_is_caught(tmp_path, board):
    copy = small_board_copy(board, tmp_path)
    doc = json.loads((copy / JSON_NAME).read_text())
    doc["entries"][0]["tier"] = "full"
    (copy / JSON_NAME).write_text(json.dumps(doc))
    _, problems = verify(copy, tier="small")
    assert [p.field for p in problems if p.entry.startswith("random")].count("tier") == 2


def test_a_second_version_of_a_model_is_its_own_entry(tmp_path, board):
    copy = small_board_copy(board, tmp_path)
    for version in ("0.5.0", "0.6.0"):
        doc = submission_doc("random", "linear_lowhet")
        doc["model"].update(name="my_model", version=version)
        entry = add(_file(tmp_path, doc, f"{version}.json"), copy)
    assert entry.submission_path == "submissions/my_model/0.6.0/linear_lowhet__seed0.json.gz"
    assert {e.package_version for e in read_entries(copy) if e.model_name == "my_model"} == {
        "0.5.0", "0.6.0"}
    assert verify(copy, tier="small")[1] == []


@pytest.mark.parametrize("name, version, message", [
    ("Random", "0.5.0", "only by case"), ("RANDOM", "9", "only by case"),
    ("random", __version__, "already has"),
])
def test_look_alike_names_are_refused(tmp_path, board, name, version, message):
    before = _snapshot(board)
    doc = submission_doc("random", "linear_lowhet")
    doc["model"].update(name=name, version=version)
    with pytest.raises(InvalidInputError, match=message):
        add(_file(tmp_path, doc), board)
    assert _snapshot(board) == before  # a refused add writes nothing


def test_name_folding_covers_case_and_compatibility_forms():
    assert fold("Ｒandom") == fold("random") == fold("RANDOM")
    assert name_clash([("mine", "0.2.0")], "mine", "0.2.0") is None
    assert "only by case" in name_clash([("m", "v1")], "m", "V1")
    assert name_clash([("m", "v1")], "m", "v2") is None


def test_a_hand_added_look_alike_is_caught_by_verify(tmp_path, board):
    copy = small_board_copy(board, tmp_path)
    doc = json.loads((copy / JSON_NAME).read_text())
    twin = dict(doc["entries"][0], model_name="Random",
                submission_path=doc["entries"][0]["submission_path"].replace("random",
                                                                             "Random", 1))
    doc["entries"].append(twin)
    (copy / JSON_NAME).write_text(json.dumps(doc))
    (copy / twin["submission_path"]).parent.mkdir(parents=True)
    (copy / twin["submission_path"]).write_bytes((copy / doc["entries"][0]["submission_path"])
                                                 .read_bytes())
    _, problems = verify(copy, tier="small")
    assert any(p.field == "model_name" and "only by case" in str(p.recomputed)
               for p in problems)


def test_orphans_links_and_stray_files_are_reported(tmp_path, board):
    copy = small_board_copy(board, tmp_path)
    stray = f"submissions/random/{__version__}/misspecified_signs__seed0.json.gz"
    orphan = copy / stray
    orphan.write_bytes(b"\x1f\x8b")
    (copy / "submissions/random/link.json.gz").symlink_to("/etc/passwd")
    (copy / "notes.txt").write_text("hi")
    os.mkfifo(copy / "submissions" / "pipe")
    _, problems = verify(copy, tier="small")
    reasons = {p.entry: str(p.recomputed) for p in problems if p.field == "file"}
    assert "orphan" in reasons[stray]
    assert "symbolic link" in reasons["submissions/random/link.json.gz"]
    assert "unexpected" in reasons["notes.txt"]
    assert "regular" in reasons["submissions/pipe"]


def test_a_submission_path_must_be_the_canonical_one(tmp_path, board):
    copy = small_board_copy(board, tmp_path)
    doc = json.loads((copy / JSON_NAME).read_text())
    first, second = doc["entries"]
    first["submission_path"] = second["submission_path"]  # a valid path, of another entry
    (copy / JSON_NAME).write_text(json.dumps(doc))
    _, problems = verify(copy, tier="small")
    assert any(p.field == "submission_path" and p.entry.startswith("random")
               for p in problems)
    doc["entries"][0]["submission_path"] = "javascript:alert(1)"
    (copy / JSON_NAME).write_text(json.dumps(doc))
    _, problems = verify(copy, tier="small")
    assert any(p.field == "schema" and "submission_path" in str(p.recomputed)
               for p in problems)
    assert main(["leaderboard", "render", "--dir", str(copy), "--outdir",
                 str(tmp_path / "site"), "--no-oracle"]) == 1
    assert not (tmp_path / "site" / "index.html").exists()


def test_a_symbolic_link_is_never_followed_by_a_writer(tmp_path, board):
    copy = small_board_copy(board, tmp_path)
    target = tmp_path / "elsewhere"
    target.write_text("precious")
    (copy / LOCK_NAME).symlink_to(target)
    with pytest.raises(UsageError, match="symbolic link"):
        add(submission_file(tmp_path, "mbcnet_v0_1", "linear_lowhet"), copy)
    assert target.read_text() == "precious"
    (copy / LOCK_NAME).unlink()
    (copy / "submissions" / "mbcnet_v0_1").symlink_to(tmp_path)
    with pytest.raises(InvalidInputError, match="symbolic link"):
        add(submission_file(tmp_path, "mbcnet_v0_1", "linear_lowhet"), copy)
    assert not list(tmp_path.glob(f"{__version__}*"))


HOSTILE_NOTES = ["line one\rline two\r\nline three\n", '=HYPERLINK("http://x","y")',
                 "+1+2", "-2", "@SUM(A1)", "\tTab", ' =1', 'quote " and , comma', "é ☃ \x00"]


@pytest.mark.slow
def test_free_text_keeps_its_content_and_never_breaks_the_csv(tmp_path):
    folder = tmp_path / "board"
    notes = "\n".join(HOSTILE_NOTES)
    add(submission_file(tmp_path, "random", "linear_lowhet"), folder, notes=notes,
        tier="small")
    for i, text in enumerate(HOSTILE_NOTES):
        doc = submission_doc("random", "linear_lowhet")
        doc["model"].update(name="my_model", version=f"v{i}")
        add(_file(tmp_path, doc, f"v{i}.json"), folder, notes=text)
    entries = read_entries(folder)
    assert [e.notes for e in entries] == [notes, *HOSTILE_NOTES]  # kept exactly in the JSON
    raw = (folder / CSV_NAME).read_bytes()
    rows = list(csv.reader(io.StringIO(raw.decode(), newline="")))
    assert len(rows) == 1 + len(entries)  # every row parses back as one row
    column = rows[0].index("notes")
    for row, e in zip(rows[1:], entries, strict=True):
        assert row[column] == defused(e.notes)
        assert not row[column].startswith(("=", "+", "-", "@", "\t", "\r", " ="))
    assert verify(folder, tier="small")[1] == []
    assert main(["leaderboard", "show", "--dir", str(folder)]) == 0
    assert main(["leaderboard", "render", "--dir", str(folder), "--outdir", str(tmp_path / "s"),
                 "--no-oracle"]) == 0


def test_notes_that_are_not_valid_unicode_are_a_usage_error(tmp_path, capsys):
    path = submission_file(tmp_path, "random", "linear_lowhet")
    folder = tmp_path / "board"
    assert main(["leaderboard", "add", str(path), "--dir", str(folder), "--tier", "small",
                 "--notes", "bad \udcff byte"]) == 2
    assert "not valid Unicode" in capsys.readouterr().err
    assert main(["leaderboard", "add", str(path), "--dir", str(folder), "--tier", "small",
                 "--notes", "x" * 2001]) == 2
    assert not folder.exists() or not (folder / JSON_NAME).exists()


@pytest.mark.parametrize("damage, message", [
    (lambda t: t.replace('"tier": "small"', '"tier": "small", "tier": "small"'), "duplicate"),
    (lambda t: t.replace('"seed": 0', '"seed": NaN', 1), "NaN"),
    (lambda t: t.replace('"entries": [', '"entries": [7, ', 1), "not an object"),
    (lambda t: t.replace('"entries": [', '"entries": [[], ', 1), "not an object"),
    (lambda t: t[: len(t) // 2], "not valid JSON"),
    (lambda t: t.replace('"seed": 0', '"seed": -5', 1), "seed"),
])
def test_a_damaged_board_file_is_a_clean_failure(tmp_path, board, damage, message, capsys):
    copy = small_board_copy(board, tmp_path)
    (copy / JSON_NAME).write_text(damage((copy / JSON_NAME).read_text()))
    _, problems = verify(copy, tier="small")
    assert problems and any(message in str(p) for p in problems), problems
    assert main(["leaderboard", "verify", "--dir", str(copy), "--tier", "small"]) == 1
    assert "Traceback" not in capsys.readouterr().err


def test_a_crlf_csv_fails_verify(tmp_path, board):
    copy = small_board_copy(board, tmp_path)
    (copy / CSV_NAME).write_bytes((copy / CSV_NAME).read_bytes().replace(b"\n", b"\r\n"))
    _, problems = verify(copy, tier="small")
    assert any(p.entry == CSV_NAME for p in problems)
    assert (copy / CSV_NAME).read_bytes() != csv_text(read_entries(copy)).encode()


def test_a_declared_k_on_the_calibration_cohort_is_refused(tmp_path):
    doc = submission_doc("correlation", "linear_lowhet")  # the small tier's calibration cohort
    doc["structure_recovery"]["k"] = 3.0  # a JSON Schema integer: the integer 3 from here on
    with pytest.raises(InvalidInputError, match=r"k is 3, but on the calibration cohort .* K\* "
                       r"is chosen by the protocol"):
        add(_file(tmp_path, doc), tmp_path / "board", tier="small")


def test_a_held_lock_is_waited_for_with_a_message_then_given_up(tmp_path, board, capsys):
    copy = small_board_copy(board, tmp_path)
    with open(copy / LOCK_NAME, "a") as holder:
        fcntl.flock(holder.fileno(), fcntl.LOCK_EX)
        code = main(["leaderboard", "add", str(submission_file(tmp_path, "random",
                                                                  "misspecified_signs")),
                     "--dir", str(copy), "--lock-timeout", "0.3"])
    err = capsys.readouterr().err
    assert code == 2
    assert "waiting for the board lock" in err and "gave up after 0.3 s" in err


CONTENDER = """
import sys
from pathlib import Path
from icgbench.errors import UserError
from icgbench.leaderboard.board import add
try:
    add(Path(sys.argv[1]), Path(sys.argv[2]), tier="small")
except UserError as exc:
    print(exc)
    sys.exit(1)
"""


@pytest.mark.slow
def test_concurrent_adds_of_one_key_keep_the_stored_file_of_the_entry_kept(tmp_path):
    folder = tmp_path / "board"
    files = []
    for i in range(2):
        doc = submission_doc("random", "linear_lowhet")
        doc["model"]["description"] = f"contender {i}"
        files.append(_file(tmp_path, doc, f"c{i}.json"))
    procs = [subprocess.Popen([sys.executable, "-c", CONTENDER, str(f), str(folder)],
                              stdout=subprocess.PIPE, text=True) for f in files]
    outputs = [p.communicate(timeout=120)[0] for p in procs]
    assert sorted(p.returncode for p in procs) == [0, 1]
    assert f"already has random {__version__}" in "".join(outputs)
    assert len(read_entries(folder)) == 1
    assert verify(folder, tier="small")[1] == []  # the stored file is the kept entry's


@pytest.mark.parametrize("field, value", [
    ("seed", -5),
    ("submission_sha256", "sha256:not-a-hash"),
    ("submission_path", "../../etc/passwd"),
    ("scores", {"risk_prediction": {"auroc": "high"}}),
])
def test_every_reader_checks_each_entry_against_the_entry_schema(tmp_path, board, field, value,
                                                                 capsys):
    copy = small_board_copy(board, tmp_path)
    document = json.loads((copy / JSON_NAME).read_text())
    document["entries"][0][field] = value
    (copy / JSON_NAME).write_text(json.dumps(document))
    with pytest.raises(InvalidInputError, match=field):
        read_entries(copy)
    for command in (["show", "--dir"], ["render", "--outdir", str(tmp_path / "site"), "--dir"]):
        assert main(["leaderboard", *command, str(copy)]) == 1
        err = capsys.readouterr().err
        assert field in err and "Traceback" not in err
    assert not (tmp_path / "site").exists()


def test_a_board_file_that_is_not_a_board_is_named_by_every_reader(tmp_path, capsys):
    """load_board (show, verify, add) and migrate say which file is wrong."""
    from icgbench.leaderboard.maintenance import migrate
    from icgbench.leaderboard.store import load_board

    folder = tmp_path / "board"
    folder.mkdir()
    (folder / JSON_NAME).write_text('{"entries": 3}')
    for read in (lambda: load_board(folder), lambda: migrate(folder)):
        with pytest.raises(InvalidInputError) as refused:
            read()
        assert str(refused.value).startswith(f"{folder / JSON_NAME} is not a leaderboard")
