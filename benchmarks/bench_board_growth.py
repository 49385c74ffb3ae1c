"""What adding one entry and checking a pull request that adds one cost as the board grows.

For boards of 100, 1,000 and 10,000 full-tier entries (the committed board's entries copied
under new model names, each with a stored file, committed to a git repository), times
``icgbench leaderboard add`` of one real submission and then ``icgbench leaderboard verify
--base BASE`` of the board with that one entry added, each in a child process, best of
``--repeat``. Target: neither grows with the board (the base board was verified when it
merged; ``--full`` re-grades everything and is not timed here). Ratios are against the
100-entry board, measured in the same run.

    python benchmarks/bench_board_growth.py [--sizes 100 1000 10000] [--repeat 2]
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from bench_page import make_board, size_arguments
from bench_page import timed as run
from git_helpers import commit, git

ICGBENCH = Path(sys.executable).parent / "icgbench"


def main() -> None:
    args = size_arguments(__doc__)
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-growth-") as tmp:
        run(ICGBENCH, "bench", "run", "--model", "logistic_direct", "--cohort",
            "nonlinear_obs", "--seed", "1", "--tier", "full", "--outdir", Path(tmp) / "sub")
        submission = Path(tmp) / "sub" / "submission.json"
        for size in args.sizes:
            repo = Path(tmp) / f"repo{size}"
            board = repo / "leaderboard"
            make_board(board, size)
            git(repo, "init", "-q", "-b", "main")
            base = commit(repo, "base")
            adds, verifies = [], []
            for _ in range(args.repeat):
                git(repo, "reset", "-q", "--hard", base)
                git(repo, "clean", "-qfd")
                adds.append(run(ICGBENCH, "leaderboard", "add", submission, "--dir", board))
                commit(repo, "one more")
                verifies.append(run(ICGBENCH, "leaderboard", "verify", "--dir", board,
                                    "--tier", "full", "--jobs", "1", "--base", base))
            rows.append((size, min(adds), min(verifies)))
            shutil.rmtree(repo)
    ref = rows[0]
    print(f"{'entries':>8} {'add s':>7} {'x ref':>6} {'verify --base s':>16} {'x ref':>6}")
    for size, add, check in rows:
        print(f"{size:>8} {add:>7.2f} {add / ref[1]:>6.2f} {check:>16.2f} {check / ref[2]:>6.2f}")
    print(f"best of {args.repeat}; target: the ratios stay near 1")


if __name__ == "__main__":
    main()
