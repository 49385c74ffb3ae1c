"""The checks of ``data verify``: each value-level rule on tiny hand-made tables, then the
release folder itself as hostile input.

``tests/test_release.py`` tampers with real release files; the first tests here pin each
rule of ``release.verify`` (required, bounds, enum, pattern, unique, primary and foreign
keys, and the statistics that stand in for decoding) where a wrong rule gives another
answer. The last ones hand the commands release files that are FIFOs or devices, a
compressed bomb in place of a ``.csv.gz`` and malformed descriptors: each is refused at
once, with a message and an exit code, never a hang, a blow-up or a traceback.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from icgbench.cli import main
from icgbench.release.files import csv_gz_digest
from icgbench.release.verify import (
    ColumnSummary,
    bounded_columns,
    counted_columns,
    decoded_columns,
    distinct_rows,
    field_problems,
    foreign_key_problems,
    parquet_summaries,
    summarize,
)
from release_helpers import mini_release
from scoring_helpers import template
from test_input_bounds import ROOT, csv_bomb, small_release

SCHEMA = {
    "fields": [
        {"name": "id", "type": "string", "constraints": {"required": True, "unique": True,
                                                         "pattern": "S[0-9]+"}},
        {"name": "arm", "type": "string", "constraints": {"enum": ["a", "b"]}},
        {"name": "dose", "type": "number", "constraints": {"minimum": 0, "maximum": 10}},
        {"name": "rate", "type": "number", "constraints": {"exclusiveMinimum": 0}},
        {"name": "code", "type": "integer", "constraints": {"unique": True}},
        {"name": "note", "type": "string"},
    ],
    "primaryKey": ["id"],
}
GOOD = {"id": ["S1", "S2", "S3"], "arm": ["a", "b", "a"], "dose": [0.0, 5.0, 10.0],
        "rate": [0.5, 1.0, 2.0], "code": [1, 2, 3], "note": ["x", None, "x"]}


def _problems(changes: dict | None = None, schema: dict = SCHEMA) -> list[str]:
    columns = {k: pa.chunked_array([pa.array(v)]) for k, v in {**GOOD, **(changes or {})}.items()}
    summaries = {k: summarize(c) for k, c in columns.items()}
    decoded = {k: columns[k] for k in decoded_columns(schema)}
    return field_problems(decoded, summaries, schema, len(columns["id"]))


def test_a_good_table_has_no_problems():
    assert _problems() == []


@pytest.mark.parametrize(("changes", "message"), [
    ({"note": [None, None, None], "id": ["S1", "S2", "S3"]}, None),
    ({"dose": [-0.5, 5.0, 10.0]}, "field 'dose' has -0.5 below its minimum 0"),
    ({"dose": [0.0, 5.0, 10.5]}, "field 'dose' has 10.5 above its maximum 10"),
    ({"rate": [0.0, 1.0, 2.0]}, "field 'rate' has 0.0 not above 0"),
    ({"arm": ["a", "c", "a"]}, "field 'arm' has value 'c' outside its enum"),
    ({"id": ["S1", "X2", "S3"]}, "field 'id' value 'X2' does not match 'S[0-9]+'"),
    ({"id": ["S1", "S12x", "S3"]}, "field 'id' value 'S12x' does not match 'S[0-9]+'"),
    ({"code": [1, 1, 3]}, "field 'code' must be unique but has duplicates"),
    ({"id": ["S1", "S1", "S3"]}, "primary key ['id'] has 1 duplicate row(s)"),
])
def test_each_constraint_names_the_field_and_the_value(changes, message):
    assert _problems(changes) == ([message] if message else [])


def test_a_null_in_a_required_key_is_reported():
    assert _problems({"id": ["S1", None, "S3"]}) == [
        "field 'id' is required but has 1 null(s)",
        "primary key ['id'] has 1 duplicate row(s)"]  # a null key is no key


def test_bounds_are_inclusive_and_the_exclusive_minimum_is_strict():
    assert _problems({"dose": [0.0, 0.0, 10.0], "rate": [1e-300, 1.0, 2.0]}) == []


def test_nulls_do_not_count_as_duplicates_of_a_unique_field():
    assert _problems({"code": [1, None, 3]}) == []


def test_a_composite_primary_key_counts_distinct_rows():
    schema = {**SCHEMA, "primaryKey": ["arm", "note"]}
    assert _problems({"note": ["x", "y", "y"]}, schema) == []
    assert _problems({"note": ["x", "y", "x"]}, schema) == [
        "primary key ['arm', 'note'] has 1 duplicate row(s)"]


def test_distinct_rows_combines_columns_without_collisions():
    a = pa.chunked_array([pa.array([1, 12, 1, 2])])
    b = pa.chunked_array([pa.array([23, 3, 23, 23])])
    assert distinct_rows([a, b]) == 3  # (1,23) twice; (12,3) and (2,23) differ
    words = pa.chunked_array([pa.array(["p", "q", "p", "p"]).dictionary_encode()])
    assert distinct_rows([words]) == 2
    assert distinct_rows([words, b]) == 2  # ("p",23) three times, ("q",3)


def test_dictionary_columns_with_unused_or_repeated_entries_count_their_values():
    repeated = pa.DictionaryArray.from_arrays(pa.array([0, 1, 2]), pa.array(["s", "t", "s"]))
    assert distinct_rows([pa.chunked_array([repeated])]) == 2


def test_the_columns_each_check_needs():
    assert decoded_columns(SCHEMA) == ["id", "arm", "code"]
    assert bounded_columns(SCHEMA) == {"id", "dose", "rate"}
    with_fk = {**SCHEMA, "foreignKeys": [{"fields": ["note"], "reference": {
        "resource": "other", "fields": ["id"]}}]}
    assert decoded_columns(with_fk) == ["id", "arm", "code", "note"]


def test_summaries_from_parquet_statistics_equal_decoded_ones():
    table = pa.table({"dose": [3.0, None, -1.0, 7.5], "code": [4, 5, 6, 7]})
    buffer = io.BytesIO()
    pq.write_table(table, buffer, row_group_size=2)
    metadata = pq.read_metadata(io.BytesIO(buffer.getvalue()))
    summaries = parquet_summaries(metadata, {"dose"})
    assert summaries == {"dose": ColumnSummary(1, -1.0, 7.5)} == {
        "dose": summarize(table["dose"])}
    buffer = io.BytesIO()
    pq.write_table(table, buffer, row_group_size=2, write_statistics=["code"])
    no_stats = pq.read_metadata(io.BytesIO(buffer.getvalue()))
    assert parquet_summaries(no_stats, {"dose", "code"}) == {"code": ColumnSummary(0, 4, 7)}


def test_columns_whose_bounds_nothing_checks_get_their_null_count_alone():
    assert counted_columns(SCHEMA) == {"id", "arm", "code", "note"}
    table = pa.table({"id": ["S2", None, "S1"], "dose": [3.0, None, -1.0]})
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    metadata = pq.read_metadata(io.BytesIO(buffer.getvalue()))
    assert parquet_summaries(metadata, {"id", "dose"}, counted_columns(SCHEMA)) == {
        "id": ColumnSummary(1, None, None), "dose": ColumnSummary(1, -1.0, 3.0)}


def test_a_table_of_no_rows_needs_no_statistics_and_no_decoding():
    empty = pa.table({"dose": pa.array([], type=pa.float64()),
                      "id": pa.array([], type=pa.string())})
    buffer = io.BytesIO()
    pq.write_table(empty, buffer)
    metadata = pq.read_metadata(io.BytesIO(buffer.getvalue()))
    assert metadata.row_group(0).column(0).statistics is None  # writers give it none
    assert parquet_summaries(metadata, {"dose", "id"}) == {
        "dose": ColumnSummary(0, None, None), "id": ColumnSummary(0, None, None)}


def test_an_all_null_column_has_no_bounds():
    assert summarize(pa.array([None, None], type=pa.float64())) == ColumnSummary(2, None, None)


def test_foreign_keys_name_the_missing_value_and_an_unreadable_reference():
    schema = {"fields": [], "foreignKeys": [{"fields": ["subject"], "reference": {
        "resource": "subjects", "fields": ["id"]}}]}
    table = {"subject": pa.chunked_array([pa.array(["S1", "S9", "S1"])])}
    known = pa.chunked_array([pa.array(["S1", "S2"])])
    problems = foreign_key_problems(table, schema, lambda resource, field: known)
    assert len(problems) == 1 and "'S9'" in problems[0] and "subjects.id" in problems[0]
    assert foreign_key_problems(
        {"subject": pa.chunked_array([pa.array(["S2"])])}, schema, lambda r, f: known) == []
    unreadable = foreign_key_problems(table, schema, lambda resource, field: None)
    assert unreadable == ["foreign key 'subject' references subjects.id, which could not be "
                          "read"]


# --- hostile release folders: files that are not files, bombs, malformed descriptors ---

def _cli(*argv: object, timeout: float = 60) -> subprocess.CompletedProcess:
    """``icgbench ARGV`` in a child process (a hang fails the test instead of blocking it)."""
    return subprocess.run([sys.executable, "-m", "icgbench", *map(str, argv)],
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT,
                          check=False)


def _path_of(d, suffix: str) -> Path:
    return d.base / next(r.path for r in d.resources if r.path.endswith(suffix))


def test_release_files_that_are_not_files_are_refused_at_once(tmp_path):
    d = mini_release(tmp_path)
    fifo = _path_of(d, "graph.parquet")
    fifo.unlink()
    os.mkfifo(fifo)  # once read with read_bytes: verify hung
    zero = _path_of(d, "subjects.csv.gz")
    zero.unlink()
    zero.symlink_to("/dev/zero")  # once read to the end: the kernel killed verify at 23 GB
    result = _cli("data", "verify", "--descriptor", d.path)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert "is a FIFO (named pipe); only regular files are read" in result.stdout
    assert "is a character device; only regular files are read" in result.stdout


def test_a_descriptor_that_is_a_fifo_is_refused_at_once(tmp_path):
    fifo = tmp_path / "datapackage.json"
    os.mkfifo(fifo)
    result = _cli("data", "verify", "--descriptor", fifo)
    assert result.returncode == 2 and "FIFO" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_a_truth_table_that_is_a_fifo_is_refused_at_once(tmp_path):
    root = small_release(tmp_path)
    truth = root / "datasets/small/linear_lowhet/seed0/test_outcomes.parquet"
    truth.unlink()
    os.mkfifo(truth)
    submission = tmp_path / "s.json"
    submission.write_text(json.dumps(template()))
    result = _cli("score", submission, "--release", root, "--out", tmp_path / "r.json")
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert "test_outcomes.parquet: " in result.stderr and "FIFO" in result.stderr
    assert not (tmp_path / "r.json").exists()


@pytest.mark.parametrize("edit, message", [
    (lambda text: text.replace('"version": ', '"version": "0", "version": ', 1),
     "duplicate object key 'version'"),
    (lambda text: text.replace('"resources": [', '"resources": [{}, ', 1),
     r"resources\[0\] lacks 'name'"),
    (lambda text: text.replace('"icgbench:cohorts": [', '"icgbench:cohorts": [7, ', 1),
     r"icgbench:cohorts\[0\] is not an object"),
    (lambda text: text[:-2] + ', "bytes": NaN}', "NaN is not valid JSON"),
])
def test_a_malformed_descriptor_is_refused_by_the_strict_parser(edit, message, tmp_path, capsys):
    d = mini_release(tmp_path)
    d.path.write_text(edit(d.path.read_text()))
    assert main(["data", "verify", "--descriptor", str(d.path)]) == 1
    err = capsys.readouterr().err
    assert re.search(message, err) and "Traceback" not in err, err


def test_a_tampered_csv_gz_is_inflated_only_as_far_as_a_genuine_one_could(tmp_path, capsys):
    d = mini_release(tmp_path)
    path = _path_of(d, "observations.csv.gz")
    path.write_bytes(csv_bomb(1024))  # 1 GiB of CSV text once inflated whole, in memory
    start = time.monotonic()
    assert main(["data", "verify", "--descriptor", str(d.path)]) == 1
    assert time.monotonic() - start < 5
    out = capsys.readouterr().out
    assert "observations.csv: altered" in out


def test_the_csv_text_digest_streams_every_member():
    text = b"a,b\n" + b"1,2\n" * 1000
    digest = "sha256:" + hashlib.sha256(text).hexdigest()
    assert csv_gz_digest(gzip.compress(text), len(text)) == digest
    assert csv_gz_digest(gzip.compress(text[:7]) + gzip.compress(text[7:]), len(text)) == digest
    assert csv_gz_digest(gzip.compress(text), len(text) - 1) is None
    assert csv_gz_digest(gzip.compress(text)[:-9], len(text)) is None  # truncated
    assert csv_gz_digest(b"not gzip", 100) is None


def test_the_csv_text_limit_counts_every_block_together():
    """A member that inflates past the limit in several blocks, none over it alone (and
    several members, each under it), is refused: the size is the running total."""
    from icgbench.release.files import CHUNK

    big = b"x" * (3 * CHUNK)  # three blocks of CHUNK bytes
    assert csv_gz_digest(gzip.compress(big), 2 * CHUNK) is None
    assert csv_gz_digest(gzip.compress(big), 3 * CHUNK) is not None
    members = gzip.compress(b"y" * 600) * 3
    assert csv_gz_digest(members, 1000) is None and csv_gz_digest(members, 1800) is not None
