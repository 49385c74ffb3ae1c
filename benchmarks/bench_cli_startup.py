"""CLI start-up: import time of ``icgbench --help`` and ``icgbench validate``, and
``icgbench generate`` end to end.

Import time is what ``python -X importtime`` reports for the modules a command imports
(the sum of the top-level cumulative times), best of several runs; the reference measured
in the same run is the interpreter starting with nothing to import (``python -c pass``).
``generate`` writes a 20,000-subject, 24-month cohort through the real command (a fresh
process each time, imports included) and is compared with the simulator's in-process rate.
Targets: each import time under 0.3 s; generate at 250,000 subject-months/s or more.
The package's bytecode is compiled first, as ``make`` and a non-editable install leave it:
otherwise, where PYTHONDONTWRITEBYTECODE is set, each start would compile every module.

    python benchmarks/bench_cli_startup.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import compileall
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _timing import best_of

IMPORT_TARGET = 0.3
GENERATE_TARGET = 250_000
TOP_LEVEL = re.compile(r"^import time:\s+\d+ \|\s+(\d+) \| (\S.*)$")
CLI = [sys.executable, "-m", "icgbench"]


def import_seconds(args: list[str]) -> float:
    """Seconds ``python -X importtime`` counts for the modules this command imports."""
    result = subprocess.run([sys.executable, "-X", "importtime", "-m", "icgbench", *args],
                            capture_output=True, text=True, check=False)
    micros = [int(m.group(1)) for line in result.stderr.splitlines()
              if (m := TOP_LEVEL.match(line))]
    return sum(micros) / 1e6


def wall(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, capture_output=True, check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--subjects", type=int, default=20_000)
    parser.add_argument("--months", type=int, default=24)
    args = parser.parse_args()
    import icgbench

    compileall.compile_dir(Path(icgbench.__file__).parent, quiet=1)
    work = Path(tempfile.mkdtemp(prefix="icgbench-startup-"))
    try:
        template = work / "template.json"
        subprocess.run([*CLI, "submission", "template", "--variant", "linear_lowhet",
                        "--out", str(template)], capture_output=True, check=True)
        bare = best_of(args.repeats, lambda: wall([sys.executable, "-c", "pass"]))
        print(f"best of {args.repeats}; reference: `python -c pass` {bare:.3f} s wall")
        print(f"{'command':<28}{'import s':>10}{'wall s':>9}{'x bare':>8}  target")
        failures = 0
        for label, argv in (("icgbench --help", ["--help"]),
                            ("icgbench validate (small)", ["validate", str(template)])):
            imports = min(import_seconds(argv) for _ in range(args.repeats))
            seconds = best_of(args.repeats, lambda argv=argv: wall([*CLI, *argv]))
            ok = imports < IMPORT_TARGET
            failures += not ok
            print(f"{label:<28}{imports:>10.3f}{seconds:>9.3f}{seconds / bare:>8.1f}  "
                  f"{'ok' if ok else 'ABOVE'} (< {IMPORT_TARGET} s import)")
        out = work / "cohort"

        def generate() -> None:
            shutil.rmtree(out, ignore_errors=True)
            subprocess.run([*CLI, "generate", "--variant", "linear_lowhet", "--seed", "1",
                            "--n-subjects", str(args.subjects), "--months", str(args.months),
                            "--out", str(out)], capture_output=True, check=True)

        from icgbench.generator import get_variant, simulate

        variant = get_variant("linear_lowhet")
        simulate(variant, 0, n_subjects=100, months=args.months)
        in_process = best_of(args.repeats, lambda: simulate(
            variant, 1, n_subjects=args.subjects, months=args.months))
        seconds = best_of(args.repeats, generate)
        subject_months = args.subjects * args.months
        rate = subject_months / seconds
        ok = rate >= GENERATE_TARGET
        failures += not ok
        print(f"generate {args.subjects:,} x {args.months}: {seconds:.3f} s end to end, "
              f"{rate:,.0f} subject-months/s ({'ok' if ok else 'BELOW'}, target "
              f"{GENERATE_TARGET:,}); in-process simulation {subject_months / in_process:,.0f}"
              f"/s, so the command runs at {in_process / seconds:.2f}x the simulator's rate")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"cpu count {os.cpu_count()}; nothing written (temporary folder removed)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
