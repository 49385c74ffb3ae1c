"""Verifying a release tier: every file's bytes and SHA-256, and the Table Schema constraints.

A file whose bytes differ from the descriptor is still accepted when its *content* is the
frozen content: a Parquet file written by another pyarrow version (same content digest) or
a ``.csv.gz`` compressed by another zlib (same CSV text). Anything else is reported. The
constraints (types, required, enum, bounds, pattern, unique, primary and foreign keys) are
checked on the Parquet data; the CSV files hold the same values by construction, which
their hashes (or CSV-text digests) prove.
"""

from __future__ import annotations

import gc
import multiprocessing as mp
import os
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from icgbench.io import untrusted
from icgbench.io.progress import track
from icgbench.release import encode
from icgbench.release.descriptor import Descriptor, Resource, schema_matches
from icgbench.release.files import (
    content_matches,
    read_resource,
)


@dataclass(frozen=True)
class Problem:
    """One verification failure: which resource and what is wrong."""

    resource: str
    message: str

    def __str__(self) -> str:
        return f"{self.resource}: {self.message}"


@dataclass(frozen=True)
class Verdict:
    """Outcome of verifying one tier."""

    problems: list[Problem]
    checked: int
    content_verified: list[str]  # resources whose bytes differ but whose content matches

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass(frozen=True)
class ColumnSummary:
    """What bound and null checks need of a column: from Parquet statistics or the data."""

    null_count: int
    minimum: Any
    maximum: Any


def summarize(column: pa.ChunkedArray | pa.Array) -> ColumnSummary:
    """Null count, minimum and maximum computed from decoded values."""
    if len(column) == column.null_count:
        return ColumnSummary(column.null_count, None, None)
    mm = pc.min_max(column)
    return ColumnSummary(column.null_count, mm["min"].as_py(), mm["max"].as_py())


_NOTHING = ColumnSummary(0, None, None)

BOUNDS = {"minimum", "maximum", "exclusiveMinimum"}
BOUND_KEYS = BOUNDS | {"required"}
NUMERIC = ("integer", "number")


def bounded_columns(schema: dict[str, Any]) -> set[str]:
    """Columns with a null or bound constraint (the ones statistics must summarise)."""
    return {f["name"] for f in schema["fields"] if BOUND_KEYS & set(f.get("constraints", {}))}


def counted_columns(schema: dict[str, Any]) -> set[str]:
    """Bounded columns that need only their null count: no bound of theirs is checked (one
    that is not a number, or has no bound but ``required``)."""
    return {f["name"] for f in schema["fields"]
            if f["type"] not in NUMERIC or not BOUNDS & set(f.get("constraints", {}))}


def parquet_summaries(metadata: pq.FileMetaData, wanted: set[str],
                      counted: set[str] | frozenset[str] = frozenset()
                      ) -> dict[str, ColumnSummary]:
    """Summaries of the ``wanted`` columns from the row-group statistics of a footer; those
    also in ``counted`` get their null count alone (minimum and maximum left None).

    Columns without complete statistics are left out (the caller decodes them); a row group
    of no rows holds no values, so it needs none (writers give it no statistics).
    """
    names = metadata.schema.names
    found: dict[int, list] = {i: [0, None, None, name in counted]
                              for i, name in enumerate(names) if name in wanted}
    for g in range(metadata.num_row_groups):
        group = metadata.row_group(g)
        rows = group.num_rows
        if rows == 0:
            continue
        for i in list(found):
            stats = group.column(i).statistics
            if stats is None or not stats.has_null_count:
                del found[i]
                continue
            acc = found[i]
            nulls = stats.null_count
            acc[0] += nulls
            if acc[3] or nulls == rows:
                continue
            if not stats.has_min_max:
                del found[i]
                continue
            lo, hi = stats.min, stats.max
            acc[1] = lo if acc[1] is None else min(acc[1], lo)
            acc[2] = hi if acc[2] is None else max(acc[2], hi)
    return {names[i]: ColumnSummary(*acc[:3]) for i, acc in found.items()}


def decoded_columns(schema: dict[str, Any]) -> list[str]:
    """Columns whose checks need values, not just bounds: enums, patterns, keys."""
    need = set(schema.get("primaryKey", []))
    for fk in schema.get("foreignKeys", []):
        need.update(fk["fields"])
    for f in schema["fields"]:
        c = f.get("constraints", {})
        if {"enum", "pattern", "unique"} & set(c):
            need.add(f["name"])
    return [f["name"] for f in schema["fields"] if f["name"] in need]


