"""Crash safety by fault injection: a writer is SIGKILLed at each named step, deterministically.

``icgbench.io.failpoints`` kills the process at a named point when ``ICGBENCH_FAILPOINT`` says
so; each test then checks the old-or-new property of what is on disk, and that the next
run (or ``leaderboard repair``) completes the job without losing anything.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from conftest import slow_except
from icgbench import __version__
from icgbench.cli import main
from icgbench.io import failpoints
from icgbench.io.atomic import owned_staging, remove_stale_staging, write_text
from icgbench.leaderboard import read_entries
from icgbench.leaderboard.board import add
from icgbench.leaderboard.maintenance import repair
from icgbench.leaderboard.verify import verify
from icgbench.release.encode import sha256_file
from leaderboard_helpers import small_board_copy, submission_file

# Pages here are read for their tables, links and files: built without the board's figures.
pytestmark = pytest.mark.usefixtures("no_board_figures")

ROOT = Path(__file__).resolve().parents[1]


def _child(code: str, *args: str, point: str) -> subprocess.CompletedProcess:
    env = {**os.environ, failpoints.ENV: point}
    return subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True,
                          text=True, timeout=300, check=False, cwd=ROOT)


def test_every_failpoint_in_the_code_is_registered_and_every_registered_one_is_used():
    used = set()
    for path in (ROOT / "src").rglob("*.py"):
        used |= set(re.findall(r'failpoints\.reached\("([^"]+)"\)', path.read_text()))
    assert used == set(failpoints.POINTS)


def test_a_killed_atomic_write_leaves_the_old_file(tmp_path):
    target = tmp_path / "file.txt"
    target.write_text("old")
    code = "import sys; from pathlib import Path; from icgbench.io.atomic import write_text; " \
           "write_text(Path(sys.argv[1]), 'new')"
    for point, expected in (("atomic.temp_written", "old"), ("atomic.renamed", "new")):
        result = _child(code, str(target), point=point)
        assert result.returncode == -signal.SIGKILL, result.stderr
        assert target.read_text() == expected
        target.write_text("old")


@pytest.fixture(scope="module")
def one_entry_board(tmp_path_factory):
    folder = tmp_path_factory.mktemp("board")
    add(submission_file(tmp_path_factory.mktemp("in"), "random", "linear_lowhet"), folder,
        tier="small")
    return folder


ADDER = """
import sys
from pathlib import Path
from icgbench.leaderboard.board import add
add(Path(sys.argv[1]), Path(sys.argv[2]))
"""

#: Every step of an add: the lock, the stored file (1), leaderboard.json (2), the CSV (3).
ADD_STEPS = ["board.locked", "atomic.temp_written#1", "atomic.renamed#1",
             "board.submission_stored", "atomic.temp_written#2", "board.json_written",
             "atomic.temp_written#3", "atomic.renamed#3"]


@pytest.mark.slow
@pytest.mark.parametrize("point", slow_except(  # the lock, each file's rename, the stored file
    ["board.locked", "atomic.renamed#1", "board.submission_stored", "board.json_written",
     "atomic.renamed#3"], ADD_STEPS))
def test_an_add_killed_at_any_step_loses_nothing(one_entry_board, tmp_path, point):
    board = small_board_copy(one_entry_board, tmp_path)
    before = [e.key for e in read_entries(board)]
    new = submission_file(tmp_path, "logistic_direct", "linear_lowhet")
    result = _child(ADDER, str(new), str(board), point=point)
    assert result.returncode == -signal.SIGKILL, result.stderr
    after = [e.key for e in read_entries(board)]  # leaderboard.json always parses
    assert after in (before, [*before, ("linear_lowhet", 0, "logistic_direct", __version__)])
    _, problems = verify(board, tier="small")
    crash_marks = {"content", "file"}  # a lagging CSV, an orphan or a temporary file
    assert {p.field for p in problems} <= crash_marks, problems
    repair(board)
    assert verify(board, tier="small")[1] == []
    if len(after) == len(before):  # the add did not happen: doing it again works
        add(new, board)
    assert len(read_entries(board)) == len(before) + 1
    assert verify(board, tier="small")[1] == []


@pytest.mark.slow
def test_the_next_add_renders_a_lagging_csv_again(one_entry_board, tmp_path):
    board = small_board_copy(one_entry_board, tmp_path)
    first = submission_file(tmp_path, "logistic_direct", "linear_lowhet")
    assert _child(ADDER, str(first), str(board),
                  point="board.json_written").returncode == -signal.SIGKILL
    add(submission_file(tmp_path, "mbcnet_v0_1", "linear_lowhet"), board)
    assert len(read_entries(board)) == 3
    assert verify(board, tier="small")[1] == []  # no repair needed


@pytest.mark.slow
def test_an_orphan_left_at_the_target_path_is_replaced_by_the_next_add(one_entry_board,
                                                                        tmp_path):
    board = small_board_copy(one_entry_board, tmp_path)
    new = submission_file(tmp_path, "logistic_direct", "linear_lowhet")
    assert _child(ADDER, str(new), str(board),
                  point="board.submission_stored").returncode == -signal.SIGKILL
    orphan = board / f"submissions/logistic_direct/{__version__}/linear_lowhet__seed0.json.gz"
    orphan.write_bytes(b"whatever the killed add wrote")
    add(new, board)
    assert verify(board, tier="small")[1] == []


GENERATE = """
import sys
from icgbench.cli import main
sys.exit(main(["generate", "--variant", "linear_lowhet", "--seed", sys.argv[2],
               "--n-subjects", "60", "--months", "12", "--out", sys.argv[1]]))
"""


def _generated(out: Path) -> dict:
    manifest = json.loads((out / "cohort.json").read_text())
    for name, meta in manifest["files"].items():
        assert sha256_file(out / name)[0] == meta["sha256"], name  # not a mixture
    return manifest


@pytest.mark.slow
@pytest.mark.parametrize("point", slow_except(  # the old output kept whole, and absent
    ["staging.created", "staging.old_moved_aside"],
    ["staging.created", "staging.filled", "staging.old_moved_aside"]))
def test_generate_over_an_old_output_killed_midway_is_old_new_or_absent(tmp_path, point):
    out = tmp_path / "cohort"
    assert main(["generate", "--variant", "linear_lowhet", "--seed", "1", "--n-subjects",
                 "60", "--months", "12", "--out", str(out)]) == 0
    result = _child(GENERATE, str(out), "2", point=point)
    assert result.returncode == -signal.SIGKILL, result.stderr
    if out.exists():
        assert _generated(out)["seed"] == 1  # killed before the swap: the old one, whole
    else:
        assert point == "staging.old_moved_aside"  # between the two renames
    assert list(tmp_path.glob(".generate.*"))  # the killed run's leftovers ...
    assert main(["generate", "--variant", "linear_lowhet", "--seed", "3", "--n-subjects",
                 "60", "--months", "12", "--out", str(out)]) == 0
    assert not list(tmp_path.glob(".generate.*"))  # ... are removed by the next run
    assert _generated(out)["seed"] == 3
    assert pq.read_table(out / "subjects").num_rows == 60


def test_generate_never_replaces_a_folder_it_did_not_write(tmp_path, capsys):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("precious")
    assert main(["generate", "--variant", "linear_lowhet", "--seed", "1", "--n-subjects",
                 "30", "--out", str(mine)]) == 2
    assert "refusing to replace" in capsys.readouterr().err
    assert (mine / "thesis.tex").read_text() == "precious"
    assert list(mine.iterdir()) == [mine / "thesis.tex"]


def test_a_cohort_too_large_for_the_disk_is_refused_before_any_work(tmp_path, capsys):
    assert main(["generate", "--variant", "linear_lowhet", "--seed", "1", "--n-subjects",
                 "999999999", "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert "on disk" in err and " free" in err and "Traceback" not in err
    assert not (tmp_path / "x").exists()


HOLDER = """
import sys, time
from pathlib import Path
from icgbench.io.atomic import owned_staging
with owned_staging(Path(sys.argv[1]), "build") as stage:
    print(stage, flush=True)
    time.sleep(300)
"""


def test_staging_left_by_a_killed_process_is_removed_a_live_one_is_not(tmp_path):
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path)],
                              stdout=subprocess.PIPE, text=True)
    try:
        live = Path(holder.stdout.readline().strip())
        assert live.is_dir() and live.name.endswith(".staging")
        assert remove_stale_staging(tmp_path, "build") == []  # its owner still holds it
        assert live.is_dir()
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    assert live.is_dir()  # a killed owner cannot clean up ...
    assert remove_stale_staging(tmp_path, "build") == [live]  # ... the next run does
    with owned_staging(tmp_path, "build") as stage:
        write_text(stage / "x", "y")
    assert list(tmp_path.iterdir()) == []
