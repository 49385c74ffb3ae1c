"""A cohort of any size as a partitioned Parquet dataset, written shard by shard.

The cohort's blocks (:mod:`icgbench.generator.blocks`) are dealt into ``shards`` contiguous
runs. Each shard is one task: it simulates its blocks one at a time (so memory is bounded
by one block, whatever the cohort or shard size) and appends each block's rows as row
groups to its own part file per table, ``<table>/part-<shard>.parquet``. The cohort-level
tables (the intervention registry, the prior, the nodes, the graph and the intervention
effects, whose means span blocks) are written once, after every shard.

The content does not depend on the shard count or on where shards ran: every block's rows
are a function of the block alone, and each table's digest is SHA-256 over its total row
count and the content digests (docs/data.md) of its blocks' rows, in block order. Part
files differ in number with the shard count; the rows, read in part order, do not. The
model-free panel's scores (``model_free_scores``, which the release step grades from every
table at once) are not written: a sharded cohort is for fitting and analysis at scale, not
for normalized scores.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from icgbench.contract.vocabulary import MODALITIES, SPLITS
from icgbench.generator.blocks import BLOCK_SIZE, Block, add_in_order, split_blocks

log = logging.getLogger(__name__)

#: Written last into every output folder: what it holds, and proof that it is complete.
MANIFEST = "cohort.json"
#: Parquet options of generated (not frozen) data: fast zstd, statistics for readers.
PARQUET_OPTIONS: dict[str, Any] = {"compression": "zstd", "compression_level": 3,
                                   "write_statistics": True, "store_schema": False}
HELD_OUT = ("test", "target_test")


@dataclass(frozen=True)
class Request:
    """What to generate: one (variant, seed) cohort of given sizes and follow-up."""

    variant: str
    seed: int
    sizes: dict[str, int] = field(hash=False)
    months: int
    block_size: int = BLOCK_SIZE


@dataclass(frozen=True)
class ShardJob:
    """One task: the shard's number, its blocks, and the folder to write into."""

    request: Request
    index: int
    blocks: tuple[Block, ...]
    folder: str


@dataclass
class ShardResult:
    """What a shard wrote and the numbers the cohort-level tables and summary need."""

    index: int
    #: table -> (rows, content digest) of each block with rows, in block order
    digests: dict[str, list[tuple[int, str]]]
    #: relative path -> (rows, sha256) of each part file written
    files: dict[str, tuple[int, str]]
    #: held-out split -> per-block sums of each intervention's risk change, in block order
    effect_sums: dict[str, list[np.ndarray]]
    train_events: int
    #: modality -> (observed, rows) counts of the masks
    observed: dict[str, tuple[int, int]]


def block_count(request: Request) -> int:
    """How many blocks the cohort has (the most shards it can be split into)."""
    return len(split_blocks(request.sizes, request.block_size))


def plan(request: Request, shards: int) -> list[tuple[Block, ...]]:
    """The blocks of each shard: ``shards`` contiguous runs, as even as possible."""
    blocks = split_blocks(request.sizes, request.block_size)
    if not 1 <= shards <= len(blocks):
        raise ValueError(f"--shards must be between 1 and {len(blocks)} for this cohort (one "
                         f"block of {request.block_size:,} subjects is the smallest shard), "
                         f"got {shards}")
    bounds = np.linspace(0, len(blocks), shards + 1).round().astype(int)
    return [tuple(blocks[a:b]) for a, b in itertools.pairwise(bounds)]


def part_name(table: str, shard: int) -> str:
    """A part file's path relative to the dataset folder."""
    return f"{table}/part-{shard:05d}.parquet"


class _Parts:
    """One Parquet writer per table of a shard, opened at the table's first rows."""

    def __init__(self, folder: Path, shard: int) -> None:
        self.folder, self.shard, self.writers, self.rows = folder, shard, {}, {}

    def append(self, name: str, table: Any) -> None:
        import pyarrow.parquet as pq

        if name not in self.writers:
            path = self.folder / part_name(name, self.shard)
            path.parent.mkdir(parents=True, exist_ok=True)
            self.writers[name] = pq.ParquetWriter(path, table.schema, **PARQUET_OPTIONS)
            self.rows[name] = 0
        self.writers[name].write_table(table)
        self.rows[name] += table.num_rows

    def close(self) -> dict[str, tuple[int, str]]:
        from icgbench.release.encode import sha256_file

        files = {}
        for name, writer in self.writers.items():
            writer.close()
            rel = part_name(name, self.shard)
            files[rel] = (self.rows[name], sha256_file(self.folder / rel)[0])
        return files