def field_problems(values: dict[str, pa.ChunkedArray], summaries: dict[str, ColumnSummary],
                   schema: dict[str, Any], rows: int) -> list[str]:
    """Violations of field constraints and the primary key.

    ``summaries`` gives every column's null count and bounds; ``values`` holds the decoded
    columns that value-level checks (enum, pattern, unique, primary key) need.
    """
    out = []
    for f in schema["fields"]:
        name, c = f["name"], f.get("constraints", {})
        if not c and name not in values:
            continue
        summary = summaries.get(name, _NOTHING)
        if c.get("required") and summary.null_count:
            out.append(f"field {name!r} is required but has {summary.null_count} null(s)")
        if f["type"] in NUMERIC and summary.minimum is not None:
            lo, hi = summary.minimum, summary.maximum
            if "minimum" in c and lo < c["minimum"]:
                out.append(f"field {name!r} has {lo} below its minimum {c['minimum']}")
            if "maximum" in c and hi > c["maximum"]:
                out.append(f"field {name!r} has {hi} above its maximum {c['maximum']}")
            if "exclusiveMinimum" in c and lo <= c["exclusiveMinimum"]:
                out.append(f"field {name!r} has {lo} not above {c['exclusiveMinimum']}")
        if name not in values:
            continue
        distinct = _distinct_values(values[name])
        if len(distinct) == 0:
            continue
        if "enum" in c:
            allowed = pa.array(c["enum"], type=distinct.type)
            bad = pc.invert(pc.is_in(distinct, value_set=allowed))
            if pc.any(bad).as_py():
                example = pc.filter(distinct, bad)[0].as_py()
                out.append(f"field {name!r} has value {example!r} outside its enum")
        if "pattern" in c:
            ok = pc.match_substring_regex(distinct, f"^(?:{c['pattern']})$")
            if not pc.all(ok).as_py():
                example = pc.filter(distinct, pc.invert(ok))[0].as_py()
                out.append(f"field {name!r} value {example!r} does not match "
                           f"{c['pattern']!r}")
        sole_key = schema.get("primaryKey") == [name]
        present = rows - summary.null_count
        if c.get("unique") and not sole_key and len(distinct) != present:
            out.append(f"field {name!r} must be unique but has duplicates")
    key = schema.get("primaryKey")
    if key and rows and all(k in values for k in key):
        duplicates = rows - distinct_rows([values[k] for k in key])
        if duplicates:
            out.append(f"primary key {key} has {duplicates} duplicate row(s)")
    return out


def _distinct_values(column: pa.ChunkedArray) -> pa.Array:
    """The distinct non-null values of a column."""
    if pa.types.is_dictionary(column.type):
        return pc.unique(pc.drop_null(column.chunk(0).dictionary
                                      if column.num_chunks == 1 else
                                      column.combine_chunks().dictionary_decode()))
    return pc.drop_null(pc.unique(column))


def distinct_rows(columns: list[pa.ChunkedArray]) -> int:
    """Number of distinct rows over ``columns`` (per-column codes combined, then counted)."""
    if len(columns) == 1:
        column = columns[0]
        if pa.types.is_dictionary(column.type) and column.num_chunks == 1:
            chunk = column.chunk(0)
            return pc.count_distinct(chunk.indices).as_py() if (
                pc.count_distinct(chunk.dictionary).as_py() == len(chunk.dictionary)
            ) else pc.count_distinct(chunk.dictionary_decode()).as_py()
        return pc.count_distinct(column).as_py()
    code = np.zeros(len(columns[0]), dtype=np.int64)
    for column in columns:
        encoded = pc.dictionary_encode(
            column.combine_chunks().dictionary_decode()
            if pa.types.is_dictionary(column.type) else column.combine_chunks()
        )
        indices = np.asarray(encoded.indices.to_numpy(zero_copy_only=False), dtype=np.int64)
        code = code * (len(encoded.dictionary) + 1) + indices
    return pc.count_distinct(pa.array(code)).as_py()


