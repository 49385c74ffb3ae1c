"""The leaderboard: entries, the append-only store, concurrency, crashes, migrations, verify."""

from __future__ import annotations

import copy
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from jsonschema import Draft7Validator

from icgbench import contract
from icgbench.cli import main
from icgbench.errors import InvalidInputError, UsageError
from icgbench.leaderboard import (
    LeaderboardEntry,
    append_entry,
    migrate_leaderboard_entries,
    read_entries,
)
from icgbench.leaderboard.board import add, safe_target, verify
from icgbench.leaderboard.store import CSV_NAME, JSON_NAME, csv_text
from leaderboard_helpers import submission_doc, submission_file

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = json.loads((ROOT / "schemas" / "examples" / "leaderboard-entry.json").read_text())


def entry(**changes) -> LeaderboardEntry:
    return LeaderboardEntry.from_dict({**copy.deepcopy(EXAMPLE), **changes})


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    folder = tmp_path_factory.mktemp("board")
    staging = tmp_path_factory.mktemp("incoming")
    for model in ("random", "mbcnet_v0_1"):
        for variant in ("linear_lowhet", "misspecified_signs"):
            add(submission_file(staging, model, variant), folder, notes="test")
    return folder


def test_entries_follow_the_entry_schema(board):
    entries = read_entries(board)
    assert len(entries) == 4
    validator = Draft7Validator(contract.json_schema("leaderboard-entry"))
    for e in entries:
        assert validator.is_valid(e.as_dict())
        assert e.schema_version == "0.1" and e.submitted_at.endswith("Z")
        assert e.submission_path == f"submissions/{e.model_name}/{e.variant_name}__seed0.json.gz"
        assert (board / e.submission_path).read_bytes()[:2] == b"\x1f\x8b"
        assert set(e.scores["risk_prediction"]) == {"auroc", "auprc", "brier", "ece"}
    assert (board / CSV_NAME).read_text() == csv_text(entries)


def test_verify_passes_and_names_every_discrepancy(board, tmp_path):
    entries, problems = verify(board)
    assert len(entries) == 4 and problems == []
    import shutil

    copy_board = tmp_path / "copy"
    shutil.copytree(board, copy_board)
    doc = json.loads((copy_board / JSON_NAME).read_text())
    doc["entries"][0]["scores"]["risk_prediction"]["auroc"] = 0.99
    doc["entries"][1]["variant_hash"] = "0" * 12
    (copy_board / JSON_NAME).write_text(json.dumps(doc))
    (copy_board / CSV_NAME).write_text(csv_text([LeaderboardEntry.from_dict(e)
                                                 for e in doc["entries"]]))
    _, problems = verify(copy_board)
    fields = {(p.entry.split(" on ")[0], p.field) for p in problems}
    assert ("random 0.1.0", "scores.risk_prediction.auroc") in fields
    assert any(f == "variant_hash" for _, f in fields)
    assert main(["leaderboard", "verify", str(copy_board)]) == 1


def test_verify_detects_a_replaced_submission_and_an_edited_csv(board, tmp_path):
    import shutil

    copy_board = tmp_path / "copy"
    shutil.copytree(board, copy_board)
    target = copy_board / read_entries(copy_board)[0].submission_path
    target.write_bytes(target.read_bytes()[:-8] + b"\x00" * 8)
    (copy_board / CSV_NAME).write_text((copy_board / CSV_NAME).read_text().replace(
        "test", "edited", 1))
    _, problems = verify(copy_board)
    fields = {p.field for p in problems}
    assert {"content", "submission_sha256"} <= fields
    with pytest.raises(InvalidInputError, match=r"differs from leaderboard\.json"):
        append_entry(entry(), copy_board)  # writers refuse an edited CSV


def test_add_refuses_duplicates_and_oracles(board, tmp_path):
    with pytest.raises(InvalidInputError, match=r"already has random 0\.1\.0 on linear_lowhet"):
        add(submission_file(tmp_path, "random", "linear_lowhet"), board)
    with pytest.raises(UsageError, match="oracle"):
        add(submission_file(tmp_path, "oracle", "linear_lowhet"), board)


def test_model_names_cannot_escape_the_folder(tmp_path):
    assert safe_target(tmp_path, "submissions/m/x.json.gz").is_relative_to(tmp_path)
    with pytest.raises(UsageError, match="escape"):
        safe_target(tmp_path, "submissions/../../etc/passwd")
    doc = submission_doc("random", "linear_lowhet")
    doc["model"]["name"] = "../evil"
    path = tmp_path / "evil.json"
    path.write_text(json.dumps(doc))
    assert main(["leaderboard", "add", str(path), "--dir", str(tmp_path / "b")]) == 1
    assert not (tmp_path / "evil").exists() and not (tmp_path / "b" / JSON_NAME).exists()


def test_readers_fail_closed_on_unknown_versions(tmp_path):
    (tmp_path / JSON_NAME).write_text(json.dumps({"schema_version": "0.1", "entries": [
        {**EXAMPLE, "schema_version": "0.2"}]}))
    with pytest.raises(InvalidInputError, match="no migration from it"):
        read_entries(tmp_path)
    (tmp_path / JSON_NAME).write_text(json.dumps({"schema_version": "9", "entries": []}))
    with pytest.raises(InvalidInputError, match="schema_version '9'"):
        read_entries(tmp_path)
    with pytest.raises(InvalidInputError):
        append_entry(entry(), tmp_path)


def test_registered_migrations_are_applied_in_order():
    old = {**EXAMPLE, "schema_version": "0.0", "variant": EXAMPLE["variant_name"]}
    del old["variant_name"]

    def from_00(e):
        e["variant_name"] = e.pop("variant")
        e["schema_version"] = "0.1"
        return e

    migrated = migrate_leaderboard_entries([old], {"0.0": from_00})
    assert LeaderboardEntry.from_dict(migrated[0]).variant_name == EXAMPLE["variant_name"]
    looping = {"0.0": lambda e: {**e, "schema_version": "0.0"}}
    with pytest.raises(InvalidInputError):
        migrate_leaderboard_entries([old], looping)


APPENDER = """
import sys
from pathlib import Path
from icgbench.leaderboard import LeaderboardEntry, append_entry
import json
example = json.loads(Path(sys.argv[1]).read_text())
folder, worker, count = Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
for i in range(count):
    e = dict(example, model_name=f"w{worker}", seed=i, notes=f"worker {worker} entry {i}")
    append_entry(LeaderboardEntry.from_dict(e), folder)
"""


def _spawn(tmp_path: Path, worker: int, count: int) -> subprocess.Popen:
    example = tmp_path / "example.json"
    example.write_text(json.dumps(EXAMPLE))
    return subprocess.Popen([sys.executable, "-c", APPENDER, str(example),
                             str(tmp_path / "board"), str(worker), str(count)])


def test_concurrent_appenders_lose_nothing(tmp_path):
    workers = [_spawn(tmp_path, w, 15) for w in range(4)]
    assert all(p.wait(timeout=120) == 0 for p in workers)
    entries = read_entries(tmp_path / "board")
    assert len(entries) == 60
    assert {(e.model_name, e.seed) for e in entries} == {(f"w{w}", i) for w in range(4)
                                                           for i in range(15)}
    assert (tmp_path / "board" / CSV_NAME).read_text() == csv_text(entries)


def test_a_killed_writer_leaves_old_or_new_files_never_partial(tmp_path):
    board = tmp_path / "board"
    for attempt in range(4):
        process = _spawn(tmp_path, attempt, 400)
        time.sleep(1.0 + 0.2 * attempt)
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        entries = read_entries(board)  # parses: never a partial JSON file
        csv = (board / CSV_NAME).read_text() if (board / CSV_NAME).exists() else ""
        assert csv_text(entries).startswith(csv)  # the CSV lags by at most the last row
        rows = max(0, csv.count("\n") - 1)
        assert len(entries) - rows in (0, 1)
    assert len(read_entries(board)) > 0


def test_show_ranks_with_mean_and_std(board, capsys):
    assert main(["leaderboard", "show", "--dir", str(board), "--task", "risk_prediction",
                 "--variant", "linear_lowhet"]) == 0
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line.strip().startswith(("1.", "2."))]
    assert "mbcnet_v0_1" in lines[0] and "random" in lines[1]
    assert out.strip().endswith(f"read 4 entries from {board}")
