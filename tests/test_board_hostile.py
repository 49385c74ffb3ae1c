"""A stranger's pull request controls every byte of the board folder: each class of attack
from the audit, driven through ``icgbench leaderboard ...`` on a real board folder.

Paths outside the board (migrate, and every reader), strays in any folder, impersonation
of the reference models and look-alike names and versions, timestamps, non-finite
numbers, a board too large to pickle per task; and the behaviours that had no test: the
CSV's formula defusing of every leading character and the lock timeouts of repair and
migrate. History (``--base``) attacks are in test_board_history.py.
"""

from __future__ import annotations

import csv
import fcntl
import gzip
import hashlib
import io
import json
import os
import pickle
import re
from pathlib import Path

import pytest

from conftest import reference_submission
from icgbench import __version__
from icgbench.cli import main
from icgbench.errors import UserError
from icgbench.leaderboard import LeaderboardEntry, append_entry, read_entries
from icgbench.leaderboard.board import add
from icgbench.leaderboard.entry import entry_from_report, now_utc, parse_utc
from icgbench.leaderboard.store import (
    CSV_NAME,
    FORMULA_START,
    JSON_NAME,
    LOCK_NAME,
    csv_text,
    write_board,
)
from icgbench.leaderboard.verify import _tasks
from icgbench.scorer import check_submission, grade
from leaderboard_helpers import (
    small_board_copy,
    submission_doc,
    submission_file,
    two_entry_board,
)

# Pages here are read for their tables, links and files: built without the board's figures.
pytestmark = pytest.mark.usefixtures("no_board_figures")

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = json.loads((ROOT / "schemas" / "examples" / "leaderboard-entry.json").read_text())


@pytest.fixture(scope="module")
def board(tmp_path_factory) -> Path:
    return two_entry_board(tmp_path_factory)


def run(capsys, *argv: object) -> tuple[int, str]:
    """``icgbench leaderboard ARGV``: (exit code, stdout and stderr); never a traceback."""
    code = main(["leaderboard", *map(str, argv)])
    captured = capsys.readouterr()
    text = captured.out + captured.err
    assert "Traceback" not in text
    return code, text


def snapshot(folder: Path) -> dict[str, bytes | str]:
    """Every path under ``folder`` (but the lock): a file's bytes, a link's target."""
    out: dict[str, bytes | str] = {}
    for path in sorted(folder.rglob("*")):
        if path.name == LOCK_NAME:
            continue
        rel = path.relative_to(folder).as_posix()
        out[rel] = os.readlink(path) if path.is_symlink() else (
            path.read_bytes() if path.is_file() else "folder")
    return out


def _file(folder: Path, doc: dict, name: str) -> Path:
    path = folder / name
    path.write_text(json.dumps(doc))
    return path


def _named(tmp_path: Path, name: str, version: str, model: str = "random") -> Path:
    doc = submission_doc(model, "linear_lowhet")
    doc["model"].update(name=name, version=version)
    return _file(tmp_path, doc, f"{name}-{version}.json")


# 3. Paths outside the board: migrate, and every command reading a stored file.

def _as_0_1(folder: Path, first_path: str | None = None) -> None:
    """Rewrite a current board as a 0.1 board (no tier, paths without the version); with
    ``first_path``, entry 0 names that path instead of its own."""
    doc = json.loads((folder / JSON_NAME).read_text())
    old_entries = []
    for e in doc["entries"]:
        old = {k: v for k, v in e.items() if k != "tier"}
        old.update(schema_version="0.1", submission_path=(
            f"submissions/{e['model_name']}/{e['variant_name']}__seed{e['seed']}.json.gz"))
        (folder / old["submission_path"]).write_bytes((folder / e["submission_path"])
                                                      .read_bytes())
        (folder / e["submission_path"]).unlink()
        old_entries.append(old)
    if first_path is not None:
        old_entries[0]["submission_path"] = first_path
    (folder / JSON_NAME).write_text(json.dumps({"schema_version": "0.1",
                                                "entries": old_entries}, indent=1))
    (folder / CSV_NAME).unlink()