def write_shard(job: ShardJob) -> ShardResult:
    """Simulate and write one shard, block by block (a task: runs in any process)."""
    import pyarrow.compute as pc

    from icgbench import contract
    from icgbench.generator import get_variant
    from icgbench.generator.simulator import simulate_block, subject_tables, visit_months
    from icgbench.release.encode import conform, content_digest

    r = job.request
    variant = get_variant(r.variant)
    visits = visit_months(variant, r.months)
    parts = _Parts(Path(job.folder), job.index)
    digests: dict[str, list[tuple[int, str]]] = {}
    sums: dict[str, list[np.ndarray]] = {s: [] for s in HELD_OUT}
    events = 0
    observed = {m: [0, 0] for m in MODALITIES}
    try:
        for block in job.blocks:
            result = simulate_block(variant, r.seed, block, r.months, visits)
            if block.split in HELD_OUT:
                sums[block.split].append(result.effect_sums())
            else:
                events += int(result.event.sum())
            for name, table in subject_tables([result]).items():
                schema = contract.table_schema(name)
                data = conform(table, schema, name)
                digests.setdefault(name, []).append((data.num_rows,
                                                     content_digest(data, schema)))
                parts.append(name, data)
                if name == "masks":
                    for m in MODALITIES:
                        observed[m][0] += int(pc.sum(data[m]).as_py() or 0)
                        observed[m][1] += data.num_rows
            log.debug("shard %d: block %s/%d written", job.index, block.split, block.index)
    finally:
        files = parts.close()
    return ShardResult(job.index, digests, files, sums, events,
                       {m: (o, n) for m, (o, n) in observed.items()})


def table_digest(name: str, blocks: list[tuple[int, str]]) -> str:
    """``sha256:<hex>`` over ``name:rows`` and the block digests in block order."""
    digest = hashlib.sha256(f"{name}:{sum(n for n, _ in blocks)}\n".encode())
    for _, block_digest in blocks:
        digest.update(f"{block_digest}\n".encode())
    return "sha256:" + digest.hexdigest()


def finish(folder: Path, request: Request, shards: int, results: list[ShardResult]
           ) -> dict[str, Any]:
    """Write the cohort-level tables and the manifest (last); return the manifest."""
    from icgbench import contract
    from icgbench.generator import get_variant
    from icgbench.generator.simulator import TABLE_ORDER, cohort_tables
    from icgbench.release.encode import conform, content_digest

    results = sorted(results, key=lambda s: s.index)
    variant = get_variant(request.variant)
    effects = {s: add_in_order([x for r in results for x in r.effect_sums[s]])
               for s in HELD_OUT}
    small = cohort_tables(variant, request.seed, request.months, effects,
                          {s: request.sizes[s] for s in HELD_OUT})
    parts = _Parts(folder, 0)
    digests: dict[str, list[tuple[int, str]]] = {}
    for name, table in small.items():
        schema = contract.table_schema(name)
        data = conform(table, schema, name)
        digests[name] = [(data.num_rows, content_digest(data, schema))]
        parts.append(name, data)
    files = parts.close()
    for r in results:
        files.update(r.files)
        for name, blocks in r.digests.items():
            digests.setdefault(name, []).extend(blocks)
    tables = {name: {"rows": sum(n for n, _ in digests[name]),
                     "content_digest": table_digest(name, digests[name]),
                     "parts": sorted(f for f in files if f.startswith(f"{name}/"))}
              for name in TABLE_ORDER}
    observed = {m: sum(r.observed[m][0] for r in results) for m in MODALITIES}
    rows = sum(r.observed[MODALITIES[0]][1] for r in results)
    manifest = {
        "variant": variant.name, "variant_hash": variant.variant_hash, "seed": request.seed,
        "months": request.months, "sizes": {s: request.sizes[s] for s in SPLITS},
        "block_size": request.block_size, "shards": shards, "frozen_release": False,
        "summary": {
            "subjects": sum(request.sizes.values()),
            "train_event_rate": sum(r.train_events for r in results) / request.sizes["train"],
            "masked_fraction": 1.0 - sum(observed.values()) / (len(MODALITIES) * rows),
        },
        "tables": tables,
        "files": {f: {"rows": n, "sha256": h} for f, (n, h) in sorted(files.items())},
    }
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest
