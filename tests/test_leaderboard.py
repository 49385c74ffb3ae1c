"""The leaderboard: entries, the append-only store, concurrency, migrations, verify, show."""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft7Validator

from icgbench import __version__, contract
from icgbench.cli import main
from icgbench.errors import InvalidInputError, UsageError
from icgbench.leaderboard import (
    LeaderboardEntry,
    append_entry,
    migrate_leaderboard_entries,
    read_entries,
)
from icgbench.leaderboard.board import add
from icgbench.leaderboard.maintenance import migrate
from icgbench.leaderboard.store import CSV_NAME, JSON_NAME, csv_text, json_text
from icgbench.leaderboard.verify import verify
from leaderboard_helpers import small_board_copy, submission_doc, submission_file

# Pages here are read for their tables, links and files: built without the board's figures.
pytestmark = pytest.mark.usefixtures("no_board_figures")

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
            add(submission_file(staging, model, variant), folder, notes="test", tier="small")
    return folder


@pytest.mark.slow
def test_entries_follow_the_entry_schema(board):
    entries = read_entries(board)
    assert len(entries) == 4
    validator = Draft7Validator(contract.json_schema("leaderboard-entry"))
    for e in entries:
        assert validator.is_valid(e.as_dict())
        assert e.schema_version == "0.2" and e.submitted_at.endswith("Z") and e.tier == "small"
        assert e.submission_path == (f"submissions/{e.model_name}/{e.package_version}/"
                                     f"{e.variant_name}__seed0.json.gz")
        assert (board / e.submission_path).read_bytes()[:2] == b"\x1f\x8b"
        assert set(e.scores["risk_prediction"]) == {
            "spearman_reachable", "auroc", "auprc", "brier", "ece",
            "spearman_reachable__floor", "spearman_reachable__ceiling"}
    assert (board / CSV_NAME).read_bytes() == csv_text(entries).encode()
    assert json.loads((board / JSON_NAME).read_text())["tier"] == "small"


def test_verify_passes_and_names_every_discrepancy(board, tmp_path):
    entries, problems = verify(board, tier="small")
    assert len(entries) == 4 and problems == []
    copy_board = small_board_copy(board, tmp_path)
    doc = json.loads((copy_board / JSON_NAME).read_text())
    doc["entries"][0]["scores"]["risk_prediction"]["auroc"] = 0.99
    doc["entries"][1]["variant_hash"] = "0" * 12
    (copy_board / JSON_NAME).write_text(json.dumps(doc))
    (copy_board / CSV_NAME).write_text(csv_text([LeaderboardEntry.from_dict(e)
                                                 for e in doc["entries"]]))
    _, problems = verify(copy_board, tier="small")
    fields = {(p.entry.split(" on ")[0], p.field) for p in problems}
    assert (f"random {__version__}", "scores.risk_prediction.auroc") in fields
    assert any(f == "variant_hash" for _, f in fields)
    assert main(["leaderboard", "verify", "--dir", str(copy_board), "--tier", "small"]) == 1


def test_verify_detects_a_replaced_submission_and_an_edited_csv(board, tmp_path):
    copy_board = small_board_copy(board, tmp_path)
    target = copy_board / read_entries(copy_board)[0].submission_path
    target.write_bytes(target.read_bytes()[:-8] + b"\x00" * 8)
    (copy_board / CSV_NAME).write_text((copy_board / CSV_NAME).read_text().replace(
        "test", "edited", 1))
    _, problems = verify(copy_board, tier="small")
    fields = {p.field for p in problems}
    assert {"content", "submission_sha256"} <= fields
    with pytest.raises(InvalidInputError, match=r"differs from leaderboard\.json"):
        append_entry(entry(tier="small"), copy_board)  # writers refuse an edited CSV


def test_add_refuses_duplicates_and_oracles(board, tmp_path):
    duplicate = rf"already has random {re.escape(__version__)} on linear_lowhet"
    with pytest.raises(InvalidInputError, match=duplicate):
        add(submission_file(tmp_path, "random", "linear_lowhet"), board)
    with pytest.raises(UsageError, match="oracle"):
        add(submission_file(tmp_path, "oracle", "linear_lowhet"), board)


def test_model_names_cannot_escape_the_folder(tmp_path):
    doc = submission_doc("random", "linear_lowhet")
    doc["model"]["name"] = "../evil"
    path = tmp_path / "evil.json"
    path.write_text(json.dumps(doc))
    assert main(["leaderboard", "add", str(path), "--dir", str(tmp_path / "b"),
                 "--tier", "small"]) == 1
    assert not (tmp_path / "evil").exists() and not (tmp_path / "b" / JSON_NAME).exists()


def test_readers_fail_closed_on_unknown_versions(tmp_path):
    (tmp_path / JSON_NAME).write_text(json.dumps({"schema_version": "0.2", "tier": "full",
                                                  "entries": [{**EXAMPLE,
                                                               "schema_version": "0.3"}]}))
    with pytest.raises(InvalidInputError, match="no migration from it"):
        read_entries(tmp_path)
    (tmp_path / JSON_NAME).write_text(json.dumps({"schema_version": "9", "entries": []}))
    with pytest.raises(InvalidInputError, match="schema_version '9'"):
        read_entries(tmp_path)
    with pytest.raises(InvalidInputError):
        append_entry(entry(), tmp_path)


def test_writers_validate_the_entry_first(tmp_path):
    """append_entry refuses an entry the schema refuses, instead of storing it."""
    bad = LeaderboardEntry(**{**entry().as_dict(), "schema_version": "0.3"})
    with pytest.raises(InvalidInputError, match="schema_version"):
        append_entry(bad, tmp_path)
    assert not (tmp_path / JSON_NAME).exists()
    append_entry(entry(), tmp_path)
    assert [e.model_name for e in read_entries(tmp_path)] == [EXAMPLE["model_name"]]


def test_registered_migrations_are_applied_in_order():
    old = {**EXAMPLE, "schema_version": "0.0", "variant": EXAMPLE["variant_name"]}
    del old["variant_name"]

    def from_00(e):
        e["variant_name"] = e.pop("variant")
        e["schema_version"] = "0.2"
        return e

    migrated = migrate_leaderboard_entries([old], {"0.0": from_00})
    assert LeaderboardEntry.from_dict(migrated[0]).variant_name == EXAMPLE["variant_name"]
    looping = {"0.0": lambda e: {**e, "schema_version": "0.0"}}
    with pytest.raises(InvalidInputError):
        migrate_leaderboard_entries([old], looping)


def _as_0_1(folder: Path) -> None:
    """Rewrite a current board as a 0.1 board: no tier, paths without the model version."""
    doc = json.loads((folder / JSON_NAME).read_text())
    old_entries = []
    for e in doc["entries"]:
        old = {k: v for k, v in e.items() if k != "tier"}
        old["schema_version"] = "0.1"
        old["submission_path"] = (f"submissions/{e['model_name']}/{e['variant_name']}__seed"
                                  f"{e['seed']}.json.gz")
        (folder / old["submission_path"]).write_bytes((folder / e["submission_path"])
                                                      .read_bytes())
        (folder / e["submission_path"]).unlink()
        old_entries.append(old)
    (folder / JSON_NAME).write_text(json.dumps({"schema_version": "0.1",
                                                "entries": old_entries}, indent=1))
    (folder / CSV_NAME).unlink()


def test_a_0_1_board_is_migrated_to_0_2_and_verifies(board, tmp_path):
    old = small_board_copy(board, tmp_path)
    _as_0_1(old)
    _, problems = verify(old, tier="small")
    assert [p.field for p in problems] == ["schema_version"]  # says: migrate first
    with pytest.raises(UsageError, match="leaderboard migrate"):
        add(submission_file(tmp_path, "logistic_direct", "linear_lowhet"), old)
    assert migrate(old) == 4
    assert migrate(old) == 0  # idempotent
    migrated = read_entries(old)
    assert [e.tier for e in migrated] == ["full"] * 4  # what a 0.1 board claimed
    _, problems = verify(old, tier="full")
    # the migration's claim is checked against each stored submission: they are small-tier
    assert {p.field for p in problems} >= {"tier"}
    assert not list(old.glob("submissions/*/*.json.gz"))  # every file at its new path


APPENDER = """
import sys
from pathlib import Path
from icgbench.leaderboard import LeaderboardEntry, append_entry
import json
example = json.loads(Path(sys.argv[1]).read_text())
folder, worker, count = Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
for i in range(count):
    e = dict(example, model_name=f"w{worker}", seed=i, notes=f"worker {worker} entry {i}")
    e["submission_path"] = f"submissions/w{worker}/0.5.0/linear_lowhet__seed{i}.json.gz"
    append_entry(LeaderboardEntry.from_dict(e), folder)
"""


