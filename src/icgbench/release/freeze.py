"""Freezing a tier: simulate its cohorts, encode every table twice, describe the files.

Two passes: each cohort is simulated, its tables written and the model-free panel graded
on it (in parallel, one cohort a task); then, with every cohort's panel in hand, each
cohort's floors are chosen (:mod:`icgbench.model_free.floors`: per variant, over the board
tier's cohorts) and its ``model_free_scores`` table written.

``freeze`` writes a tier and its descriptor; ``check`` regenerates it into a temporary
folder and compares with the committed descriptor (CSV text exactly, Parquet by content
digest); ``build`` produces a tier's files locally and installs them only when they match
the committed descriptor.
"""

from __future__ import annotations

import logging
import os
import tempfile
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from icgbench import contract
from icgbench.contract.vocabulary import SPLIT_ID_PREFIX, SPLITS
from icgbench.errors import InvalidInputError, UsageError
from icgbench.generator import get_variant, simulate, variant_names
from icgbench.io import failpoints
from icgbench.io.atomic import ensure_writable_dir, owned_staging, replaced_dir, write_text
from icgbench.io.progress import track
from icgbench.release import encode
from icgbench.release.descriptions import write_tier_descriptions
from icgbench.release.descriptor import (
    PARQUET_MEDIATYPE,
    RESOURCE_TYPE,
    Descriptor,
    build_document,
    inline_schema,
    load_descriptor,
    relative_path,
    resource_name,
)
from icgbench.release.tiers import BOARD_TIER, DATA_VERSION, Tier

log = logging.getLogger(__name__)

_PREFIX_SPLIT = {prefix: split for split, prefix in SPLIT_ID_PREFIX.items()}


@dataclass(frozen=True)
class CohortKey:
    variant: str
    seed: int


def tier_cohorts(tier: Tier) -> list[CohortKey]:
    """Every cohort of a tier, variant-major in registry order."""
    return [CohortKey(v, s) for v in variant_names() for s in tier.seeds]


def _splits(table: pa.Table) -> list[str]:
    if "subject_id" not in table.column_names:
        return list(SPLITS)
    prefixes = set(pc.unique(pc.utf8_slice_codeunits(table["subject_id"], 0, 2)).to_pylist())
    return [s for s in SPLITS if SPLIT_ID_PREFIX[s] in prefixes]


def encode_cohort(tier: Tier, key: CohortKey, data_dir: Path, path_prefix: str
                  ) -> tuple[list[dict[str, Any]], list[Any]]:
    """Simulate one cohort, write its DGP's tables under ``data_dir`` and grade the
    model-free panel on it; return its resources and the panel's rows."""
    from icgbench.model_free.panel import cohort_rows

    variant = get_variant(key.variant)
    log.info("simulating %s seed %d for the %s tier", variant.name, key.seed, tier.name)
    cohort = simulate(variant, key.seed, sizes=dict(tier.sizes), months=tier.months)
    resources = write_tables(cohort.tables, key, data_dir, path_prefix)
    calibration = (get_variant(tier.calibration[0]), tier.calibration[1])
    return resources, cohort_rows(variant, key.seed, cohort.tables, calibration)


def write_floors(rows: dict[CohortKey, list[Any]], data_dir: Path, path_prefix: str,
                 board: bool = False) -> dict[CohortKey, list[dict[str, Any]]]:
    """Choose every cohort's floors (on the board's tier from all its cohorts' panel rows,
    elsewhere the shipped choices) and write each cohort's ``model_free_scores``; its
    resources, by cohort."""
    from icgbench.model_free import floors

    chosen = floors.choose({(k.variant, k.seed): r for k, r in rows.items()}, board)
    return {k: write_tables({PANEL_TABLE: floors.table(r, chosen[(k.variant, k.seed)])}, k,
                            data_dir, path_prefix) for k, r in rows.items()}


#: The table the release adds to the DGP's: the model-free panel's scores and floors.
PANEL_TABLE = "model_free_scores"


def write_tables(tables: dict[str, pa.Table], key: CohortKey, data_dir: Path,
                 path_prefix: str) -> list[dict[str, Any]]:
    """Write each table of one cohort as Parquet and csv.gz; return their resources.

    ``tables`` holds the tables to publish (a subset of the contract's, in any order);
    ``key.seed`` names the cohort in paths and provenance.
    """
    variant = get_variant(key.variant)
    resources = []
    for table in (t for t in contract.table_names() if t in tables):
        schema = contract.table_schema(table)
        data = encode.conform(tables[table], schema, table)
        digest = encode.content_digest(data, schema)
        common = {
            "icgbench:table": table,
            "icgbench:role": schema["icgbench:role"],
            "icgbench:schema": f"schemas/tables/{table}.json",
            "icgbench:variant": variant.name,
            "icgbench:variant_hash": variant.variant_hash,
            "icgbench:seed": key.seed,
            "icgbench:splits": _splits(data),
            "icgbench:rows": data.num_rows,
            "icgbench:content_digest": digest,
        }
        for fmt in ("parquet", "csv"):
            rel = relative_path(variant.name, key.seed, table, fmt)
            target = data_dir / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            extra: dict[str, Any]
            if fmt == "parquet":
                encode.write_parquet(data, target)
                extra = {"format": "parquet", "mediatype": PARQUET_MEDIATYPE}
            else:
                text = encode.csv_text(data, schema)
                target.write_bytes(encode.gzip_bytes(text))
                extra = {"format": "csv", "mediatype": "text/csv", "encoding": "utf-8",
                         "compression": "gz",
                         "icgbench:csv_sha256": encode.sha256_bytes(text)}
            file_hash, size = encode.sha256_file(target)
            log.debug("wrote %s (%d bytes)", target, size)
            resources.append({
                "name": resource_name(variant.name, key.seed, table, fmt),
                "type": RESOURCE_TYPE[fmt],
                "path": f"{path_prefix}{rel}",
                **extra,
                "bytes": size,
                "hash": file_hash,
                "schema": inline_schema(table, variant.name, key.seed, fmt),
                **common,
            })
    return resources


