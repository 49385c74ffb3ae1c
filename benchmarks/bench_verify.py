"""Verification speed: `icgbench data verify` against reading and hashing the same files, and
`icgbench leaderboard verify` per entry as the board grows.

Data target: the default verification of a tier (bytes and SHA-256 of every file, inline
schemas against the published ones, types, nulls, bounds and row counts from the Parquet
statistics) takes no more than about 1.5x the floor of reading and hashing its files,
measured in the same run. `--deep` (value-level constraints: enum, pattern, unique, keys) is
reported beside.

Board target: the time per entry does not grow with the board (at the largest size within
1.25x of the smallest), and the largest board (10,000 entries by default) verifies. The
board is small-tier: `random`'s submission on every variant, under as many model versions
as it takes (each stored file differs in its header, so each is read, hashed, validated
and graded). The reference, measured in the same run, is the floor of verifying an entry:
re-grading a sample of the same entries one after the other in this process (read, hash,
validate, grade), with nothing of the board around it.

    python benchmarks/bench_verify.py [--what all|data|board] [--tier small|full]
        [--repeats 5] [--sizes 1000,10000] [--jobs 2] [--sample 200]
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import gzip
import hashlib
import json
import tempfile
import time
from pathlib import Path

from _timing import best_of, best_of_each
from icgbench.api.tables import tier_descriptor
from icgbench.release.verify import tier_files, verify

#: The model the board's entries are filed under, with a placeholder for its version.
MODEL, PLACEHOLDER = "bench", "0.0.0-bench"


def floor(paths) -> None:
    for p in paths:
        hashlib.sha256(p.read_bytes()).hexdigest()


def bench_data(tier: str, repeats: int) -> None:
    d = tier_descriptor(tier)
    paths = tier_files(d)
    total = sum(p.stat().st_size for p in paths)
    floor(paths)  # warm the page cache
    times = best_of_each(repeats, {
        "floor": lambda: floor(paths),
        "default": lambda: verify(d),
        "bytes": lambda: verify(d, check_data=False),
    })
    base, default, bytes_only = times["floor"], times["default"], times["bytes"]
    deep = best_of(repeats, lambda: verify(d, deep=True))
    print(f"{tier} tier: {len(paths)} files, {total / 1e6:.1f} MB; best of {repeats} "
          "interleaved rounds")
    print(f"read + sha256 (floor)        {base:7.3f} s")
    print(f"verify, bytes and hashes     {bytes_only:7.3f} s  ({bytes_only / base:.2f}x floor)")
    print(f"verify (default)             {default:7.3f} s  ({default / base:.2f}x floor)  "
          "target <= 1.5x")
    print(f"verify --deep                {deep:7.3f} s  ({deep / base:.2f}x floor)")


def _templates(folder: Path) -> dict[str, tuple[str, object]]:
    """Per variant: the submission text (version left as a placeholder) and its entry,
    graded once by `add` (calibration cohort first, for the structure K*)."""
    from icgbench.generator import variant_names
    from icgbench.leaderboard.board import add
    from icgbench.models import CohortData, get_model

    calibration = tier_descriptor("small").calibration_cohort[0]
    variants = sorted(variant_names(), key=lambda v: v != calibration)
    out = {}
    with tempfile.TemporaryDirectory() as staging:
        for variant in variants:
            model = get_model("random")
            data = CohortData.load(variant)
            model.fit(data)
            doc = model.submission(data)
            doc["model"].update(name=MODEL, version=PLACEHOLDER)
            text = json.dumps(doc)
            source = Path(staging) / f"{variant}.json"
            source.write_text(text)
            out[variant] = (text, add(source, folder, tier="small"))
    return out


def build_board(folder: Path, count: int) -> None:
    """A small-tier board of ``count`` entries with their stored submissions."""
    from icgbench.leaderboard.entry import canonical_path
    from icgbench.leaderboard.store import write_board

    templates = _templates(folder.parent / f"{folder.name}-templates")
    entries = []
    version = 0
    while len(entries) < count:
        version += 1
        for variant, (text, template) in templates.items():
            if len(entries) == count:
                break
            name = f"1.{version}"
            stored = gzip.compress(text.replace(f'"{PLACEHOLDER}"', f'"{name}"', 1).encode(),
                                   compresslevel=1, mtime=0)
            path = canonical_path(MODEL, name, variant, template.seed)
            (folder / path).parent.mkdir(parents=True, exist_ok=True)
            (folder / path).write_bytes(stored)
            entries.append(dataclasses.replace(
                template, package_version=name, submission_path=path,
                submission_sha256="sha256:" + hashlib.sha256(stored).hexdigest()))
    write_board(folder, "small", entries)


def reference_per_entry(folder: Path, sample: int) -> float:
    """Seconds to verify one entry alone, in this process: the floor (see the docstring)."""
    from icgbench.leaderboard.store import load_board
    from icgbench.leaderboard.verify import _tasks, verify_entry

    entries = load_board(folder, new_tier=None).entries[:sample]
    tasks = _tasks(folder, entries, dt.datetime.now(dt.UTC))
    start = time.perf_counter()
    for task in tasks:
        assert verify_entry(*task) == []
    return (time.perf_counter() - start) / len(tasks)


def bench_board(sizes: list[int], jobs: int, sample: int) -> None:
    from icgbench.leaderboard.verify import verify as verify_board

    with tempfile.TemporaryDirectory() as root:
        per_entry = {}
        reference = None
        for size in sizes:
            folder = Path(root) / f"board-{size}"
            start = time.perf_counter()
            build_board(folder, size)
            built = time.perf_counter() - start
            if reference is None:
                reference = reference_per_entry(folder, sample)
                print(f"board: small tier, `random` on every variant; verify --jobs {jobs}")
                print(f"reference: one entry alone, in process   {reference * 1e3:7.2f} ms "
                      f"per entry (mean of {sample})")
            start = time.perf_counter()
            entries, problems = verify_board(folder, jobs=jobs, tier="small")
            took = time.perf_counter() - start
            assert len(entries) == size and problems == [], problems[:3]
            per_entry[size] = took / size
            print(f"{size:>6} entries: verify {took:8.1f} s, {per_entry[size] * 1e3:6.2f} ms per "
                  f"entry ({per_entry[size] / reference:.2f}x reference; board built in "
                  f"{built:.0f} s)")
        smallest, largest = min(sizes), max(sizes)
        print(f"per entry at {largest} / at {smallest}: "
              f"{per_entry[largest] / per_entry[smallest]:.2f}x  target <= 1.25x; "
              f"{largest} entries verified")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--what", choices=("all", "data", "board"), default="all")
    parser.add_argument("--tier", default="small")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--sizes", default="1000,10000",
                        help="board sizes, comma-separated (entries)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--sample", type=int, default=200,
                        help="entries re-graded alone for the reference")
    args = parser.parse_args()
    if args.what in ("all", "data"):
        bench_data(args.tier, args.repeats)
    if args.what in ("all", "board"):
        bench_board([int(s) for s in args.sizes.split(",")], args.jobs, args.sample)


if __name__ == "__main__":
    main()