#: Each append re-reads and re-validates the whole board, so the cost grows with the square
#: of the entries: the fast suite appends 32, make test-slow 120.
@pytest.mark.parametrize("per_worker", [8, pytest.param(30, marks=pytest.mark.slow)])
def test_concurrent_appenders_lose_nothing(tmp_path, per_worker):
    example = tmp_path / "example.json"
    example.write_text(json.dumps(EXAMPLE))
    workers = [subprocess.Popen([sys.executable, "-c", APPENDER, str(example),
                                 str(tmp_path / "board"), str(w), str(per_worker)])
               for w in range(4)]
    assert all(p.wait(timeout=300) == 0 for p in workers)
    entries = read_entries(tmp_path / "board")
    assert len(entries) == 4 * per_worker
    assert {(e.model_name, e.seed) for e in entries} == {(f"w{w}", i) for w in range(4)
                                                           for i in range(per_worker)}
    assert (tmp_path / "board" / CSV_NAME).read_bytes() == csv_text(entries).encode()
    assert (tmp_path / "board" / JSON_NAME).read_text() == json_text("full", entries)


def test_show_ranks_with_mean_and_std(board, capsys):
    assert main(["leaderboard", "show", "--dir", str(board), "--task", "risk_prediction",
                 "--variant", "linear_lowhet"]) == 0
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line.strip().startswith(("1.", "ref."))]
    assert "mbcnet_v0_1" in lines[0] and "random" in lines[1]  # random: a reference line
    assert out.strip().endswith(f"read 4 entries from {board}")


def test_reading_commands_refuse_a_folder_without_a_board(tmp_path, capsys):
    for argv in (["leaderboard", "verify", "--dir", str(tmp_path / "nonexistent")],
                 ["leaderboard", "show", "--dir", str(tmp_path / "nonexistent")],
                 ["leaderboard", "show", "--dir", str(tmp_path)],
                 ["leaderboard", "render", "--dir", str(tmp_path), "--outdir", str(tmp_path / "s")],
                 ["leaderboard", "repair", "--dir", str(tmp_path)]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert "is not a leaderboard folder" in err or "no such folder" in err, err
    assert not (tmp_path / "s").exists()


def test_add_records_the_time_it_is_given_and_verify_names_an_unreadable_board(tmp_path):
    """Admission passes its own clock: the entry records that time, not the moment of
    writing. A board that is not JSON is reported with its path."""
    from icgbench.leaderboard.verify import verify

    folder = tmp_path / "board"
    entry = add(submission_file(tmp_path, "random", "linear_lowhet"), folder, tier="small",
                submitted_at="2026-12-02T00:34:56Z")
    assert entry.submitted_at == "2026-12-02T00:34:56Z"
    (folder / "leaderboard.json").write_text("{not json")
    (problem,) = verify(folder, tier="small")[1]
    assert str(folder / "leaderboard.json") in problem.recomputed


def test_a_gzipped_submission_is_stored_as_it_came(tmp_path):
    """A board stores a gzip file itself, byte for byte (its header's name and time kept, as
    `gzip file.json` writes them); only a plain JSON file is compressed for storage."""
    import gzip
    import io

    text = json.dumps(submission_doc("random", "linear_lowhet")).encode()
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="mine.json", mode="wb", fileobj=buffer, mtime=1_700_000_000,
                       compresslevel=6) as handle:
        handle.write(text)
    path = tmp_path / "mine.json.gz"
    path.write_bytes(buffer.getvalue())
    folder = tmp_path / "board"
    entry = add(path, folder, tier="small")
    assert (folder / entry.canonical_path).read_bytes() == path.read_bytes()


def test_an_entry_is_checked_by_its_values_not_by_a_remembered_verdict():
    """The schema verdict is remembered per JSON text: the same row in another type, or a
    value JSON cannot hold (a Python caller's object), is checked afresh, never let through
    by an earlier verdict."""
    import datetime as dt

    assert entry().seed == EXAMPLE["seed"]  # the valid row, checked and remembered
    with pytest.raises(InvalidInputError, match="seed"):
        entry(seed=str(EXAMPLE["seed"]))
    with pytest.raises(InvalidInputError, match="submitted_at"):
        entry(submitted_at=dt.datetime(2026, 1, 1, tzinfo=dt.UTC))
    assert entry().seed == EXAMPLE["seed"]