def _encode_job(args: tuple[Tier, CohortKey, str, str]
                ) -> tuple[list[dict[str, Any]], list[Any]]:
    tier, key, data_dir, prefix = args
    return encode_cohort(tier, key, Path(data_dir), prefix)


def produce(tier: Tier, data_dir: Path, path_prefix: str, jobs: int = 1
            ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Write every cohort of ``tier`` under ``data_dir``; return (cohorts, resources)."""
    keys = tier_cohorts(tier)
    args = [(tier, k, str(data_dir), path_prefix) for k in keys]
    results: Iterator[tuple[list[dict[str, Any]], list[Any]]]
    if jobs > 1:
        pool = ProcessPoolExecutor(max_workers=jobs)
        results = pool.map(_encode_job, args)
    else:
        pool = None
        results = map(_encode_job, args)
    by_cohort: dict[CohortKey, list[dict[str, Any]]] = {}
    rows: dict[CohortKey, list[Any]] = {}
    try:
        for key, (chunk, panel) in zip(keys, track(results, len(keys),
                                                   f"freezing the {tier.name} tier"),
                                       strict=True):
            by_cohort[key], rows[key] = chunk, panel
    finally:
        if pool is not None:
            pool.shutdown()
    floors = write_floors(rows, data_dir, path_prefix, board=tier.name == BOARD_TIER)
    resources = [r for k in keys for r in by_cohort[k] + floors[k]]
    cohorts = [
        {"variant": k.variant, "variant_hash": get_variant(k.variant).variant_hash,
         "seed": k.seed, "sizes": dict(tier.sizes)}
        for k in keys
    ]
    return cohorts, resources


def path_prefix(tier: Tier) -> str:
    """Resource paths' prefix: the small tier's descriptor sits at the release root."""
    return f"{tier.data_dir}/" if tier.name == "small" else ""


def differences(expected: Descriptor, resources: list[dict[str, Any]]) -> list[str]:
    """Tables whose regenerated content differs from ``expected`` (one line each)."""
    produced = {r["name"]: r for r in resources}
    out = []
    for r in expected.resources:
        new = produced.pop(r.name, None)
        if new is None:
            out.append(f"{r.name}: in the descriptor but not regenerated")
        elif r.format == "csv" and new["icgbench:csv_sha256"] != r.csv_sha256:
            out.append(f"{r.name}: CSV text differs ({r.csv_sha256} != "
                       f"{new['icgbench:csv_sha256']})")
        elif new["icgbench:content_digest"] != r.content_digest:
            out.append(f"{r.name}: content digest differs ({r.content_digest} != "
                       f"{new['icgbench:content_digest']})")
    out.extend(f"{name}: regenerated but not in the descriptor" for name in produced)
    return out


def freeze(tier: Tier, root: Path, jobs: int = 1) -> Path:
    """Write ``tier`` under ``root`` and its descriptor; return the descriptor path."""
    ensure_writable_dir(root)
    descriptor_path = root / tier.descriptor_path
    data_dir = root / tier.data_dir
    ensure_writable_dir(data_dir.parent)
    with replaced_dir(data_dir, f"freeze-{tier.name}") as stage:
        cohorts, resources = produce(tier, stage, path_prefix(tier), jobs)
        document = build_document(tier, cohorts, resources)
        if descriptor_path.exists():
            _require_version_bump(load_descriptor(descriptor_path), resources)
    write_text(descriptor_path, contract.dumps_package(document))
    write_tier_descriptions(descriptor_path)
    return descriptor_path


def _require_version_bump(old: Descriptor, resources: list[dict[str, Any]]) -> None:
    changed = differences(old, resources)
    if changed and old.version == DATA_VERSION:
        raise UsageError(
            f"freezing would change {len(changed)} resource(s) (first: {changed[0]}) but the "
            f"release version is still {DATA_VERSION}: bump DATA_VERSION in "
            "src/icgbench/release/tiers.py (semver) and record the change in CHANGELOG.md"
        )


def check(tier: Tier, root: Path, jobs: int = 1) -> list[str]:
    """Regenerate ``tier`` in a temporary folder; the differences from its descriptor."""
    expected = load_descriptor(root / tier.descriptor_path)
    with tempfile.TemporaryDirectory(prefix="icgbench-check-") as tmp:
        _, resources = produce(tier, Path(tmp), path_prefix(tier), jobs)
        problems = differences(expected, resources)
        if expected.version != DATA_VERSION:
            problems.insert(0, f"descriptor version {expected.version} != package data "
                            f"version {DATA_VERSION}")
    return problems


def build(tier: Tier, root: Path, jobs: int = 1) -> Path:
    """Build ``tier``'s files locally; install them only if they match its descriptor."""
    expected = load_descriptor(root / tier.descriptor_path)
    data_dir = root / tier.data_dir
    prefix = path_prefix(tier)
    with owned_staging(data_dir, "build") as stage:
        _, resources = produce(tier, stage, prefix, jobs)
        problems = differences(expected, resources)
        if problems:
            raise InvalidInputError(
                f"the locally built {tier.name} tier does not match its descriptor "
                f"({len(problems)} difference(s)); nothing was installed:\n  "
                + "\n  ".join(problems[:20])
            )
        failpoints.reached("staging.filled")
        for r in expected.resources:
            relative = r.path.removeprefix(prefix)
            target = data_dir / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(stage / relative, target)
    return data_dir