@pytest.mark.parametrize("where", ["../victim.txt", "ABSOLUTE", "submissions/../../victim.txt",
                                   "LINK", "submissions//x.json.gz", "leaderboard.json"])
def test_migrate_never_reads_copies_or_removes_outside_the_board(tmp_path, board, capsys,
                                                                 where):
    copy = small_board_copy(board, tmp_path)
    first = read_entries(copy)[0]
    victim = tmp_path / "victim.txt"
    victim.write_bytes((copy / first.submission_path).read_bytes())  # even its right bytes
    stored = f"submissions/{first.model_name}/{first.variant_name}__seed0.json.gz"
    path = {"ABSOLUTE": str(victim), "LINK": stored}.get(where, where)
    _as_0_1(copy, path)
    if where == "LINK":
        (copy / stored).unlink()
        (copy / stored).symlink_to(victim)
    before = snapshot(copy)
    code, text = run(capsys, "migrate", "--dir", copy)
    assert code == 1
    assert "cannot migrate" in text or "refusing a path" in text or "symbolic link" in text
    assert victim.read_bytes() == (board / first.submission_path).read_bytes()
    assert snapshot(copy) == before  # nothing half-written


def test_migrate_refuses_a_stored_file_that_is_not_its_entrys(tmp_path, board, capsys):
    copy = small_board_copy(board, tmp_path)
    entries = read_entries(copy)
    _as_0_1(copy)
    swapped = [f"submissions/{e.model_name}/{e.variant_name}__seed0.json.gz" for e in entries]
    first, second = (copy / swapped[0]).read_bytes(), (copy / swapped[1]).read_bytes()
    (copy / swapped[0]).write_bytes(second)
    (copy / swapped[1]).write_bytes(first)
    before = snapshot(copy)
    code, text = run(capsys, "migrate", "--dir", copy)
    assert code == 1 and "SHA-256" in text
    assert snapshot(copy) == before


def test_a_good_0_1_board_still_migrates(tmp_path, board, capsys):
    copy = small_board_copy(board, tmp_path)
    _as_0_1(copy)
    code, text = run(capsys, "migrate", "--dir", copy)
    assert code == 0 and "2 stored file(s) moved" in text
    assert [e.submission_path for e in read_entries(copy)] == [
        e.submission_path for e in read_entries(board)]


def test_no_command_reads_through_a_stored_symbolic_link(tmp_path, board, capsys):
    copy = small_board_copy(board, tmp_path)
    first = read_entries(copy)[0]
    victim = tmp_path / "victim.json.gz"
    victim.write_bytes((copy / first.submission_path).read_bytes())
    (copy / first.submission_path).unlink()
    (copy / first.submission_path).symlink_to(victim)
    before = snapshot(copy)
    code, text = run(capsys, "verify", copy, "--tier", "small", "--jobs", "1")
    assert code == 1 and "symbolic link" in text and first.submission_path in text
    code, text = run(capsys, "render", "--dir", copy, "--outdir", tmp_path / "site",
                     "--no-oracle")
    assert code == 1 and "symbolic link" in text
    assert not (tmp_path / "site" / first.submission_path).exists()
    code, text = run(capsys, "repair", "--dir", copy)
    assert code == 1 and "symbolic link" in text
    assert run(capsys, "show", "--dir", copy)[0] == 0  # its language is simply not shown
    assert snapshot(copy) == before and victim.exists()


# 4. What the board folder may hold: nothing stray, whatever folder it is in.

def _sealed_board(folder: Path) -> None:
    (folder / "sealed").mkdir()
    write_board(folder / "sealed", "sealed", [])


def _queue(folder: Path) -> Path:
    _sealed_board(folder)
    queue = folder / "sealed" / "queue"
    queue.mkdir()
    return queue


