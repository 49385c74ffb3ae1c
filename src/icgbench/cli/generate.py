"""``icgbench generate``: simulate one cohort and write its tables as Parquet."""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path

from icgbench.atomic import replaced_dir
from icgbench.cli._common import non_negative_int, positive_int, variant_arg
from icgbench.errors import UsageError

log = logging.getLogger(__name__)

#: Written last into every output folder: what it holds, and proof that it is complete.
MANIFEST = "cohort.json"


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser(
        "generate",
        help="simulate one cohort and write every table as Parquet (not the frozen release)",
        description="Simulate one (variant, seed) cohort, public tables and ground truth, "
        f"and write each table as DIR/<table>.parquet plus DIR/{MANIFEST} (what the folder "
        "holds, written last). DIR is replaced as a whole; an existing DIR must be empty or "
        "an earlier output of this command.",
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
    import pyarrow.parquet as pq

    from icgbench.generator import simulate
    from icgbench.generator.memory import fits
    from icgbench.generator.simulate import split_sizes
    from icgbench.release.encode import sha256_file
    from icgbench.summary import cohort_summary

    variant = variant_arg(args.variant)
    months = args.months or variant.months
    try:
        n_subjects = sum(split_sizes(variant, args.n_subjects).values())
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if (problem := fits(n_subjects, months)) is not None:
        raise UsageError(problem)
    log.info("simulating %s seed %d: %d subjects, %d months", variant.name, args.seed,
             n_subjects, months)
    try:
        cohort = simulate(variant, args.seed, n_subjects=args.n_subjects, months=args.months)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    with replaced_dir(args.out, "generate", marker=MANIFEST) as stage:
        files = {}
        for name, table in cohort.tables.items():
            log.info("writing %s.parquet (%d rows)", name, table.num_rows)
            pq.write_table(table, stage / f"{name}.parquet", compression="zstd")
            files[f"{name}.parquet"] = {"rows": table.num_rows,
                                        "sha256": sha256_file(stage / f"{name}.parquet")[0]}
        manifest = {"variant": variant.name, "variant_hash": variant.variant_hash,
                    "seed": args.seed, "months": cohort.months, "sizes": cohort.sizes,
                    "frozen_release": False, "files": files}
        (stage / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    print(cohort_summary(cohort))
    print(f"wrote {len(cohort.tables)} tables and {MANIFEST} to {args.out}")
    return 0
