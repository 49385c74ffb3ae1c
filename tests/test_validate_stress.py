"""``icgbench validate`` and ``score`` exit cleanly under CPU load, hundreds of times.

On a loaded machine ``validate`` once printed VALID and then aborted ("terminate called
without an active exception", exit 134): an Arrow worker thread dropped the last reference
to a Python-owned buffer after the command returned, and asking for the GIL during
interpreter shutdown terminated that thread. Parquet is now read from Arrow-owned memory
(``encode.parquet_source``). The abort showed in about one run in a hundred under load, so
this campaign runs the commands 160 times with every core busy (the old code failed it
with probability about 0.8).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from scoring_helpers import template

ROOT = Path(__file__).resolve().parents[1]
RUNS = 160


def _busy() -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", "while True: pass"])


@pytest.mark.slow
def test_commands_exit_cleanly_under_cpu_load(tmp_path):
    submission = tmp_path / "sub.json"
    submission.write_text(json.dumps(template()))
    commands = [["validate", str(submission)],
                ["score", str(submission), "--out", str(tmp_path / "r.json")]]
    load = [_busy() for _ in range(os.cpu_count() or 2)]

    def run(i: int) -> tuple[int, int, str]:
        argv = [sys.executable, "-m", "icgbench", *commands[i % 2]]
        done = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, timeout=300,
                              check=False)
        return i, done.returncode, done.stderr[-300:]

    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            results = list(pool.map(run, range(RUNS)))
    finally:
        for p in load:
            p.kill()
            p.wait()
    failures = [r for r in results if r[1] != 0 or "terminate called" in r[2]]
    assert failures == [], f"{len(failures)} of {RUNS} runs failed, first: {failures[:3]}"
