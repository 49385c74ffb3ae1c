"""Generator speed: subject-months per second for every variant, on one core.

For each variant: simulate n = 10,000 subjects over 24 months (all tables, including the
counterfactual runs of the held-out subjects), best of several runs after a warm-up, and
compare with drawing as many standard normals as there are subject-months in the same run.
Target: >= 1,000,000 subject-months per second for every variant.

    python benchmarks/bench_generate.py [--repeats 5] [--n 10000]
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402

import numpy as np  # noqa: E402

from _timing import best_of  # noqa: E402
from icgbench.generator import all_variants, simulate  # noqa: E402

TARGET = 1_000_000



def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--months", type=int, default=24)
    args = parser.parse_args()
    subject_months = args.n * args.months
    rng = np.random.default_rng(0)
    print(f"n = {args.n} subjects x {args.months} months = {subject_months} subject-months; "
          f"best of {args.repeats}; one thread")
    print(f"{'variant':<24}{'seconds':>9}{'subj-months/s':>15}{'x normals':>11}  target")
    failures = 0
    for v in all_variants():
        simulate(v, 0, n_subjects=100, months=args.months)  # warm the per-variant constants
        sim = best_of(args.repeats, lambda v=v: simulate(v, 1, n_subjects=args.n,
                                                         months=args.months))
        normals = best_of(args.repeats, lambda: rng.standard_normal(subject_months))
        rate = subject_months / sim
        ok = rate >= TARGET
        failures += not ok
        print(f"{v.name:<24}{sim:>9.3f}{rate:>15,.0f}{sim / normals:>11.1f}  "
              f"{'ok' if ok else 'BELOW'}")
    print(f"{len(all_variants()) - failures}/{len(all_variants())} variants at or above "
          f"{TARGET:,} subject-months/s")


if __name__ == "__main__":
    main()