def foreign_key_problems(table: dict[str, pa.ChunkedArray], schema: dict[str, Any],
                         lookup: Callable[[str, str], pa.ChunkedArray | None]) -> list[str]:
    """Foreign-key violations; ``lookup(resource, field)`` gives a referenced column."""
    out = []
    for fk in schema.get("foreignKeys", []):
        ref = fk["reference"]
        for mine, theirs in zip(fk["fields"], ref["fields"], strict=True):
            other = lookup(ref["resource"], theirs)
            if other is None:
                out.append(f"foreign key {mine!r} references {ref['resource']}.{theirs}, "
                           "which could not be read")
                continue
            values = _distinct_values(table[mine])
            missing = pc.invert(pc.is_in(values, value_set=_distinct_values(other)))
            if pc.any(missing).as_py():
                example = pc.filter(values, missing)[0].as_py()
                out.append(f"foreign key {mine!r} value {example!r} not found in "
                           f"{ref['resource']}.{theirs}")
    return out


class _TablePlan:
    """What checking one table's Parquet files needs of its Table Schema, worked out once per
    table: a file reaches these checks only after :func:`schema_matches` has found its
    inline schema to be the published one, so all files of a table share it.

    It also keeps the footers' Parquet schemas already found to match. Without a stored
    Arrow schema in its key-value metadata (release files hold none), a footer's Arrow
    schema is a function of its Parquet schema alone, so one whose Parquet schema equals one
    seen before passes the same checks; comparing two Parquet schemas costs far less than
    converting one. A footer with key-value metadata is always converted.
    """

    def __init__(self, schema: dict[str, Any]) -> None:
        self.names = [f["name"] for f in schema["fields"]]
        self.types = [f["type"] for f in schema["fields"]]
        self.bounded = bounded_columns(schema)
        self.counted = counted_columns(schema)
        self.decoded = decoded_columns(schema)
        self._known: list[tuple[pq.ParquetSchema, pa.Schema]] = []

    def arrow(self, metadata: pq.FileMetaData) -> pa.Schema:
        """The footer's Arrow schema, after checking its columns and types against the
        table's; ValueError naming the first column that differs."""
        parquet, plain = metadata.schema, metadata.metadata is None
        for known, arrow in self._known if plain else ():
            if parquet.equals(known):
                return arrow
        arrow = parquet.to_arrow_schema()
        if arrow.names != self.names:
            raise ValueError(f"columns {arrow.names} do not match the Table Schema "
                             f"{self.names}")
        for name, kind in zip(self.names, self.types, strict=True):
            expected = encode.ARROW_TYPES[kind]
            actual = arrow.field(name).type
            if pa.types.is_dictionary(actual):
                actual = actual.value_type
            if actual != expected:
                raise ValueError(f"column {name!r} has type {actual}, expected {expected}")
        if plain and len(self._known) < 4:
            self._known.append((parquet, arrow))
        return arrow


class _Plans(dict[str, _TablePlan]):
    """Table name to its :class:`_TablePlan`, made on first use."""

    def of(self, table: str, schema: dict[str, Any]) -> _TablePlan:
        plan = self.get(table)
        if plan is None:
            plan = self[table] = _TablePlan(schema)
        return plan


def _parquet_for_checks(data: bytes, plan: _TablePlan, deep: bool
                        ) -> tuple[dict[str, pa.ChunkedArray], dict[str, ColumnSummary], int]:
    """Footer statistics for every bounded column; with ``deep``, also decode the columns
    that value checks (enum, pattern, unique, keys) need."""
    # the footer is read synchronously on this thread, so Python-owned bytes are safe here;
    # ParquetReader is what pq.read_metadata wraps, without ParquetFile's per-file Python
    # bookkeeping (file system, nested column paths)
    reader = pq.ParquetReader()
    reader.open(pa.BufferReader(data))
    metadata = reader.metadata
    arrow = plan.arrow(metadata)
    summaries = parquet_summaries(metadata, plan.bounded, plan.counted)
    need = set(plan.decoded if deep else ()) | {n for n in plan.bounded if n not in summaries}
    columns: dict[str, pa.ChunkedArray] = {}
    if need:
        ordered = [n for n in plan.names if n in need]
        strings = [n for n in ordered if arrow.field(n).type == pa.string()]
        pf = pq.ParquetFile(encode.parquet_source(data), read_dictionary=strings)
        table = pf.read(columns=ordered)
        columns = {n: table[n] for n in ordered}
        for n in ordered:
            if n not in summaries:
                summaries[n] = summarize(columns[n])
    return columns, summaries, metadata.num_rows


PARALLEL_BYTES = 64 * 1024 * 1024


