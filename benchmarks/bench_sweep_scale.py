"""Sweep scaling: cells per second at 1 and at 2 workers, on the same grid.

Runs ``sweep`` (the function behind ``icgbench bench sweep``) on a tier's grid of
--models x every cohort x every seed (the full tier by default: 18 cohorts per model, the
grid the baselines are measured on; the small tier's 6 leave the workers' start-up and the
calibration phase a larger share), into a fresh folder each time, once with one worker
and once with two (process pool, or ``--scheduler local`` for a Dask LocalCluster), best
of --repeats. The one-worker run is the reference: the speed-up is its time over the
two-worker time (target >= 1.7x on 2 cores). docs/scale.md scales these figures to 100
workers.

    python benchmarks/bench_sweep_scale.py [--models random logistic_direct mbcnet_v0_1]
        [--tier full|small] [--scheduler processes|local] [--repeats 2]
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import shutil  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

from _timing import best_of  # noqa: E402
from icgbench.bench.sweep import grid, sweep  # noqa: E402
from icgbench.generator import variant_names  # noqa: E402

TARGET = 1.7


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+",
                        default=["random", "logistic_direct", "mbcnet_v0_1"])
    parser.add_argument("--scheduler", default="processes", choices=["processes", "local"])
    parser.add_argument("--tier", default="full", choices=["full", "small"])
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    cells = grid(args.models, variant_names(), None, args.tier)
    work = Path(tempfile.mkdtemp(prefix="icgbench-sweep-scale-"))

    def run(workers: int) -> None:
        out = work / f"w{workers}"
        shutil.rmtree(out, ignore_errors=True)
        result = sweep(cells, out, jobs=workers, scheduler=args.scheduler)
        if result.failures:
            sys.exit(f"{len(result.failures)} cells failed; see {out / 'failures.csv'}")

    try:
        print(f"{len(cells)} cells ({', '.join(args.models)} x {len(variant_names())} cohorts "
              f"x the {args.tier} tier's seeds), scheduler {args.scheduler}, best of "
              f"{args.repeats}, {os.cpu_count()} cores")
        one = best_of(args.repeats, lambda: run(1))
        two = best_of(args.repeats, lambda: run(2))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    speedup = one / two
    print(f"{'workers':>7}{'seconds':>9}{'cells/s':>9}")
    for workers, seconds in ((1, one), (2, two)):
        print(f"{workers:>7}{seconds:>9.2f}{len(cells) / seconds:>9.3f}")
    print(f"speed-up at 2 workers: {speedup:.2f}x ({'ok' if speedup >= TARGET else 'BELOW'}, "
          f"target {TARGET}x); per worker {len(cells) / one:.3f} cells/s")
    print("nothing written (temporary folders removed)")
    sys.exit(0 if speedup >= TARGET else 1)


if __name__ == "__main__":
    main()
