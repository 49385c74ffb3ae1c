"""The board's history and the pull-request check: trusted code on untrusted data.

``verify --base REF`` must fail any change that rewrites the past while the end state still
re-scores cleanly; ``tools/ci/pr-scope`` fails a PR that touches anything but the board;
``tools/ci/verify-board`` (what the workflow runs) grades the PR's board with the trusted
checkout's code and release, never the PR's.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from git_helpers import cloned, commit, git
from icgbench.leaderboard.board import add
from icgbench.leaderboard.entry import LeaderboardEntry
from icgbench.leaderboard.store import CSV_NAME, JSON_NAME, csv_text, json_text
from icgbench.leaderboard.verify import verify
from leaderboard_helpers import submission_doc, submission_file, two_entry_repository

# Pages here are read for their tables, links and files: built without the board's figures.
pytestmark = pytest.mark.usefixtures("no_board_figures")

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    """A repository whose base commit holds a two-entry small-tier board."""
    repo, staging = two_entry_repository(tmp_path_factory)
    (repo / "README.md").write_text("a project\n")
    base = commit(repo, "base board")
    return repo, base, staging


@pytest.fixture
def work(history, tmp_path):
    """A fresh clone of the history repository to change and verify."""
    repo, base, staging = history
    return cloned(repo, tmp_path / "clone"), base, staging


def _rewrite(board: Path, change) -> None:
    doc = json.loads((board / JSON_NAME).read_text())
    change(doc["entries"])
    entries = [LeaderboardEntry.from_dict(e) for e in doc["entries"]]
    (board / JSON_NAME).write_text(json_text(doc["tier"], entries))
    (board / CSV_NAME).write_text(csv_text(entries))


def _history(board: Path, base: str) -> list[str]:
    _, problems = verify(board, tier="small", base=base)
    return [f"{p.entry}: {p.recomputed}" for p in problems]


def test_appending_extends_the_history(work):
    clone, base, staging = work
    add(submission_file(staging, "mbcnet_v0_1", "linear_lowhet"), clone / "leaderboard")
    commit(clone, "a new entry")
    assert _history(clone / "leaderboard", base) == []
    assert _history(clone / "leaderboard", "HEAD") == []


@pytest.mark.parametrize("change, expected", [
    (lambda es: es.pop(0), "removed"),
    (lambda es: es.clear(), "removed"),
    (lambda es: es.reverse(), "changed"),
    (lambda es: es[1].update(notes="edited"), "changed: notes"),
    (lambda es: es[0].update(submitted_at="2026-12-02T00:00:01Z"), "changed: submitted_at"),
])
def test_rewriting_the_past_fails_while_the_end_state_is_clean(work, change, expected):
    clone, base, _ = work
    board = clone / "leaderboard"
    _rewrite(board, change)
    for path in board.glob("submissions/*/*/*.json.gz"):  # drop what no entry references
        if path.relative_to(board).as_posix() not in (board / JSON_NAME).read_text():
            path.unlink()
    _, end_state = verify(board, tier="small")
    assert end_state == []  # every number re-scores: only the history check sees it
    assert any(expected in line for line in _history(board, base))


def test_replacing_a_submission_together_with_its_scores_fails(work):
    clone, base, _ = work
    board = clone / "leaderboard"
    doc = submission_doc("random", "linear_lowhet")
    doc["risk_prediction"]["proba"] = [1.0 - p for p in doc["risk_prediction"]["proba"]]
    replacement = clone / "replacement.json"
    replacement.write_text(json.dumps(doc))
    fresh = clone / "fresh"
    entry = add(replacement, fresh, tier="small")
    (board / entry.submission_path).write_bytes((fresh / entry.submission_path).read_bytes())
    shutil.rmtree(fresh)
    replacement.unlink()

    def swap(entries):
        i = next(i for i, e in enumerate(entries) if e["model_name"] == "random")
        entries[i].update(scores=entry.scores, submission_sha256=entry.submission_sha256)

    _rewrite(board, swap)
    assert verify(board, tier="small")[1] == []
    assert any("changed: scores, submission_sha256" in line
               for line in _history(board, base))


def test_the_tier_of_a_board_cannot_change(work):
    clone, base, _ = work
    board = clone / "leaderboard"
    doc = json.loads((board / JSON_NAME).read_text())
    doc["tier"] = "full"
    (board / JSON_NAME).write_text(json.dumps(doc))
    _, problems = verify(board, tier="small", base=base)
    assert any(p.field == "tier" and p.entry == JSON_NAME and "small" in str(p.recorded)
               and p.recomputed == "full" for p in problems)


def test_bad_refs_and_folders_outside_git_are_usage_errors(work, tmp_path):
    from icgbench.cli import main

    clone, _, _ = work
    board = clone / "leaderboard"
    assert main(["leaderboard", "verify", "--dir", str(board), "--tier", "small", "--base",
                 "no-such-ref"]) == 2
    assert main(["leaderboard", "verify", "--dir", str(board), "--tier", "small",
                 "--base=--upload-pack=evil"]) == 2
    outside = tmp_path / "outside"
    shutil.copytree(board, outside)
    assert main(["leaderboard", "verify", "--dir", str(outside), "--tier", "small", "--base",
                 "HEAD"]) == 2


def _scope(repo: Path, base: str, head: str, *flag: str) -> subprocess.CompletedProcess:
    return subprocess.run([ROOT / "tools/ci/pr-scope", repo, base, head, *flag],
                          capture_output=True, text=True, check=False)


def test_a_pull_request_may_change_the_board_only(work):
    clone, base, staging = work
    add(submission_file(staging, "mbcnet_v0_1", "linear_lowhet"), clone / "leaderboard")
    head = commit(clone, "board only")
    ok = _scope(clone, base, head)
    assert ok.returncode == 0 and "inside leaderboard/" in ok.stdout
    (clone / "datapackage.json").write_text("{}")  # the release, rewritten in the same PR
    (clone / "odd name\nwith newline").write_text("x")
    head = commit(clone, "and the release")
    refused = _scope(clone, base, head)
    assert refused.returncode == 1
    assert "datapackage.json" in refused.stderr and "maintainer-approved" in refused.stderr
    assert _scope(clone, base, head, "--maintainer-approved").returncode == 0
    assert _scope(clone, base, head, "--yes").returncode == 2


@pytest.fixture(scope="module")
def full_board_prefix(full_tier_root, tmp_path_factory):
    """A repository whose base holds the first 3 entries of the committed (full) board."""
    committed = ROOT / "leaderboard"
    doc = json.loads((committed / JSON_NAME).read_text())
    repo = tmp_path_factory.mktemp("candidate")
    git(repo, "init", "-q", "-b", "main")

    def write(n: int) -> None:
        entries = [LeaderboardEntry.from_dict(e) for e in doc["entries"][:n]]
        board = repo / "leaderboard"
        for e in entries:
            (board / e.submission_path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(committed / e.submission_path, board / e.submission_path)
        (board / JSON_NAME).write_text(json_text("full", entries))
        (board / CSV_NAME).write_text(csv_text(entries))

    write(2)
    base = commit(repo, "base")
    write(3)
    (repo / "datapackage.json").write_text('{"name": "icg-bench-tampered", "resources": []}')
    head = commit(repo, "one more entry, and a release of its own")
    return repo, base, head


@pytest.mark.slow  # deep-verifies the whole full tier first (the scope check is fast, above)
def test_the_workflow_grades_a_pr_board_with_the_trusted_code_and_release(full_board_prefix):
    repo, base, head = full_board_prefix
    script = ROOT / "tools/ci/verify-board"
    refused = subprocess.run([script, ROOT, repo, base, head], capture_output=True, text=True,
                             check=False, timeout=600)
    assert refused.returncode == 1 and "datapackage.json" in refused.stderr
    approved = subprocess.run([script, ROOT, repo, base, head, "--maintainer-approved"],
                              capture_output=True, text=True, check=False, timeout=600)
    assert approved.returncode == 0, approved.stdout[-2000:] + approved.stderr[-2000:]
    assert "OK: 3 entries" in approved.stdout  # the PR's own datapackage.json was never read
    assert f"verified by the code and release of {ROOT}" in approved.stdout


# Append-only means bytes: the rows as committed at the base, before any migration.

def _cli_verify(board: Path, base: str, capsys) -> tuple[int, str]:
    from icgbench.cli import main

    code = main(["leaderboard", "verify", "--dir", str(board), "--tier", "small", "--jobs", "1",
                 "--base", base])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    return code, captured.out + captured.err


def _write_text_board(board: Path, text: str) -> None:
    """``leaderboard.json`` as ``text`` (bytes kept), the CSV rendered from its values."""
    (board / JSON_NAME).write_text(text)
    entries = [LeaderboardEntry.from_dict(e) for e in json.loads(text)["entries"]]
    (board / CSV_NAME).write_text(csv_text(entries))


def test_rewriting_numbers_of_the_same_value_fails_the_history(work, capsys):
    clone, base, _ = work
    board = clone / "leaderboard"
    text = (board / JSON_NAME).read_text()
    text, ints = re.subn(r'"k": (\d+)', r'"k": \1.0', text)  # 53 -> 53.0
    text, longer = re.subn(r': (\d+\.\d*[1-9])(,?\n)', r': \g<1>0\2', text)  # 0.25 -> 0.250
    assert ints and longer
    _write_text_board(board, text)
    assert verify(board, tier="small")[1] == []  # the same values: the end state is clean
    code, out = _cli_verify(board, base, capsys)
    assert code == 1 and "entry 0 (random" in out and "changed: scores" in out, out


def test_rewriting_the_layout_of_a_row_fails_the_history(work, capsys):
    clone, base, _ = work
    board = clone / "leaderboard"
    _write_text_board(board, json.dumps(json.loads((board / JSON_NAME).read_text()),
                                        indent=2) + "\n")
    assert verify(board, tier="small")[1] == []
    code, out = _cli_verify(board, base, capsys)
    assert code == 1 and "the bytes of its row" in out, out


def test_a_merged_row_rewritten_at_an_older_schema_version_fails(work, capsys):
    clone, base, _ = work
    board = clone / "leaderboard"
    doc = json.loads((board / JSON_NAME).read_text())
    old = {k: v for k, v in doc["entries"][0].items() if k != "tier"}
    old.update(schema_version="0.1", submission_path="../../../../etc/passwd")
    doc["entries"][0] = old
    (board / JSON_NAME).write_text(json.dumps(doc, indent=1))
    code, out = _cli_verify(board, base, capsys)
    assert code == 1 and "changed: schema_version, submission_path, tier" in out, out
    _, problems = verify(board, tier="small")  # and without --base: a 0.1 row in a 0.2 board
    assert any(p.entry == "entry 0" and p.field == "schema_version" for p in problems)


def _as_0_1(board: Path, first_path: str | None = None) -> None:
    """The board rewritten at schema version 0.1 (no tier, paths without the version)."""
    doc = json.loads((board / JSON_NAME).read_text())
    rows = []
    for e in doc["entries"]:
        row = {k: v for k, v in e.items() if k != "tier"}
        row.update(schema_version="0.1", submission_path=(
            f"submissions/{e['model_name']}/{e['variant_name']}__seed{e['seed']}.json.gz"))
        (board / e["submission_path"]).rename(board / row["submission_path"])
        rows.append(row)
    if first_path is not None:
        rows[0]["submission_path"] = first_path
    (board / JSON_NAME).write_text(json.dumps({"schema_version": "0.1", "entries": rows},
                                              indent=1))
    (board / CSV_NAME).unlink()


def test_the_migration_of_a_0_1_base_keeps_the_history(work):
    from icgbench.leaderboard.maintenance import migrate

    clone, _, _ = work
    board = clone / "leaderboard"
    _as_0_1(board)
    old = commit(clone, "a 0.1 board")
    assert migrate(board) == 2
    _, problems = verify(board, tier="full", base=old)
    assert [p for p in problems if p.field == "history"] == []  # its migration, exactly


def test_a_base_path_outside_the_board_is_never_read(work):
    from icgbench.leaderboard.store import entries_of, parse_board, write_board

    clone, _, _ = work
    board = clone / "leaderboard"
    _as_0_1(board, first_path="../README.md")  # a file of the repository, outside the board
    old = commit(clone, "a 0.1 board naming a path outside itself")
    entries = entries_of(parse_board((board / JSON_NAME).read_bytes(), JSON_NAME), JSON_NAME)
    for e in entries:  # the board as its migration would write it
        (board / e.submission_path).parent.mkdir(parents=True, exist_ok=True)
        (board / f"submissions/{e.model_name}/{e.variant_name}__seed{e.seed}.json.gz").rename(
            board / e.submission_path)
    write_board(board, "full", entries)
    _, problems = verify(board, tier="full", base=old)
    assert [str(p.recomputed) for p in problems if p.field == "history"] == [
        "'../README.md' has an empty, '.' or '..' part (a board path stays inside the board)"]


def _set_release(board: Path, which: slice, version: str) -> None:
    doc = json.loads((board / JSON_NAME).read_text())
    for e in doc["entries"][which]:
        e["data_version"] = version
    entries = [LeaderboardEntry.from_dict(e) for e in doc["entries"]]
    (board / JSON_NAME).write_text(json_text(doc["tier"], entries))
    (board / CSV_NAME).write_text(csv_text(entries))


@pytest.mark.parametrize("which, closed", [(slice(None), True), (slice(0, 1), False)])
def test_a_board_of_an_earlier_major_release_is_closed(work, capsys, which, closed):
    """A base board whose every entry was graded on an earlier major release starts a new
    history (the new release's board replaces it); a board with any entry of this release
    does not."""
    clone, _, _ = work
    board = clone / "leaderboard"
    good = {n: (board / n).read_bytes() for n in (JSON_NAME, CSV_NAME)}
    _set_release(board, which, "4.0.0")
    old = commit(clone, "the board of release 4.0.0")
    for name, data in good.items():  # this release's board, from scratch
        (board / name).write_bytes(data)
    code, out = _cli_verify(board, old, capsys)
    if closed:
        assert code == 0, out
    else:
        assert code == 1 and "changed: data_version" in out, out


def _infinite(board: Path) -> None:
    text, count = re.subn(r'"auroc": [0-9.e-]+', '"auroc": 1e999',
                          (board / JSON_NAME).read_text(), count=1)
    assert count == 1
    (board / JSON_NAME).write_text(text)


def test_a_non_finite_score_at_the_base_or_now_is_a_clear_error(work, capsys):
    clone, base, _ = work
    board = clone / "leaderboard"
    good = (board / JSON_NAME).read_bytes()
    _infinite(board)
    code, out = _cli_verify(board, base, capsys)
    assert code == 1 and "entry 0: field scores.risk_prediction.auroc is inf" in out, out
    bad = commit(clone, "a board with 1e999")
    (board / JSON_NAME).write_bytes(good)
    code, out = _cli_verify(board, bad, capsys)
    assert code == 1 and "non-finite" in out and "history" in out, out


def test_with_a_base_only_the_entries_added_since_are_re_scored(work, capsys, monkeypatch):
    """The base board was verified when it merged: ``--base`` re-grades the new entries only,
    ``--full`` every entry. So a base whose recorded score no longer reproduces (a scorer
    changed since, or a merge that slipped) passes ``--base`` and fails ``--full``; CI runs
    the full re-grade of the committed board on every test run."""
    from icgbench.cli import main
    from icgbench.leaderboard import verify as verify_module

    clone, _, staging = work
    board = clone / "leaderboard"
    _rewrite(board, lambda es: es[0]["scores"]["risk_prediction"].update(auroc=0.123))
    drifted = commit(clone, "a base whose first score does not reproduce")
    add(submission_file(staging, "mbcnet_v0_1", "linear_lowhet"), board)
    commit(clone, "a new entry")
    graded = []
    real = verify_module.verify_entry

    def counting(folder, entry, *rest):
        graded.append(entry.model_name)
        return real(folder, entry, *rest)

    monkeypatch.setattr(verify_module, "verify_entry", counting)
    argv = ["leaderboard", "verify", "--dir", str(board), "--tier", "small", "--jobs", "1",
            "--base", drifted]
    assert main(argv) == 0
    assert graded == ["mbcnet_v0_1"]
    assert f"checked against {drifted}; the entries added since re-scored" in (
        capsys.readouterr().out)
    graded.clear()
    assert main([*argv, "--full"]) == 1
    assert sorted(graded) == ["logistic_direct", "mbcnet_v0_1", "random"]
    assert "scores.risk_prediction.auroc recorded 0.123" in capsys.readouterr().out
    assert main(["leaderboard", "verify", "--dir", str(board), "--tier", "small", "--full"]) == 2


def test_without_the_key_a_sealed_board_new_since_the_base_may_not_hold_entries(
        work, monkeypatch):
    """A pull request that creates the sealed board with an entry in it: nothing at the
    base, so every entry is new, and without the key none can be graded: refused."""
    from icgbench.leaderboard.history import history_problems, read_base, verified_rows
    from icgbench.leaderboard.store import parse_board, read_json_file

    clone, base, _ = work
    board = clone / "leaderboard"
    commit(clone, "unchanged")
    data = read_json_file(board)
    raw = parse_board(data, "board")
    added = history_problems(base, read_base(board, base), board, raw, data,
                             new_entries=False)
    assert added == []  # the public board at the base had these entries already
    sealed = clone / "leaderboard" / "sealed"
    sealed.mkdir()
    (sealed / JSON_NAME).write_text((board / JSON_NAME).read_text())
    commit(clone, "a sealed board in a pull request")
    raw = parse_board(read_json_file(sealed), "sealed board")
    assert read_base(sealed, base) is None
    problems = history_problems(base, None, sealed, raw, read_json_file(sealed),
                                new_entries=False)
    assert [p.entry.split(" (")[0] for p in problems] == ["entry 0", "entry 1"]
    assert all("a sealed entry is added by the CI's admission" in p.recomputed
               for p in problems)
    assert verified_rows(None, data) == 0 and verified_rows(read_base(board, base), data) == 2


def test_unchanged_stored_files_are_compared_by_blob_and_any_change_by_bytes(work,
                                                                           monkeypatch):
    """A clean work tree whose stored files have the base's blobs needs no file read; a
    replaced file, committed or only in the work tree, or a link in its place, is read and
    caught."""
    from icgbench.leaderboard import gitrepo

    clone, base, staging = work
    board = clone / "leaderboard"
    add(submission_file(staging, "mbcnet_v0_1", "linear_lowhet"), board)
    commit(clone, "a new entry")
    reads = []
    real_read = gitrepo.Blobs.read
    monkeypatch.setattr(gitrepo.Blobs, "read",
                        lambda self, path, limit: reads.append(path) or real_read(
                            self, path, limit))
    assert _history(board, base) == []
    # the board's two files are read; the stored files are compared by blob id
    assert set(reads) == {"leaderboard/leaderboard.json", "leaderboard/leaderboard.csv"}

    first = json.loads((board / JSON_NAME).read_text())["entries"][0]["submission_path"]
    stored = board / first
    original = stored.read_bytes()
    stored.write_bytes(original + b"\n")  # in the work tree only
    assert any(": now sha256:" in p for p in _history(board, base))
    commit(clone, "the replacement committed")
    assert any(": now sha256:" in p for p in _history(board, base))
    stored.unlink()
    (clone / "elsewhere.json.gz").write_bytes(original)
    stored.symlink_to(clone / "elsewhere.json.gz")
    commit(clone, "a link with the same bytes behind it")
    assert any(p.startswith("entry 0 ") and p.endswith(": now None")  # not a regular file
               for p in _history(board, base))


def _counting_validation(monkeypatch) -> list[str]:
    """Every row the entry schema checks from now on (by label)."""
    checked: list[str] = []
    real = LeaderboardEntry.from_dict.__func__

    def counting(cls, data):
        checked.append(f"{data.get('model_name')} {data.get('variant_name')}")
        return real(cls, data)

    monkeypatch.setattr(LeaderboardEntry, "from_dict", classmethod(counting))
    return checked


def test_adding_to_a_committed_board_checks_and_renders_only_the_new_row(work, monkeypatch):
    """A board whose two files are HEAD's was verified when it merged: ``add`` neither
    re-validates its rows nor re-renders them, and writes the bytes a full rendering would."""
    clone, _, staging = work
    board = clone / "leaderboard"
    checked = _counting_validation(monkeypatch)
    entry = add(submission_file(staging, "mbcnet_v0_1", "linear_lowhet"), board)
    assert checked == [f"{entry.model_name} {entry.variant_name}"]  # the new row only
    monkeypatch.undo()
    entries = [LeaderboardEntry.from_dict(e)
               for e in json.loads((board / JSON_NAME).read_text())["entries"]]
    assert entries[-1] == entry and len(entries) == 3
    assert (board / JSON_NAME).read_text() == json_text("small", entries)
    assert (board / CSV_NAME).read_text() == csv_text(entries)


def test_an_uncommitted_board_is_checked_row_by_row_before_an_add(work, monkeypatch):
    """Edited in the work tree (or never committed), the board is not trusted: every row
    is validated, and a bad one stops the add with its place named."""
    clone, _, staging = work
    board = clone / "leaderboard"
    checked = _counting_validation(monkeypatch)
    text = (board / JSON_NAME).read_text()
    doc = json.loads(text)
    doc["entries"][0]["seed"] = "one"
    (board / JSON_NAME).write_text(json.dumps(doc, indent=1))
    with pytest.raises(Exception, match=r"entry 0: leaderboard entry invalid at seed"):
        add(submission_file(staging, "mbcnet_v0_1", "linear_lowhet"), board)
    assert len(checked) == 1
    (board / JSON_NAME).write_text(text)
    checked.clear()
    git(clone, "rm", "-q", "--cached", f"leaderboard/{CSV_NAME}")  # tracked no more
    add(submission_file(staging, "mbcnet_v0_1", "linear_lowhet"), board)
    assert len(checked) == 3  # the two rows and the new one


def test_a_behind_or_hand_formatted_board_is_rendered_whole_by_add(work):
    """The splice needs the files exactly as a writer leaves them; a CSV one row behind (a
    killed writer) is rendered again, and so is a JSON document formatted by hand."""
    clone, _, staging = work
    board = clone / "leaderboard"
    csv_bytes = (board / CSV_NAME).read_bytes()
    (board / CSV_NAME).write_bytes(csv_bytes[:csv_bytes.rstrip(b"\n").rindex(b"\n") + 1])
    doc = json.loads((board / JSON_NAME).read_text())
    (board / JSON_NAME).write_text(json.dumps(doc))
    add(submission_file(staging, "mbcnet_v0_1", "linear_lowhet"), board)
    entries = [LeaderboardEntry.from_dict(e)
               for e in json.loads((board / JSON_NAME).read_text())["entries"]]
    assert (board / JSON_NAME).read_text() == json_text("small", entries)
    assert (board / CSV_NAME).read_text() == csv_text(entries)


def test_verify_base_checks_only_the_rows_added_or_changed_since(work, monkeypatch):
    """Rows byte for byte the base's were verified when they merged: not validated again
    (nor re-graded); an added row and a changed one are, and a CSV row changed in the
    base's part is still caught."""
    clone, base, staging = work
    board = clone / "leaderboard"
    add(submission_file(staging, "mbcnet_v0_1", "linear_lowhet"), board)
    commit(clone, "a new entry")
    checked = _counting_validation(monkeypatch)
    assert _history(board, base) == []
    assert set(checked) == {"mbcnet_v0_1 linear_lowhet"}  # the base's rows: not checked
    checked.clear()
    _rewrite(board, lambda rows: rows[1].update(notes="edited"))
    checked.clear()
    assert any("changed: notes" in p for p in _history(board, base))
    rows = json.loads((board / JSON_NAME).read_text())["entries"]
    assert set(checked) == {f"{r['model_name']} linear_lowhet" for r in rows[1:]}
    git(clone, "checkout", "-q", "--", ".")
    csv_text_now = (board / CSV_NAME).read_text()
    (board / CSV_NAME).write_text(csv_text_now.replace('"base"', '"based"', 1))
    assert any(p.startswith(f"{CSV_NAME}:") for p in _history(board, base))


# The repository's own configuration runs nothing: a board folder may be a stranger's clone.

def _planted_fsmonitor(clone: Path) -> Path:
    """A ``core.fsmonitor`` program in ``clone``'s config that leaves a marker when run;
    plain ``git status`` runs it (the attack is real), so the marker is removed after."""
    marker = clone.parent / "fsmonitor-ran"
    hook = clone.parent / "fsmonitor.sh"
    hook.write_text(f"#!/bin/sh\necho ran >>{marker}\n")
    hook.chmod(0o755)
    git(clone, "config", "core.fsmonitor", str(hook))
    return _ran_under_plain_git(clone, marker, "core.fsmonitor")


def _ran_under_plain_git(clone: Path, marker: Path, what: str) -> Path:
    """``marker``, after checking that plain ``git status`` in ``clone`` runs ``what`` (the
    attack is real) and removing what it left."""
    subprocess.run(["git", "status", "--porcelain"], cwd=clone, capture_output=True,
                   check=False)
    assert marker.exists(), f"git status no longer runs {what}: the test proves nothing"
    marker.unlink()
    return marker


def test_board_commands_run_no_program_the_repository_names(work, capsys):
    from icgbench.cli import main

    clone, base, staging = work
    board = clone / "leaderboard"
    marker = _planted_fsmonitor(clone)
    git(clone, "config", "diff.external", str(clone.parent / "fsmonitor.sh"))
    code = main(["leaderboard", "add", "--dir", str(board),
                 str(submission_file(staging, "mbcnet_v0_1", "linear_lowhet"))])
    assert code == 0, capsys.readouterr().err
    assert not marker.exists()
    git(clone, "-c", "core.fsmonitor=false", "add", "-A")
    git(clone, "-c", "core.fsmonitor=false", "commit", "-qm", "a new entry")
    code, out = _cli_verify(board, base, capsys)
    assert code == 0, out
    assert not marker.exists()


def _planted_drivers(clone: Path) -> Path:
    """Issue 49, item 2: a clean and a long-running process filter, a text conversion and a
    merge driver, named in an included config file (as ``.git/config`` could name them), on
    every file of ``clone``; plain ``git status`` runs the filter (the attack is real)."""
    marker = clone.parent / "driver-ran"
    program = clone.parent / "driver.sh"
    program.write_text(f"#!/bin/sh\necho ran >>{marker}\ncat\n")
    program.chmod(0o755)
    included = clone.parent / "included.config"
    included.write_text(f"[filter \"evil\"]\n\tclean = {program}\n\tsmudge = {program}\n"
                        f"\tprocess = {program}\n\trequired = true\n"
                        f"[diff \"evil\"]\n\ttextconv = {program}\n"
                        f"[merge \"evil\"]\n\tdriver = {program}\n")
    git(clone, "config", "include.path", str(included))
    (clone / ".git" / "info").mkdir(exist_ok=True)
    (clone / ".git" / "info" / "attributes").write_text("* filter=evil diff=evil merge=evil\n")
    (clone / "README.md").write_text("touched\n")  # status must look at its content
    return _ran_under_plain_git(clone, marker, "a filter")


def test_no_filter_text_conversion_or_merge_driver_of_the_repository_runs(work, capsys):
    from icgbench.cli import main

    clone, base, staging = work
    board = clone / "leaderboard"
    marker = _planted_drivers(clone)
    code = main(["leaderboard", "add", "--dir", str(board),
                 str(submission_file(staging, "mbcnet_v0_1", "linear_lowhet"))])
    assert code == 0, capsys.readouterr().err
    assert not marker.exists()
    code, out = _cli_verify(board, base, capsys)
    assert not marker.exists() and "Traceback" not in out, out
    done = subprocess.run([sys.executable, "-m", "icgbench.leaderboard.gitrepo", "-C",
                           str(clone), "status", "--porcelain"], capture_output=True,
                          check=False)
    assert done.returncode == 0 and b"README.md" in done.stdout
    assert not marker.exists()


def test_a_worktree_pointing_elsewhere_is_not_followed(work, capsys, tmp_path):
    """Issue 49, item 3: with ``core.worktree`` naming another folder, ``verify --base``
    died with a ValueError traceback; the board folder's own work tree is read."""
    clone, base, _ = work
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    git(clone, "config", "core.worktree", str(elsewhere))
    code, out = _cli_verify(clone / "leaderboard", base, capsys)
    assert "Traceback" not in out and code == 0, out


def test_every_ci_script_runs_git_through_the_one_hardened_command():
    """Issue 49, item 4: the hardening lived in three copies that had drifted."""
    for script in ("pr-scope", "verify-board", "admit-sealed"):
        text = (ROOT / "tools" / "ci" / script).read_text()
        code = [line.split("#")[0] for line in text.splitlines()]
        calls = [line for line in code if re.search(r"(^|[\s;(|&])git\s", line)
                 and not re.search(r"\b(echo|printf)\b", line)]  # a message names git
        assert calls == [], (script, calls)
        assert '"$ci_python" -m icgbench.leaderboard.gitrepo "$@"' in text, script


def test_a_board_file_git_was_told_to_skip_is_not_trusted(work, capsys):
    """``assume-unchanged`` hides an edited CSV from ``git status``: the HEAD fast path
    would splice the new row under it and the JSON and CSV would disagree. Not trusted,
    the board is checked whole, and the edit is found before anything is written."""
    from icgbench.cli import main

    clone, _, staging = work
    board = clone / "leaderboard"
    (board / CSV_NAME).write_text((board / CSV_NAME).read_text().replace("base", "forged"))
    git(clone, "update-index", "--assume-unchanged", f"leaderboard/{CSV_NAME}")
    assert git(clone, "status", "--porcelain") == ""  # git does not look at it
    before = {p.name: p.read_bytes() for p in board.iterdir() if p.is_file()}
    code = main(["leaderboard", "add", "--dir", str(board),
                 str(submission_file(staging, "mbcnet_v0_1", "linear_lowhet"))])
    err = capsys.readouterr().err
    assert code == 1 and "differs from leaderboard.json in earlier rows" in err, err
    assert {p.name: p.read_bytes() for p in board.iterdir() if p.is_file()} == before


@pytest.mark.parametrize("change", [
    lambda row: row.pop("notes"),
    lambda row: row.update(scores=[1, 2]),
    lambda row: row.update(scores={"risk_prediction": 0.5}),
    lambda row: row.update(seed="0"),
])
def test_a_malformed_row_at_head_stops_an_add_with_its_place_named(work, capsys, change):
    """HEAD's board is trusted as verified; a row that is not entry-shaped is validated
    after all: a message naming it, exit 2 or 1, never a traceback."""
    from icgbench.cli import main

    clone, _, staging = work
    board = clone / "leaderboard"
    doc = json.loads((board / JSON_NAME).read_text())
    change(doc["entries"][0])
    (board / JSON_NAME).write_text(json.dumps(doc, indent=1))
    commit(clone, "a malformed row")
    code = main(["leaderboard", "add", "--dir", str(board),
                 str(submission_file(staging, "mbcnet_v0_1", "linear_lowhet"))])
    captured = capsys.readouterr()
    assert code in (1, 2) and "Traceback" not in captured.err
    assert "entry 0" in captured.err and "invalid" in captured.err, captured.err