@dataclass
class _FileResult:
    problems: list[Problem]
    content_verified: bool = False
    columns: dict[str, pa.ChunkedArray] | None = None
    data: bytes | None = None
    deep: bool = False


#: The result of a file with nothing to report (shared: never changed).
_CLEAN = _FileResult([])


def _check_file(descriptor: Descriptor, r: Resource, schema: dict[str, Any],
                check_data: bool, deep: bool, plans: _Plans, keep: bool = False
                ) -> _FileResult:
    """Every check of one resource that needs no other resource; ``keep`` keeps a Parquet
    file's bytes (a foreign key references it, so its columns may be decoded later)."""
    try:
        data = read_resource(descriptor, r)
    except FileNotFoundError:
        return _FileResult([Problem(r.name, f"missing file {descriptor.base / r.path}")])
    except untrusted.InputProblem as problem:
        return _FileResult([Problem(r.name, str(problem))])
    except OSError as exc:
        return _FileResult([Problem(r.name, f"cannot read {descriptor.base / r.path}: "
                                    f"{exc.strerror}")])
    if not schema_matches(schema, r.table, r.variant, r.seed, r.format):
        return _FileResult([Problem(r.name, "inline schema differs from the published Table "
                                    f"Schema schemas/tables/{r.table}.json")])
    result = _FileResult([], deep=deep)
    digest = encode.sha256_bytes(data)
    if len(data) != r.bytes or digest != r.hash:
        if not content_matches(r, data, schema):
            return _FileResult([Problem(r.name, f"altered: {len(data)} bytes, {digest}; "
                                        f"expected {r.bytes} bytes, {r.hash}")])
        result.content_verified = result.deep = True
    if check_data and r.format == "parquet":
        try:
            columns, summaries, rows = _parquet_for_checks(
                data, plans.of(r.table, schema), result.deep)
        except Exception as exc:  # a corrupt file is a finding, not a crash
            return _FileResult([Problem(r.name, f"unreadable Parquet: {exc}")])
        if rows != r.rows:
            result.problems.append(Problem(r.name, f"{rows} rows, expected {r.rows}"))
        result.problems.extend(Problem(r.name, m)
                               for m in field_problems(columns, summaries, schema, rows))
        result.columns, result.data = columns, data if keep else None
    return result


