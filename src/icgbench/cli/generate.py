"""``icgbench generate``: simulate one cohort and write it as a partitioned Parquet dataset."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from icgbench.cli._common import (
    non_negative_int,
    old_spelling,
    positive_int,
    required,
    variant_arg,
)
from icgbench.errors import UsageError, UserError
from icgbench.scheduling import add_scheduler_argument

log = logging.getLogger(__name__)

MANIFEST = "cohort.json"  # icgbench.api.cohort.MANIFEST, named here without importing numpy


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser(
        "generate",
        help="simulate one cohort and write every table as Parquet (not the frozen release)",
        description="Simulate one (variant, seed) cohort, public tables and ground truth, "
        "and write it as a partitioned Parquet dataset: DIR/<table>/part-<shard>.parquet "
        f"for every table, then DIR/{MANIFEST} (what the folder holds, with a content "
        "digest per table, written last). The cohort is simulated in blocks of 32,768 "
        "subjects per split, so memory stays bounded whatever its size, and split into "
        "--shards tasks that run on --jobs processes or a Dask cluster; the content does "
        "not depend on either. DIR is replaced as a whole; an existing DIR must be empty "
        "or an earlier output of this command.",
    )
    p.add_argument("--variant", required=True, help="registered variant name")
    p.add_argument("--seed", required=True, type=non_negative_int, help="cohort seed (>= 0)")
    p.add_argument("--n-subjects", type=positive_int, default=None,
                   help="total subjects, split 60/20/20 (default: the variant's sizes)")
    p.add_argument("--months", type=positive_int, default=None,
                   help="follow-up in months (default: the variant's)")
    p.add_argument("--shards", type=positive_int, default=None,
                   help="tasks (and part files per table) to split the cohort into, at most "
                   "one per block (default: one per --jobs, as many as there are blocks)")
    p.add_argument("--jobs", type=positive_int, default=1,
                   help="worker processes (default 1)")
    add_scheduler_argument(p, "shards", "DIR")
    p.add_argument("--outdir", type=Path, default=None, help="output folder (required)")
    old_spelling(p, "--out", "--outdir", "outdir", type=Path)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from concurrent.futures.process import BrokenProcessPool

    from icgbench.api.cohort import Request, ShardJob, block_count, finish, plan, write_shard
    from icgbench.generator.memory import disk_problem, fits
    from icgbench.generator.simulator import check_request, split_sizes
    from icgbench.io.atomic import replaced_dir
    from icgbench.io.progress import track
    from icgbench.scheduling import run_tasks

    variant = variant_arg(args.variant)
    months = args.months or variant.months
    try:
        sizes = split_sizes(variant, args.n_subjects)
        check_request(variant, args.seed, sizes, months)
        request = Request(variant.name, args.seed, sizes, months)
        shards = plan(request, args.shards or min(args.jobs, block_count(request)))
    except UserError:  # already the user's error, with its own exit code
        raise
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    log.info("simulating %s seed %d: %d subjects, %d months, %d shard(s)", variant.name,
             args.seed, sum(sizes.values()), months, len(shards))
    from icgbench.io.paths import outside_boards

    outside_boards(required(args.outdir, "--outdir"))
    with replaced_dir(args.outdir, "generate", marker=MANIFEST) as stage:
        largest_block = min(max(sizes.values()), request.block_size)
        problem = (disk_problem(sum(sizes.values()), months, stage)
                   or fits(largest_block * min(args.jobs, len(shards)), months))
        if problem is not None:
            raise UsageError(problem)
        jobs = [ShardJob(request, i, blocks, str(stage)) for i, blocks in enumerate(shards)]
        try:
            with run_tasks(write_shard, jobs, args.scheduler, args.jobs) as results:
                done = list(track(results, len(jobs), "generating shards"))
        except BrokenProcessPool:
            raise UserError("a worker process died while generating (out of memory? "
                            f"try fewer --jobs than {args.jobs}); nothing was written to "
                            f"{args.outdir}", exit_code=1) from None
        manifest = finish(stage, request, len(jobs), done)
    s = manifest["summary"]
    split_text = ", ".join(f"{k} {v}" for k, v in sizes.items())
    print(f"{variant.name} ({variant.variant_hash}) seed {args.seed}: {s['subjects']} subjects "
          f"({split_text}), train event rate {s['train_event_rate']:.3f}, masked fraction "
          f"{s['masked_fraction']:.3f}")
    print(f"wrote {len(manifest['tables'])} tables in {len(jobs)} shard(s) and {MANIFEST} to "
          f"{args.outdir}")
    return 0