STRAYS = {
    "queue/index.html": lambda b: _put(b / "queue/index.html", b"<script>alert(1)</script>"),
    "queue/passwd": lambda b: _link(b / "queue/passwd", "/etc/passwd"),
    "queue/blob.json.gz": lambda b: _put(b / "queue/blob.json.gz", os.urandom(3 << 20)),
    "queue/sub.json": lambda b: _put(b / "queue/sub.json", b"{}"),  # not the public board's
    "sealed/page.html": lambda b: _put(b / "sealed/page.html", b"<script></script>"),
    "sealed/queue/sub.json": lambda b: _put(b / "sealed/queue/sub.json", b"{}"),
    "sealed/notes.txt": lambda b: (_sealed_board(b), _put(b / "sealed/notes.txt", b"x")),
    "sealed/queue/page.html": lambda b: (_queue(b), _put(b / "sealed/queue/page.html",
                                                          b"<html>")),
    "sealed/queue/evil.json": lambda b: (_queue(b), _put(b / "sealed/queue/evil.json",
                                                          b"<script>")),
    "sealed/queue/link.json": lambda b: (_queue(b), _link(b / "sealed/queue/link.json",
                                                          "/etc/passwd")),
    "sealed/queue/deeper": lambda b: (_queue(b), _put(b / "sealed/queue/deeper/x.json",
                                                       b"{}")),
    "sealed/submissions/x/1/linear_lowhet__seed0.json.gz": lambda b: (
        _sealed_board(b), _put(b / "sealed/submissions/x/1/linear_lowhet__seed0.json.gz",
                               b"\x1f\x8b")),
    "sealed/leaderboard.json": lambda b: _put(b / "sealed/leaderboard.json", b"<html>"),
    "deep/er/file.txt": lambda b: _put(b / "deep/er/file.txt", b"x"),
}


