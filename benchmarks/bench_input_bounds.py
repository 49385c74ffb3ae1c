"""Peak memory of the commands on hostile inputs under 10 MB (target: under 1 GB each).

Runs every case of ``tests/test_input_bounds.py`` (a gzip submission whose description is
one emoji and 300 MiB of 'a', repeated ids and floats, a tar with a 2000 MiB pax header, a
tampered csv.gz and Parquet file, release files linked to /dev/zero, ...) as an
``icgbench`` command in a child process, and prints each one's exit code and peak RSS. A
child over 3 GB is killed and reported as such.

``--source DIR`` runs the commands from another copy of the package's ``src`` folder, to
compare with an earlier version, e.g. ``git archive HEAD~1 src | tar -x -C /tmp/old``,
then ``--source /tmp/old/src``.

    python benchmarks/bench_input_bounds.py [--source DIR]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1] / "tests"
sys.path.insert(0, str(TESTS))

import conftest  # noqa: E402
import test_input_bounds as cases  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=None,
                        help="a src folder to import icgbench from (default: this one)")
    args = parser.parse_args()
    extra = {} if args.source is None else {"PYTHONPATH": str(args.source.resolve())}
    with tempfile.TemporaryDirectory(prefix="bench-input-bounds-") as tmp:
        os.environ[conftest.SESSION_FOLDER] = tmp  # where mini_release freezes its tier once
        print(f"{'case':<48}{'exit':>6}{'peak RSS':>14}")
        for i, (name, (make, _)) in enumerate(cases.CASES.items()):
            folder = Path(tmp) / f"case{i}"
            folder.mkdir()
            argv, env = make(folder)
            code, peak_kb, _ = cases.peak_of(argv, {**env, **extra})
            shown = ("over 3,072 MB (killed)" if peak_kb >= cases.WATCHDOG_KB
                     else f"{peak_kb / 1024:,.0f} MB")
            print(f"{name:<48}{code:>6}{shown:>14}", flush=True)


if __name__ == "__main__":
    main()
