"""``icgbench generate``: simulate one cohort and write its tables as Parquet."""

from __future__ import annotations

import argparse
from pathlib import Path

import pyarrow.parquet as pq

from icgbench.atomic import staged_dir
from icgbench.cli._common import non_negative_int, positive_int, variant_arg
from icgbench.errors import UsageError
from icgbench.generator import simulate
from icgbench.summary import cohort_summary


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser(
        "generate",
        help="simulate one cohort and write every table as Parquet (not the frozen release)",
        description="Simulate one (variant, seed) cohort, public tables and ground truth, "
        "and write each table as DIR/<table>.parquet.",
    )
    p.add_argument("--variant", required=True, help="registered variant name")
    p.add_argument("--seed", required=True, type=non_negative_int, help="cohort seed (>= 0)")
    p.add_argument("--n-subjects", type=positive_int, default=None,
                   help="total subjects, split 60/20/20 (default: the variant's sizes)")
    p.add_argument("--months", type=positive_int, default=None,
                   help="follow-up in months (default: the variant's)")
    p.add_argument("--out", required=True, type=Path, help="output folder")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    variant = variant_arg(args.variant)
    try:
        cohort = simulate(variant, args.seed, n_subjects=args.n_subjects, months=args.months)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    with staged_dir(args.out) as stage:
        for name, table in cohort.tables.items():
            pq.write_table(table, stage / f"{name}.parquet", compression="zstd")
    print(cohort_summary(cohort))
    print(f"wrote {len(cohort.tables)} tables to {args.out}")
    return 0
