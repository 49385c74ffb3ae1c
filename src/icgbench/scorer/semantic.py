"""The checks no JSON Schema can express, and aligning predictions to the truth's order.

Each block's ids must be exactly its split's subjects (no duplicates, none missing, none
unknown), its parallel arrays equally long, its numbers finite; the header must name the
release's data version and the variant's hash, and a cohort the release holds.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from icgbench.generator.variants import get_variant
from icgbench.io.arrow import to_numpy
from icgbench.io.untrusted import lone_surrogate
from icgbench.release.descriptor import Descriptor
from icgbench.release.tiers import TIERS, UNFROZEN_NAME
from icgbench.scorer.columns import Columns
from icgbench.scorer.messages import (
    MESSAGES,
    json_string,
    json_text,
    line,
    message,
    pointer,
)
from icgbench.tasks import BLOCK_SPLITS
from icgbench.tasks.base import Truth

SHOW = 5  # ids named per problem


def normalise_integers(doc: dict[str, Any]) -> None:
    """Integer fields written as integral floats (``0.0``, valid JSON Schema integers) as int.

    ajv and jsonschema both accept ``"seed": 0.0`` as an integer; the scorer therefore
    treats it exactly as ``0`` from here on.
    """
    doc["seed"] = int(doc["seed"])
    block = doc.get("structure_recovery")
    if isinstance(block, dict) and block.get("k") is not None:
        doc["structure_recovery"] = {**block, "k": int(block["k"])}


def text_errors(doc: dict[str, Any]) -> list[str]:
    """Header strings that are not valid Unicode (a lone surrogate, from a JSON escape)."""
    out = []
    for key, value in doc["model"].items():
        if isinstance(value, str) and (at := lone_surrogate(value)) is not None:
            out.append(line(("model", key), message("lone_surrogate", at=at)))
    return out


def header_errors(doc: dict[str, Any], d: Descriptor) -> list[str]:
    """Data version, tier, variant hash and cohort against the release; header text."""
    out = text_errors(doc)
    if doc["data_version"] != d.version and doc["data_version"] not in d.compatible_versions:
        out.append(line(("data_version",), message(
            "data_version", given=json_string(doc["data_version"]),
            release=json_string(d.version), plain=doc["data_version"])))
    if doc["tier"] != d.tier:
        hint = MESSAGES["unfrozen_hint"] if doc["tier"] == UNFROZEN_NAME else ""
        out.append(line(("tier",), message("tier", given=json_string(doc["tier"]),
                                           tier=json_string(d.tier), hint=hint)))
    expected = get_variant(doc["variant"]).variant_hash
    if doc["variant_hash"] != expected:
        out.append(line(("variant_hash",), message(
            "variant_hash", given=json_string(doc["variant_hash"]),
            variant=json_string(doc["variant"]), expected=json_string(expected))))
    seeds = sorted(c["seed"] for c in d.cohorts() if c["variant"] == doc["variant"])
    holders = [t.name for t in TIERS.values() if doc["seed"] in t.seeds and t.name != d.tier]
    if doc["seed"] not in seeds and holders:
        out.append(line(("tier",), message(
            "tier_of_seed", tier=json_string(d.tier), tier_name=d.tier, variant=doc["variant"],
            seed=doc["seed"], other=holders[0], seeds=json_text(seeds))))
    elif doc["seed"] not in seeds:
        out.append(line(("seed",), message("seed", tier=d.tier, variant=doc["variant"],
                                           seed=doc["seed"], seeds=json_text(seeds))))
    return out


def _arrays(block: dict[str, Any], path: tuple[str, ...] = ()) -> list[tuple[tuple, list]]:
    out = []
    for key, value in block.items():
        if isinstance(value, list):
            out.append(((*path, key), value))
        elif isinstance(value, dict):
            out.extend(_arrays(value, (*path, key)))
    return out


def _few(values: list[str]) -> str:
    shown = ", ".join(values[:SHOW])
    return message("few", shown=shown, more=len(values) - SHOW) if len(values) > SHOW else shown


def _positions(ids: pa.Array, expected: pa.Array, cache: Columns) -> np.ndarray | None:
    """Position in ``expected`` of each submitted id, NaN if unknown (None: lists equal)."""
    def locate(_: object) -> np.ndarray | None:
        if ids.equals(expected):
            return None
        found = pc.index_in(ids, value_set=expected)
        return to_numpy(pc.cast(found, pa.float64()))

    return cache.derived(ids, ("positions", id(expected)), locate)


def _id_errors(name: str, split: str, ids: pa.Array, expected: pa.Array,
               cache: Columns) -> list[str]:
    positions = _positions(ids, expected, cache)
    if positions is None:
        return []
    known = ~np.isnan(positions)
    hits = np.bincount(positions[known].astype(np.int64), minlength=len(expected))
    if known.all() and len(ids) == len(expected) and hits.max(initial=0) <= 1:
        return []  # the same ids in another order
    out = []
    where = (name, "subject_id")
    counts = pc.value_counts(ids)
    dupes = pc.filter(counts.field("values"), pc.greater(counts.field("counts"), 1))
    if len(dupes):
        out.append(line(where, message("duplicate_ids", ids=_few(dupes.to_pylist()))))
    seen = hits > 0
    if not seen.all():
        missing = pc.filter(expected, pa.array(~seen)).to_pylist()
        out.append(line(where, message("missing_ids", count=len(missing), split=split,
                                       ids=_few(missing))))
    if not known.all():
        unknown = pc.filter(ids, pa.array(~known)).to_pylist()
        out.append(line(where, message("unknown_ids", count=len(unknown), split=split,
                                       ids=_few(unknown))))
    return out


def block_errors(name: str, block: dict[str, Any], truth: Truth,
                 cache: Columns | None = None) -> list[str]:
    """Lengths, finiteness and id coverage of one block."""
    cache = Columns() if cache is None else cache
    out = []
    arrays = _arrays(block)
    lengths = {len(v) for _, v in arrays}
    if len(lengths) > 1:
        detail = ", ".join(message("length_of", path=pointer((name, *p)), count=len(v))
                           for p, v in arrays)
        out.append(line((name,), message("lengths", detail=detail)))
    for path, values in arrays:
        if path[-1] == "subject_id" or any(isinstance(v, str) for v in values[:1]):
            continue
        bad = np.flatnonzero(~np.isfinite(cache.numbers(values)))
        if bad.size:
            out.append(line((name, *path, int(bad[0])),
                            message("not_finite", count=bad.size)))
    split = BLOCK_SPLITS.get(name)
    if split is not None and "subject_id" in block:
        ids = cache.strings(block["subject_id"])
        out.extend(_id_errors(name, split, ids, truth.ids[split], cache))
    if "source" in block and "target" in block and len(lengths) == 1:
        out.extend(_edge_errors(name, block["source"], block["target"]))
    return out


def _edge_errors(name: str, source: list[str], target: list[str]) -> list[str]:
    """An edge list has no self-loops and names each ordered pair at most once."""
    out = []
    loops = [i for i, (s, t) in enumerate(zip(source, target, strict=True)) if s == t]
    if loops:
        out.append(line((name, "source", loops[0]), message(
            "self_loop", node=json_string(source[loops[0]]), count=len(loops))))
    seen: dict[tuple[str, str], int] = {}
    for i, pair in enumerate(zip(source, target, strict=True)):
        if pair in seen:
            out.append(line((name, "source", i), message(
                "repeated_edge", source=json_string(pair[0]), target=json_string(pair[1]),
                first=seen[pair])))
            break
        seen[pair] = i
    return out


def align(name: str, block: dict[str, Any], truth: Truth,
          cache: Columns | None = None) -> dict[str, Any]:
    """The block's arrays as float arrays in the truth's subject order (ids left out)."""
    cache = Columns() if cache is None else cache
    split = BLOCK_SPLITS.get(name)
    order = None
    if split is not None and "subject_id" in block:
        positions = _positions(cache.strings(block["subject_id"]), truth.ids[split], cache)
        if positions is not None:
            order = np.empty(len(positions), dtype=np.int64)
            order[positions.astype(np.int64)] = np.arange(len(positions))

    def convert(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: convert(v) for k, v in value.items()}
        if isinstance(value, list):
            if value and isinstance(value[0], str):
                return np.asarray(value, dtype=object)
            x = cache.numbers(value)
            return x[order] if order is not None else x
        return value

    return {k: convert(v) for k, v in block.items() if k != "subject_id"}
