"""Generating very large cohorts: throughput, peak memory and disk as the cohort grows.

For each size N (default 100,000 and 1,000,000 subjects; add 10,000,000 with --sizes),
runs ``icgbench generate --n-subjects N --months 24 --shards S --jobs J`` as a command and
reports its wall time, subject-months per second (held-out subjects are simulated under
all seven interventions too), the peak RSS of its whole process tree and of its largest
process, and the dataset's size on disk. Memory should not grow with N (it is bounded by
one block per worker), time and disk linearly: the ratios against the smallest size,
measured in the same run, show it.

Then the per-shard throughput: one shard of K blocks simulated and written in this
process (``write_shard``), best of --repeats, the figure docs/scale.md scales to 100
workers.

    python benchmarks/bench_generate_scale.py [--sizes 100000 1000000 10000000] [--jobs 2]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

from _memory import mb, measure
from icgbench.api.cohort import Request, ShardJob, write_shard
from icgbench.generator import get_variant
from icgbench.generator.blocks import BLOCK_SIZE
from icgbench.generator.simulator import split_sizes

VARIANT, MONTHS = "linear_lowhet", 24


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def scale(sizes: list[int], jobs: int, shards_per_job: int, work: Path) -> None:
    icgbench = str(Path(sys.executable).with_name("icgbench"))
    print(f"icgbench generate --variant {VARIANT} --months {MONTHS} --jobs {jobs}; block "
          f"{BLOCK_SIZE:,} subjects per split")
    print(f"{'subjects':>12}{'shards':>8}{'seconds':>9}{'subj-months/s':>15}"
          f"{'peak RSS (tree)':>17}{'largest process':>17}{'on disk':>10}{'time x':>8}"
          f"{'RSS x':>7}")
    first = None
    for n in sizes:
        blocks = sum(-(-k // BLOCK_SIZE) for k in split_sizes(get_variant(VARIANT), n).values())
        shards = min(blocks, jobs * shards_per_job)
        out = work / f"n{n}"
        run = measure([icgbench, "generate", "--variant", VARIANT, "--seed", "1",
                       "--n-subjects", str(n), "--months", str(MONTHS), "--shards",
                       str(shards), "--jobs", str(jobs), "--out", str(out)])
        if run.returncode != 0:
            raise SystemExit(f"generate failed for n = {n}: {run.stderr}")
        disk = _size(out)
        shutil.rmtree(out)
        first = first or (n, run)
        time_x = (run.seconds / first[1].seconds) / (n / first[0])
        rss_x = run.peak_tree_bytes / first[1].peak_tree_bytes
        print(f"{n:>12,}{shards:>8}{run.seconds:>9.1f}{n * MONTHS / run.seconds:>15,.0f}"
              f"{mb(run.peak_tree_bytes):>17}{mb(run.peak_process_bytes):>17}"
              f"{disk / 1024**3:>8.2f}GB{time_x:>8.2f}{rss_x:>7.2f}")
    print("time x: seconds per subject relative to the smallest size (1.00 = linear); "
          "RSS x: peak tree RSS relative to the smallest size")


def per_shard(blocks: int, repeats: int, work: Path) -> None:
    n_train = blocks * BLOCK_SIZE
    sizes = {"train": n_train, "test": 1, "target_test": 1}
    request = Request(VARIANT, 1, sizes, MONTHS)
    from icgbench.generator.blocks import split_blocks

    chosen = tuple(b for b in split_blocks(sizes) if b.split == "train")
    best = float("inf")
    for i in range(repeats):
        folder = work / f"shard{i}"
        folder.mkdir()
        start = time.perf_counter()
        write_shard(ShardJob(request, 0, chosen, str(folder)))
        best = min(best, time.perf_counter() - start)
        shutil.rmtree(folder)
    print(f"one shard of {blocks} train block(s) ({n_train:,} subjects x {MONTHS} months), "
          f"simulated and written in one process: best of {repeats} {best:.2f} s = "
          f"{n_train * MONTHS / best:,.0f} subject-months/s per worker")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--shards-per-job", type=int, default=4)
    parser.add_argument("--shard-blocks", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workdir", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        scale(args.sizes, args.jobs, args.shards_per_job, Path(tmp))
        per_shard(args.shard_blocks, args.repeats, Path(tmp))


if __name__ == "__main__":
    main()
