"""Verification speed: `icgbench data verify` against reading and hashing the same files.

Target: the default verification of a tier (bytes and SHA-256 of every file, inline schemas
against the published ones, types, nulls, bounds and row counts from the Parquet statistics)
takes no more than about 1.5x the floor of reading and hashing its files, measured in the
same run. `--deep` (value-level constraints: enum, pattern, unique, keys) is reported beside.

    python benchmarks/bench_verify.py [--tier small|full] [--repeats 5]
"""

from __future__ import annotations

import argparse
import hashlib

from _timing import best_of
from icgbench.data import tier_descriptor
from icgbench.release.verify import tier_files, verify


def floor(paths) -> None:
    for p in paths:
        hashlib.sha256(p.read_bytes()).hexdigest()



def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tier", default="small")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    d = tier_descriptor(args.tier)
    paths = tier_files(d)
    total = sum(p.stat().st_size for p in paths)
    floor(paths)  # warm the page cache
    base = best_of(args.repeats, lambda: floor(paths))
    default = best_of(args.repeats, lambda: verify(d))
    deep = best_of(args.repeats, lambda: verify(d, deep=True))
    bytes_only = best_of(args.repeats, lambda: verify(d, check_data=False))
    print(f"{args.tier} tier: {len(paths)} files, {total / 1e6:.1f} MB; best of {args.repeats}")
    print(f"read + sha256 (floor)        {base:7.3f} s")
    print(f"verify, bytes and hashes     {bytes_only:7.3f} s  ({bytes_only / base:.2f}x floor)")
    print(f"verify (default)             {default:7.3f} s  ({default / base:.2f}x floor)  "
          "target <= 1.5x")
    print(f"verify --deep                {deep:7.3f} s  ({deep / base:.2f}x floor)")


if __name__ == "__main__":
    main()