def _put(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _link(path: Path, target: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(target)


@pytest.mark.parametrize("stray", sorted(STRAYS))
def test_a_stray_anywhere_fails_verify_and_repair_leaves_it(tmp_path, board, capsys, stray):
    copy = small_board_copy(board, tmp_path)
    STRAYS[stray](copy)
    code, text = run(capsys, "verify", copy, "--tier", "small", "--jobs", "1")
    assert code == 1 and f"MISMATCH {stray}:" in text, text
    before = snapshot(copy)
    code, text = run(capsys, "repair", "--dir", copy)
    assert code == 1 and stray in text and "need a person" in text
    assert snapshot(copy) == before  # refused before anything was changed


def test_a_board_of_another_tier_in_sealed_is_named(tmp_path, board, capsys):
    copy = small_board_copy(board, tmp_path)
    (copy / "sealed").mkdir()
    write_board(copy / "sealed", "full", [])
    code, text = run(capsys, "verify", copy, "--tier", "small", "--jobs", "1")
    assert code == 1
    assert "MISMATCH sealed/leaderboard.json" in text
    assert "the board in sealed/ must be a sealed-tier board, not full" in text


def test_a_sealed_board_with_its_queue_belongs(tmp_path, board, capsys):
    copy = small_board_copy(board, tmp_path)
    queue = _queue(copy)
    (queue / "mine__linear_lowhet.json").write_text(reference_submission(
        "random", "linear_lowhet"))
    (queue / "mine.json.gz").write_bytes(gzip.compress(b"{}"))
    code, text = run(capsys, "verify", copy, "--tier", "small", "--jobs", "1")
    assert code == 0, text


# 5. Impersonation: look-alike names and versions, the reference models' own names.

@pytest.mark.parametrize("name, version, message", [
    ("Iogistic_direct", "0.5.0", "look-alike"),
    ("logistic-direct", "0.5.0", "look-alike"),
    ("0racle", "1.0", "look-alike"),
    ("rand0m", "1.0", "look-alike"),
    ("Logistic_direct", "0.5.0", "only by case"),
    ("ceiling", "0.5.0", "reads the truth"),
    ("random", "0.3.1", "reference model"),
    ("logistic_direct", "9.9.9", "reference model"),
    # each rule of the skeleton on its own: separators repeated, leading and trailing;
    # each digit that reads as a letter, q as g, and each sequence
    ("logistic__direct", "1.0", "look-alike"),
    ("logistic_direct_", "1.0", "look-alike"),
    ("pc_", "1.0", "look-alike"),
    ("mbcnet_v0_1.", "1.0", "look-alike"),
    ("oracle.", "1.0", "look-alike"),
    ("mbcnet_boo5ted", "1.0", "look-alike"),
    ("ge5", "1.0", "look-alike"),
    ("ceilinq", "1.0", "look-alike"),
    ("panel_re9ression", "1.0", "look-alike"),
    ("mbcnet_v0_l", "1.0", "look-alike"),
    ("direct_lin9am", "1.0", "look-alike"),
    ("correIation", "1.0", "look-alike"),
    ("pcmci_pIus", "1.0", "look-alike"),
    ("ranclom", "1.0", "look-alike"),
    ("mbcnet_rn", "1.0", None),  # not a look-alike of anything: accepted
])
def test_look_alikes_and_impersonators_are_refused_by_add(tmp_path, board, capsys, name,
                                                          version, message):
    copy = small_board_copy(board, tmp_path)
    before = snapshot(copy)
    code, text = run(capsys, "add", _named(tmp_path, name, version), "--dir", copy)
    if message is None:
        assert code == 0, text
        return
    assert code == 1 and message in text, text
    assert snapshot(copy) == before


@pytest.mark.parametrize("pair", ["rn m", "vv w", "cl d", "0 o", "1 l", "i l",
                                  "2 z", "5 s", "8 b", "9 g", "q g", "- _", ". _"])
def test_each_confusable_pair_of_the_documented_rule_is_refused(tmp_path, board, capsys,
                                                                  pair):
    """A name on the board, then the same name with one documented pair swapped: every
    pair of the rule is exercised through ``leaderboard add`` (a rule losing one fails)."""
    old, new = pair.split(" ")
    copy = small_board_copy(board, tmp_path)
    first = f"zed{new}{new}zed" if new != "_" else "zed_zed"
    assert run(capsys, "add", _named(tmp_path, first, "1"), "--dir", copy)[0] == 0
    twin = first.replace(new, old) if new != "_" else f"zed{old}zed"
    code, text = run(capsys, "add", _named(tmp_path, twin, "1"), "--dir", copy)
    assert code == 1 and "look-alike" in text, (twin, text)


@pytest.mark.slow
def test_a_look_alike_version_is_refused(tmp_path, board, capsys):
    copy = small_board_copy(board, tmp_path)
    assert run(capsys, "add", _named(tmp_path, "mine", "0.3.0"), "--dir", copy)[0] == 0
    before = snapshot(copy)
    for version in ("0.3.O", "O.3.0", "0-3-0", "0.3.0.", "0..3.0", "0.3.0-"):
        code, text = run(capsys, "add", _named(tmp_path, "mine", version), "--dir", copy)
        assert code == 1 and "version" in text and "look-alike" in text, text
    assert snapshot(copy) == before
    assert run(capsys, "add", _named(tmp_path, "mine", "0.3.1"), "--dir", copy)[0] == 0


def _hand_added(folder: Path, doc: dict) -> LeaderboardEntry:
    """An entry appended without add's checks, as a pull request can write it."""
    stored = gzip.compress(json.dumps(doc).encode(), mtime=0)
    entry = entry_from_report(grade(check_submission(stored, frozen_only=True)).document, "",
                              now_utc())
    (folder / entry.submission_path).parent.mkdir(parents=True, exist_ok=True)
    (folder / entry.submission_path).write_bytes(stored)
    append_entry(entry, folder)
    return entry


@pytest.mark.slow
def test_a_pr_added_reference_name_is_refused_and_never_a_reference_line(tmp_path, board,
                                                                         capsys):
    copy = small_board_copy(board, tmp_path)
    doc = json.loads(reference_submission("oracle", "linear_lowhet"))  # the truth, copied
    doc["model"] = {"name": "random", "version": "0.3.1", "language": "Python"}
    _hand_added(copy, doc)
    code, text = run(capsys, "verify", copy, "--tier", "small", "--jobs", "1")
    assert code == 1 and "random 0.3.1" in text and "reference model" in text, text
    code, _ = run(capsys, "render", "--dir", copy, "--outdir", tmp_path / "site", "--no-oracle")
    html = (tmp_path / "site" / "index.html").read_text()
    name = (r'<td class="text model"><span class="swatch c\d+"></span>random'
            r'(?: <span class="partial">partial</span>)?<span class="v-inline">[^<]*</span></td>')
    lead = r'<td data-value="\d*">\d*</td><td class="text group">\w*</td>\s*'
    rows = dict(re.findall(r'<tr class="(\w*)[^"]*">\s*' + lead + name
                           + r'<td class="text version">([^<]+)</td>', html))
    assert code == 0 and rows == {"reference": __version__, "": "0.3.1"}, rows
    assert re.search(r'<tr class="[^"]*">\s*<td data-value="1">1</td><td class="text group">'
                     r'A</td>' + name + r'<td class="text version">0.3.1</td>', html)  # ranked
    variant_page = (tmp_path / "site" / "linear_lowhet.html").read_text()
    per_task = re.findall(r'<tr class="(\w*)[^"]*">\s*' + lead + name
                          + r'<td class="text version">([^<]+)</td>', variant_page)
    assert per_task and {c for c, v in per_task if v == "0.3.1"} == {""}
    assert {c for c, v in per_task if v == __version__} == {"reference"}


def test_a_pr_added_look_alike_is_caught_by_verify(tmp_path, board, capsys):
    copy = small_board_copy(board, tmp_path)
    doc = submission_doc("logistic_direct", "linear_lowhet")
    doc["model"]["name"] = "Iogistic_direct"
    _hand_added(copy, doc)
    code, text = run(capsys, "verify", copy, "--tier", "small", "--jobs", "1")
    assert code == 1 and "Iogistic_direct" in text and "look-alike" in text, text


ARABIC_INDIC = "".join(chr(0x0660 + int(c)) if c.isdigit() else c
                       for c in "2026-11-26T00:00:00Z")


@pytest.mark.parametrize("when, message", [
    ("1999-12-31T23:59:59Z", "before the release"),
    ("2026-99-99T99:99:99Z", "not a UTC time"),
    ("2026-02-30T00:00:00Z", "not a UTC time"),
    ("2026-11-26T00:00:00Z\n", "submitted_at"),
    (ARABIC_INDIC, "submitted_at"),
    ("2999-01-01T00:00:00Z", "in the future"),
    ("2026-11-26T00:00:00+00:00", "submitted_at"),
])
def test_submitted_at_must_be_a_real_time_of_this_release(tmp_path, board, capsys, when,
                                                          message):
    copy = small_board_copy(board, tmp_path)
    doc = json.loads((copy / JSON_NAME).read_text())
    doc["entries"][0]["submitted_at"] = when
    (copy / JSON_NAME).write_text(json.dumps(doc, indent=1))
    code, text = run(capsys, "verify", copy, "--tier", "small", "--jobs", "1")
    assert code == 1 and message in text, text
    with pytest.raises(UserError, match="submitted_at"):
        add(submission_file(tmp_path, "mbcnet_v0_1", "linear_lowhet"), copy,
            submitted_at=when)


# 8. Non-finite numbers: a clear error in every command, never a traceback.

def _infinite(folder: Path) -> None:
    text = (folder / JSON_NAME).read_text()
    text, count = re.subn(r'"auroc": [0-9.e-]+', '"auroc": 1e999', text, count=1)
    assert count == 1
    (folder / JSON_NAME).write_text(text)


@pytest.mark.parametrize("command", ["verify", "add", "repair", "migrate", "show", "render"])
def test_a_non_finite_score_is_a_clear_error(tmp_path, board, capsys, command):
    copy = small_board_copy(board, tmp_path)
    _infinite(copy)
    before = snapshot(copy)
    argv = {"verify": ["verify", copy, "--tier", "small"],
            "add": ["add", submission_file(tmp_path, "mbcnet_v0_1", "linear_lowhet"), "--dir",
                    copy],
            "render": ["render", "--dir", copy, "--outdir", tmp_path / "site", "--no-oracle"]
            }.get(command, [command, "--dir", copy])
    code, text = run(capsys, *argv)
    assert code == 1, text
    assert "entry 0" in text and "scores.risk_prediction.auroc" in text
    assert "non-finite" in text
    assert snapshot(copy) == before


# 7. Size: a worker task carries one entry, never the board.

def _entries(count: int) -> list[LeaderboardEntry]:
    out = []
    for i in range(count):
        model, version = f"model{i % 97}", f"1.{i // 97}"
        out.append(LeaderboardEntry.from_dict({
            **EXAMPLE, "model_name": model, "package_version": version,
            "submission_path": f"submissions/{model}/{version}/linear_lowhet__seed1.json.gz"}))
    return out


# The scale checks run on a smaller board in the fast suite, at full scale in make test-slow.
@pytest.mark.parametrize("large", [1000, pytest.param(5000, marks=pytest.mark.slow)])
def test_a_worker_task_does_not_grow_with_the_board(tmp_path, large):
    sizes = {n: max(len(pickle.dumps(t)) for t in _tasks(tmp_path, _entries(n), None))
             for n in (100, large)}
    assert sizes[large] <= sizes[100] + 16, sizes  # a longer version string, at most


@pytest.mark.parametrize("large", [600, pytest.param(3000, marks=pytest.mark.slow)])
def test_a_large_board_is_checked_in_linear_time(tmp_path, capsys, large):
    entries = _entries(large)
    write_board(tmp_path, "full", entries)
    code, text = run(capsys, "verify", tmp_path, "--jobs", "2")
    assert code == 1 and "OK" not in text and f"{large} entries" in text
    assert text.count("unreadable") == large  # every entry was looked at, none crashed


# Behaviours that had no test: formula defusing, lock timeouts of repair and migrate.

LEADING = [*FORMULA_START, " =", " +", " -", " @", "  =", "\r\n"]


@pytest.mark.slow
def test_every_formula_start_is_defused_in_the_csv(tmp_path, capsys):
    folder = tmp_path / "board"
    notes = [f"{lead}SUM(A1)" for lead in LEADING] + ["plain text", "a=b"]
    for i, text in enumerate(notes):
        code, out = run(capsys, "add", _named(tmp_path, "mine", f"v{i}"), "--dir", folder,
                        "--tier", "small", f"--notes={text}")  # a leading - is no option
        assert code == 0, out
    rows = list(csv.DictReader(io.StringIO((folder / CSV_NAME).read_bytes().decode(),
                                           newline="")))
    cells = [row["notes"] for row in rows]
    for lead, cell in zip(LEADING, cells, strict=False):
        assert cell == f"'{lead}SUM(A1)", (lead, cell)
    assert cells[-2:] == ["plain text", "a=b"]  # nothing else is touched
    assert [e.notes for e in read_entries(folder)] == notes  # the JSON keeps it as given
    assert (folder / CSV_NAME).read_bytes() == csv_text(read_entries(folder)).encode()


@pytest.mark.parametrize("command", ["repair", "migrate"])
def test_repair_and_migrate_give_up_on_a_held_lock(tmp_path, board, capsys, command):
    copy = small_board_copy(board, tmp_path)
    before = snapshot(copy)
    with open(copy / LOCK_NAME, "a") as holder:
        fcntl.flock(holder.fileno(), fcntl.LOCK_EX)
        code, text = run(capsys, command, "--dir", copy, "--lock-timeout", "0.3")
    assert code == 2
    assert "waiting for the board lock" in text and "gave up after 0.3 s" in text
    assert snapshot(copy) == before


def test_verify_names_the_field_and_the_cause_of_each_discrepancy(tmp_path, board, capsys):
    """A reviewer reads the check's log: each finding names its entry, field and cause."""
    copy = small_board_copy(board, tmp_path)
    first = read_entries(copy)[0]
    stored = copy / first.submission_path
    not_a_submission = gzip.compress(b'{"not": "a submission"}', mtime=0)
    stored.write_bytes(not_a_submission)
    board_json = copy / JSON_NAME
    board_json.write_text(board_json.read_text().replace(
        first.submission_sha256, "sha256:" + hashlib.sha256(not_a_submission).hexdigest()))
    code, text = run(capsys, "verify", copy, "--tier", "small")
    assert code == 1
    assert (f"MISMATCH {first.label}: submission recorded 'valid', recomputed "
            "'/: \"schema_version\" is required") in text
    stored.unlink()
    code, text = run(capsys, "verify", copy, "--tier", "small")
    assert code == 1
    assert (f"MISMATCH {first.label}: submission_path recorded '{first.submission_path}', "
            "recomputed \"unreadable: ") in text and "No such file" in text


def test_a_row_at_another_version_than_its_board_is_named(tmp_path, board, capsys):
    copy = small_board_copy(board, tmp_path)
    board_json = copy / JSON_NAME
    doc = json.loads(board_json.read_text())
    doc["entries"][1]["schema_version"] = "0.1"
    board_json.write_text(json.dumps(doc, indent=1))
    code, text = run(capsys, "verify", copy, "--tier", "small")
    assert code == 1
    assert (f"MISMATCH entry 1: schema_version recorded '0.1', recomputed "
            f"\"{doc['schema_version']}, the board's") in text


def test_fractions_of_a_second_are_kept():
    assert parse_utc("2026-11-25T12:00:00.25Z").microsecond == 250000
    assert parse_utc("2026-11-25T12:00:00.000001Z").microsecond == 1
    assert parse_utc("2026-11-25T12:00:00Z").microsecond == 0


# Outputs inside a board would be strays that fail its verification.

@pytest.mark.slow
@pytest.mark.parametrize("inside", [".", "site", "submissions/site"])
def test_no_output_folder_may_lie_inside_a_board(tmp_path, board, capsys, inside):
    folder = small_board_copy(board, tmp_path)
    before = snapshot(folder)
    code, text = run(capsys, "render", "--dir", folder, "--outdir", folder / inside)
    assert code == 2 and "lies inside the leaderboard" in text and str(folder) in text, text
    assert snapshot(folder) == before
    code, text = run(capsys, "verify", "--dir", folder, "--tier", "small", "--jobs", "1")
    assert code == 0, text
    code, text = run(capsys, "render", "--dir", folder, "--outdir", tmp_path / "site")
    assert code == 0 and (tmp_path / "site" / "index.html").is_file(), text


@pytest.mark.parametrize("notes", ["-2+3", "--dir", "-h", "- a list"])
def test_notes_that_start_with_a_dash_are_notes(tmp_path, board, capsys, notes):
    folder = small_board_copy(board, tmp_path)
    path = _file(tmp_path, submission_doc("mbcnet_v0_1", "linear_lowhet"), "s.json")
    code, text = run(capsys, "add", path, "--notes", notes, "--dir", folder)
    assert code == 0, text
    assert read_entries(folder)[-1].notes == notes


def test_a_look_alike_of_a_contributed_name_says_where_the_other_is():
    """The message names the model it would be confused with and that it is already on
    the board (not a reference model, which has messages of its own)."""
    from icgbench.leaderboard.names import name_clash

    problem = name_clash([("my_model", "1.0")], "my_rnodel", "1.0")
    assert problem is not None
    assert "'my_rnodel' differs from 'my_model' (already on the board)" in problem