def _cpus() -> int:
    """CPUs this process may run on (at most 8)."""
    try:
        return min(8, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return min(8, os.cpu_count() or 1)


def _forks() -> bool:
    """True where worker processes may be forked: Linux (macOS forks unsafely, Windows not
    at all, and a spawned worker would parse the whole descriptor again)."""
    return sys.platform.startswith("linux") and "fork" in mp.get_all_start_methods()


#: What forked workers check: set in the parent before the fork, inherited, never pickled.
_FORKED: tuple[Descriptor, dict[str, Any], bool] | None = None


def _check_span(start: int, stop: int) -> list[tuple[int, _FileResult]]:
    """In a forked worker: check resources ``start:stop`` and return the findings, by index
    (a file whose bytes differ comes back marked ``deep``; its columns are decoded later)."""
    assert _FORKED is not None
    descriptor, raw, check_data = _FORKED
    plans = _Plans()
    out = []
    for i, r in enumerate(descriptor.resources[start:stop], start):
        res = _check_file(descriptor, r, raw[r.name], check_data, False, plans)
        if res.problems or res.content_verified or res.deep:
            out.append((i, _FileResult(res.problems, res.content_verified, deep=res.deep)))
    return out


def _check_forked(descriptor: Descriptor, raw: dict[str, Any], check_data: bool,
                  workers: int, label: str) -> list[_FileResult]:
    """:func:`_check_file` over every resource, in spans, on ``workers`` forked processes."""
    global _FORKED
    n = len(descriptor.resources)
    step = max(1, -(-n // (workers * 16)))
    spans = [(i, min(n, i + step)) for i in range(0, n, step)]
    results = [_CLEAN] * n
    _FORKED = (descriptor, raw, check_data)
    try:
        # gc.freeze: the workers' collections skip what they inherit, so they neither scan
        # the descriptor's objects nor copy the pages those live on
        with ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("fork"),
                                 initializer=gc.freeze) as pool:
            futures = [pool.submit(_check_span, *span) for span in spans]
            for _span, future in track(zip(spans, futures, strict=True), len(spans),
                                               label):
                for i, res in future.result():
                    results[i] = res
    finally:
        _FORKED = None
    return results


def _needing_columns(resources: list[Resource], raw: dict[str, Any],
                     results: list[_FileResult]) -> list[int]:
    """Indices to check again in this process: files whose bytes differ (their key checks
    need decoded columns) and the files their foreign keys reference."""
    differ = [i for i, res in enumerate(results) if res.deep]
    if not differ:
        return []
    index = {r.name: i for i, r in enumerate(resources)}
    out: set[int] = set()
    for i in differ:
        out.add(i)
        for fk in raw[resources[i].name].get("foreignKeys", []):
            target = index.get(fk["reference"]["resource"])
            if target is not None:
                out.add(target)
    return sorted(out)


def _targets(raw: dict[str, Any]) -> set[str]:
    """Resources that a foreign key references."""
    return {fk["reference"]["resource"] for schema in raw.values()
            for fk in schema.get("foreignKeys", [])}


def verify(descriptor: Descriptor, check_data: bool = True, deep: bool = False,
           workers: int | None = None) -> Verdict:
    """Check every resource of ``descriptor``; never raises for bad files.

    Always: each file's bytes and SHA-256 (or, where the bytes differ, its content), each
    inline schema against the published Table Schema, and from the Parquet statistics
    every column's type, nulls and bounds and each table's row count. ``deep`` adds the
    value-level constraints (enum, pattern, unique, primary and foreign keys), which must
    decode the key and category columns; a file whose bytes differ is always checked deep.

    Files are checked on ``workers`` processes (default: one per CPU for a release over
    :data:`PARALLEL_BYTES`, else one) where the system forks (Linux); elsewhere, and with
    ``deep``, whose key checks need every file's decoded columns in one process, in this
    process. Processes, not threads: most release files
    are a few kilobytes, and per-file Python work holds the GIL longer than hashing frees it.
    """
    raw = {r["name"]: r["schema"] for r in descriptor.document["resources"]}
    resources = descriptor.resources
    if workers is None:
        workers = _cpus() if sum(r.bytes for r in resources) > PARALLEL_BYTES else 1
    label = f"verifying the {descriptor.tier} tier"
    if workers > 1 and not deep and _forks():
        results = _check_forked(descriptor, raw, check_data, workers, label)
        again = _needing_columns(resources, raw, results)
        targets = _targets(raw) if again else set()
        plans = _Plans()
        for i in again:
            results[i] = _check_file(descriptor, resources[i], raw[resources[i].name],
                                     check_data, deep, plans, resources[i].name in targets)
    else:
        targets, plans = _targets(raw), _Plans()
        results = [_check_file(descriptor, r, raw[r.name], check_data, deep, plans,
                               r.name in targets)
                   for r in track(resources, len(resources), label)]
    problems = [p for res in results for p in res.problems] + twin_problems(resources)
    content_verified = [r.name for r, res in zip(resources, results, strict=True)
                        if res.content_verified]
    tables = {r.name: res for r, res in zip(resources, results, strict=True)
              if res.columns is not None}

    def lookup(resource: str, field: str) -> pa.ChunkedArray | None:
        res = tables.get(resource)
        if res is None or res.columns is None:
            return None
        if field not in res.columns:
            if res.data is None:
                return None
            reader = pq.ParquetFile(encode.parquet_source(res.data), read_dictionary=[field])
            res.columns[field] = reader.read(columns=[field])[field]
        return res.columns[field]

    for name, res in tables.items():
        if res.deep and res.columns is not None:
            problems.extend(Problem(name, m) for m in
                            foreign_key_problems(res.columns, raw[name], lookup))
    return Verdict(problems, len(resources), content_verified)


def twin_problems(resources: list[Resource]) -> list[Problem]:
    """A CSV file's promised row count must be its Parquet twin's: the CSV text is proven
    by its hash, the rows only through the twin (same table of the same cohort)."""
    parquet = {(r.variant, r.seed, r.table): r for r in resources if r.format == "parquet"}
    return [Problem(r.name, f"promises {r.rows} rows, its Parquet twin {twin.name} "
                    f"{twin.rows}")
            for r in resources if r.format == "csv"
            and (twin := parquet.get((r.variant, r.seed, r.table))) and r.rows != twin.rows]


def tier_files(descriptor: Descriptor) -> list[Path]:
    """Absolute paths of every file a descriptor lists."""
    return [Path(descriptor.base) / r.path for r in descriptor.resources]
