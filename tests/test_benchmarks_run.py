"""Every script in ``benchmarks/`` runs, at a tiny size, as its docstring says to run it.

A benchmark that no longer runs (``bench_score.py`` once built a release too old for the
scorer) measures nothing; these smoke runs check only that each script ends with exit 0 and
prints its verdict line, never its figures (timings belong to the scripts, on a quiet
machine). A script that exits 1 on a missed target (:data:`TARGET_EXIT`) may miss it at this
size or on a busy machine, and then says so; no script may end in a traceback.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"

#: script -> (tiny arguments, a line its output must hold)
SMOKE = {
    "bench_archive.py": (["--members", "8", "--repeats", "1"], "wrote nothing"),
    "bench_board_growth.py": (["--sizes", "5", "10", "--repeat", "1"], "best of 1"),
    "bench_cli_startup.py": (["--repeats", "1", "--subjects", "200", "--months", "6"],
                             "cpu count"),
    "bench_generate.py": (["--repeats", "1", "--n", "200", "--months", "6"], "variants at"),
    "bench_generate_scale.py": (["--sizes", "2000", "--repeats", "1", "--jobs", "1",
                                 "--shards-per-job", "1"], "subject-months/s per worker"),
    "bench_input_bounds.py": ([], "objects just inside the budget"),
    "bench_page.py": (["--sizes", "10", "--repeat", "1"], "targets: every page"),
    "bench_score.py": (["--n", "200", "--repeats", "1", "--schema-subjects", "50",
                        "--memory-sizes", "200", "400"], "same paths"),
    "bench_sweep_scale.py": (["--tier", "small", "--models", "random", "--repeats", "1"],
                             "speed-up at 2 workers"),
    "bench_test_suite.py": (["--repeats", "1", "--only", "tests/test_figure_colors.py"],
                            "best:"),
    "bench_verify.py": (["--tier", "small", "--repeats", "1", "--sizes", "20", "--sample",
                         "5", "--jobs", "1"], "entries verified"),
}


#: Scripts that exit 1 when a measured target is missed, and the word that then says so.
TARGET_EXIT = {"bench_cli_startup.py": "BELOW", "bench_sweep_scale.py": "BELOW"}


def test_every_benchmark_script_has_a_smoke_run() -> None:
    assert sorted(SMOKE) == sorted(p.name for p in BENCHMARKS.glob("bench_*.py"))


@pytest.mark.slow
@pytest.mark.parametrize("script", sorted(SMOKE))
def test_the_benchmark_runs_at_a_tiny_size(script: str, full_tier_root) -> None:
    argv, verdict = SMOKE[script]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "ICGBENCH_TEST_"))}
    result = subprocess.run([sys.executable, BENCHMARKS / script, *argv], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=900, check=False)
    missed = script in TARGET_EXIT and result.returncode == 1 and TARGET_EXIT[script] in (
        result.stdout)
    assert result.returncode == 0 or missed, result.stdout[-2000:] + result.stderr[-2000:]
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    assert verdict in result.stdout, result.stdout[-2000:]
