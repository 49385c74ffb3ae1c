"""Python access to the frozen release: list what is there, load a table.

    >>> from icgbench.api.tables import load_table
    >>> subjects = load_table("linear_lowhet", "subjects")          # public, small tier
    >>> truth = load_table("linear_lowhet", "test_outcomes", role="truth")

Every load checks the file's SHA-256 against the descriptor first (or, for a file written
by another pyarrow version, its content digest), so what you read is what was frozen.
Truth tables must be asked for with ``role="truth"``: fitting a model never needs them.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa

from icgbench import contract
from icgbench.errors import UsageError
from icgbench.release import encode
from icgbench.release.descriptor import Descriptor
from icgbench.release.files import checked_bytes
from icgbench.release.locate import tier_descriptor

if TYPE_CHECKING:
    import pandas as pd


def list_tables(tier: str = "small", root: Path | None = None) -> list[dict[str, object]]:
    """One entry per (variant, seed, table): role, rows, and whether its files are present."""
    d = tier_descriptor(tier, root)
    out = []
    for r in d.resources:
        if r.format != "parquet":
            continue
        out.append({"variant": r.variant, "seed": r.seed, "table": r.table, "role": r.role,
                    "rows": r.rows, "present": (d.base / r.path).is_file()})
    return out


def default_seed(d: Descriptor, variant: str) -> int:
    """The first seed of ``variant`` in a tier."""
    seeds = [c["seed"] for c in d.cohorts() if c["variant"] == variant]
    if not seeds:
        known = sorted({c["variant"] for c in d.cohorts()})
        raise UsageError(f"the {d.tier} tier has no cohort of variant {variant!r}; "
                         f"variants: {', '.join(known)}")
    return seeds[0]


def load_arrow(variant: str, table: str, seed: int | None = None, tier: str = "small",
               role: str = "public", root: Path | None = None) -> pa.Table:
    """One verified table of one cohort as an Arrow table."""
    contract.table_schema(table)  # an UnknownNameError for a table the contract lacks
    actual = contract.table_role(table)
    if actual != role:
        raise UsageError(f"table {table!r} is a {actual} table; pass role={actual!r} to load "
                         "it" + (" (fitting a model never needs truth tables)"
                                 if actual == "truth" else ""))
    d = tier_descriptor(tier, root)
    seed = default_seed(d, variant) if seed is None else seed
    r = d.find(variant, seed, table, "parquet")
    data = checked_bytes(d, r)
    return encode.conform(encode.read_parquet_bytes(data),
                          contract.table_schema(table), r.name)


def load_table(variant: str, table: str, seed: int | None = None, tier: str = "small",
               role: str = "public", root: Path | None = None) -> pd.DataFrame:
    """One verified table of one cohort as a pandas DataFrame."""
    return load_arrow(variant, table, seed, tier, role, root).to_pandas()
