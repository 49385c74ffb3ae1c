"""The fast suite's wall time, as `make test` runs it, against a CPU reference.

`make test` runs ``pytest`` with ``PYTEST_ARGS`` from the Makefile (two workers on two
cores, one file per worker), with bytecode caching on. The machine is shared, so the time
is the best of ``--repeats`` runs, and each run is printed beside a reference workload
measured in the same run (simulating the small tier's linear_lowhet cohort in a fresh
interpreter, imports included): the ratio says how much of a slow run was the machine.
Target: 90 s. ``--only`` times the named test files instead of the whole suite (the smoke
test runs it so on one small file).

    python benchmarks/bench_test_suite.py [--repeats 2] [--only tests/test_x.py ...]
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

from _timing import best_of

ROOT = Path(__file__).resolve().parents[1]
TARGET_SECONDS = 90.0
REFERENCE = ("from icgbench.generator import simulate; "
             "simulate('linear_lowhet', 0)")


def pytest_args() -> list[str]:
    """``PYTEST_ARGS`` as the Makefile sets it."""
    text = (ROOT / "Makefile").read_text()
    found = re.search(r"^PYTEST_ARGS \?= (.*)$", text, flags=re.MULTILINE)
    if found is None:
        raise SystemExit("bench_test_suite: no `PYTEST_ARGS ?=` line in the Makefile")
    return shlex.split(found.group(1))


def run_suite(only: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": ""}
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", *pytest_args(), *only],
                            cwd=ROOT,
                            capture_output=True, text=True, check=False, env=env)
    seconds = time.perf_counter() - start
    summary = (result.stdout.strip().splitlines() or ["(no output)"])[-1]
    if result.returncode != 0:
        raise SystemExit(f"bench_test_suite: the suite failed: {summary}")
    return seconds, summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--only", nargs="+", default=[], metavar="TEST_FILE",
                        help="time these test files instead of the whole suite")
    args = parser.parse_args()
    print(f"pytest {' '.join([*pytest_args(), *args.only])}; best of {args.repeats}")
    print(f"{'run':>4}{'suite s':>10}{'reference s':>13}{'ratio':>8}  summary")
    runs = []
    for i in range(1, args.repeats + 1):
        reference = best_of(3, lambda: subprocess.run([sys.executable, "-c", REFERENCE],
                                                      check=True, cwd=ROOT))
        seconds, summary = run_suite(args.only)
        runs.append((seconds, reference))
        print(f"{i:>4}{seconds:>10.1f}{reference:>13.2f}{seconds / reference:>8.1f}  {summary}")
    seconds, reference = min(runs)
    verdict = "ok" if seconds <= TARGET_SECONDS else "ABOVE"
    print(f"best: {seconds:.1f} s ({seconds / reference:.1f}x the reference); target "
          f"{TARGET_SECONDS:.0f} s: {verdict}")
    print("nothing written (pytest's own temporary folders aside)")


if __name__ == "__main__":
    main()
