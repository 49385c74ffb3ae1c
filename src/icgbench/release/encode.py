"""Table encodings of the release: Arrow types, Parquet, canonical CSV and content digests.

Every table is published twice with one Table Schema. Parquet bytes depend on the pyarrow
version that wrote them, so each table also carries a **content digest**: SHA-256 over a
canonical, library-independent encoding of its values (specified in docs/data.md), which a
re-freeze on any setup reproduces. CSV text is rendered with Python's shortest round-trip
float formatting, so it is byte-stable across library versions; the ``.csv.gz`` wrapper has
a fixed header (no name, mtime 0).
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from icgbench.io import untrusted
from icgbench.io.arrow import strings, to_numpy, zero

ARROW_TYPES: dict[str, pa.DataType] = {
    "string": pa.string(),
    "integer": pa.int64(),
    "number": pa.float64(),
    "boolean": pa.bool_(),
}
PARQUET_OPTIONS: dict[str, Any] = {
    "compression": "zstd",
    "compression_level": 9,
    "row_group_size": 65536,
    "use_dictionary": True,
    "write_statistics": True,
    "version": "2.6",
    "data_page_version": "1.0",
    "store_schema": False,
}
GZIP_LEVEL = 6
CSV_NULL = ""


def arrow_schema(table_schema: dict[str, Any]) -> pa.Schema:
    """The Arrow schema of a Table Schema (field order and types)."""
    fields = []
    for f in table_schema["fields"]:
        required = f.get("constraints", {}).get("required", False)
        fields.append(pa.field(f["name"], ARROW_TYPES[f["type"]], nullable=not required))
    return pa.schema(fields)


def conform(table: pa.Table, table_schema: dict[str, Any], name: str) -> pa.Table:
    """``table`` with exactly the schema's columns, order and types, or a ValueError."""
    wanted = [f["name"] for f in table_schema["fields"]]
    have = table.column_names
    if sorted(have) != sorted(wanted):
        missing = sorted(set(wanted) - set(have))
        extra = sorted(set(have) - set(wanted))
        raise ValueError(f"table {name!r} does not match its Table Schema: "
                         f"missing {missing}, unexpected {extra}")
    schema = arrow_schema(table_schema)
    columns = [table[f.name].cast(f.type) for f in schema]
    return pa.Table.from_arrays(columns, schema=schema)


def write_parquet(table: pa.Table, path: Path) -> None:
    """Write ``table`` as Parquet with the release's fixed options (no pandas metadata)."""
    pq.write_table(table.replace_schema_metadata(None), path, **PARQUET_OPTIONS)


def _cell_text(column: pa.ChunkedArray, type_name: str) -> list[str]:
    values = column.to_pylist()
    if type_name == "number":
        return [CSV_NULL if v is None else repr(float(v)) for v in values]
    if type_name == "boolean":
        return [CSV_NULL if v is None else ("true" if v else "false") for v in values]
    if type_name == "integer":
        return [CSV_NULL if v is None else str(int(v)) for v in values]
    return [CSV_NULL if v is None else v for v in values]


def csv_text(table: pa.Table, table_schema: dict[str, Any]) -> bytes:
    """Canonical CSV: header, ``\\n`` line ends, minimal quoting, repr() floats, UTF-8."""
    fields = table_schema["fields"]
    columns = [_cell_text(table[f["name"]], f["type"]) for f in fields]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow([f["name"] for f in fields])
    writer.writerows(zip(*columns, strict=True))
    return buffer.getvalue().encode("utf-8")


def gzip_bytes(data: bytes) -> bytes:
    """gzip with a reproducible header: no file name, mtime 0."""
    out = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=0,
                       compresslevel=GZIP_LEVEL) as handle:
        handle.write(data)
    return out.getvalue()


def content_digest(table: pa.Table, table_schema: dict[str, Any]) -> str:
    """``sha256:<hex>`` over the canonical value encoding of docs/data.md.

    Per field, in schema order: the UTF-8 line ``name:type:rows``, then one validity byte
    per row (1 valid, 0 null), then the values with nulls zeroed: int64 or float64
    little-endian, one byte per boolean, and for strings each value's UTF-8 length as
    int64 little-endian followed by all the UTF-8 bytes.
    """
    digest = hashlib.sha256()
    for f in table_schema["fields"]:
        column = table[f["name"]].combine_chunks()
        rows = len(column)
        digest.update(f"{f['name']}:{f['type']}:{rows}\n".encode())
        valid = np.asarray(to_numpy(column.is_valid()), dtype=np.uint8)
        digest.update(valid.tobytes())
        kind = f["type"]
        if kind in ("integer", "number", "boolean"):
            dtype = {"integer": "<i8", "number": "<f8", "boolean": "u1"}[kind]
            filled = column.fill_null(zero(column.type))
            values = np.asarray(to_numpy(filled)).astype(dtype)
            digest.update(values.tobytes())
        else:
            text = column.fill_null(strings([""])[0])  # an Arrow scalar: no pa.scalar
            lengths = np.asarray(to_numpy(pc.binary_length(text)), dtype="<i8")
            digest.update(lengths.tobytes())
            digest.update("".join(text.to_pylist()).encode("utf-8"))
    return "sha256:" + digest.hexdigest()


def sha256_bytes(data: bytes) -> str:
    """``sha256:<hex>`` of ``data``."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def sha256_file(path: Path, chunk: int = 1 << 20) -> tuple[str, int]:
    """(``sha256:<hex>``, size in bytes) of a file, read in chunks."""
    digest = hashlib.sha256()
    size = 0
    with open(path, "rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
            size += len(block)
    return "sha256:" + digest.hexdigest(), size


def parquet_source(data: bytes) -> pa.BufferReader:
    """A reader over a copy of ``data`` in Arrow's own memory, for ``pyarrow.parquet``.

    Arrow's threaded Parquet reader can drop its last reference to the input on a worker
    thread after the call has returned. Were the input Python-owned bytes, that release
    would need the GIL, and during interpreter shutdown a thread that asks for the GIL is
    terminated, which aborts the whole process ("terminate called without an active
    exception", exit 134) after the command had succeeded. Memory Arrow owns is released
    without Python.
    """
    buffer = pa.allocate_buffer(len(data))
    memoryview(buffer).cast("B")[:] = data
    return pa.BufferReader(buffer)


def read_parquet_bytes(data: bytes) -> pa.Table:
    """The table in Parquet bytes (already hash-checked by the caller).

    Read with ``ParquetFile``, not ``pq.read_table``: the latter goes through
    ``pyarrow.dataset``, whose import loads pandas (about 0.25 s of every command).
    """
    return pq.ParquetFile(parquet_source(data)).read()


def read_parquet(path: Path, table_schema: dict[str, Any]) -> pa.Table:
    """Read a release Parquet file and check it has the schema's columns and types."""
    table = pq.read_table(untrusted.existing_file(path, "release file"))
    return conform(table, table_schema, Path(path).name)


def read_csv_gz(path: Path, table_schema: dict[str, Any]) -> pa.Table:
    """Read a release ``.csv.gz`` with the schema's types (for content checks)."""
    import pyarrow.csv as pcsv

    schema = arrow_schema(table_schema)
    options = pcsv.ConvertOptions(
        column_types={f.name: f.type for f in schema},
        null_values=[CSV_NULL],
        true_values=["true"],
        false_values=["false"],
        strings_can_be_null=False,
        quoted_strings_can_be_null=False,
    )
    table = pcsv.read_csv(untrusted.existing_file(path, "release file"),
                          convert_options=options)
    return conform(table, table_schema, Path(path).name)
