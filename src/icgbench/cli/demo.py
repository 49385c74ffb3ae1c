"""``icgbench demo``: the main job on the embedded data."""

from __future__ import annotations

import argparse
from pathlib import Path

import pyarrow.parquet as pq

from icgbench.atomic import staged_dir
from icgbench.generator import all_variants, simulate
from icgbench.paths import writable_or_temp
from icgbench.summary import cohort_summary

DEFAULT_OUT = Path("icgbench-demo")


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("demo", help="run the main job end to end and print a summary")
    p.add_argument("--out", type=Path, default=None,
                   help=f"output folder (default: ./{DEFAULT_OUT}, or a temporary folder "
                   "when that is not writable)")
    p.add_argument("--seed", type=int, default=0, help="cohort seed (default 0)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    out = writable_or_temp(args.out, DEFAULT_OUT)
    for variant in all_variants():
        cohort = simulate(variant, args.seed)
        folder = out / f"{variant.name}__seed{args.seed}"
        with staged_dir(folder) as stage:
            for name, table in cohort.tables.items():
                pq.write_table(table, stage / f"{name}.parquet", compression="zstd")
        print(f"{cohort_summary(cohort)} -> {folder}")
    print(f"wrote {len(all_variants())} cohorts to {out}")
    return 0
