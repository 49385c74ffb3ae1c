"""The frozen release: schemas, freezing, descriptor, verification, loading."""

from __future__ import annotations

import copy
import hashlib
import json
import os
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from icgbench import contract
from icgbench.api.tables import list_tables, load_table
from icgbench.cli import main
from icgbench.errors import InvalidInputError, UsageError
from icgbench.generator import simulate, variant_names
from icgbench.release import encode, freeze
from icgbench.release.descriptor import load_descriptor
from icgbench.release.freeze import PANEL_TABLE
from icgbench.release.table_schemas import schema_documents
from icgbench.release.tiers import DATA_VERSION, TIERS
from icgbench.release.verify import verify
from release_helpers import MINI, ROOT, mini_release


@pytest.fixture()
def mini(tmp_path):
    return mini_release(tmp_path)


# --- the contract ----------------------------------------------------------------------------

def test_table_schema_files_are_generated_from_the_vocabulary():
    for name, doc in schema_documents().items():
        path = ROOT / "schemas" / "tables" / f"{name}.json"
        assert json.loads(path.read_text()) == doc, f"{path} is stale: run `make contract`"
    assert contract.table_names() == tuple(schema_documents())


@pytest.mark.slow
def test_the_wheel_carries_the_one_copy_of_the_schemas(tmp_path):
    """The schemas live once, in schemas/; the wheel's build copies them into the package,
    byte for byte, and a source checkout reads them where they are."""
    import subprocess
    import sys
    import zipfile

    assert contract.package_schema_dir() == ROOT / "schemas"
    assert not (ROOT / "src" / "icgbench" / "schemas").exists()  # no second copy to drift
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(tmp_path), str(ROOT)], check=True, capture_output=True,
                   timeout=300)
    (wheel,) = tmp_path.glob("icgbench-*.whl")
    top = ROOT / "schemas"
    expected = {p.relative_to(top).as_posix(): p.read_bytes() for p in top.rglob("*")
                if p.is_file()}
    with zipfile.ZipFile(wheel) as archive:
        shipped = {name.removeprefix("icgbench/schemas/"): archive.read(name)
                   for name in archive.namelist() if name.startswith("icgbench/schemas/")}
    assert shipped == expected


@pytest.mark.parametrize("variant", variant_names())
def test_simulated_tables_conform_exactly_to_their_schemas(variant):
    cohort = simulate(variant, 3, n_subjects=30)
    # every table but the floors', which freezing grades across the tier's cohorts
    assert set(cohort.tables) == set(contract.table_names()) - {PANEL_TABLE}
    for name, table in cohort.tables.items():
        schema = contract.table_schema(name)
        assert table.column_names == [f["name"] for f in schema["fields"]], name
        encode.conform(table, schema, name)


# --- the committed small tier ------------------------------------------------------------------

def test_committed_descriptor_is_a_data_package_v2():
    d = load_descriptor(ROOT / "datapackage.json")
    doc = d.document
    assert doc["$schema"] == "https://datapackage.org/profiles/2.0/datapackage.json"
    for key in ("name", "title", "version", "licenses", "contributors", "created", "keywords",
                "description"):
        assert doc[key], key
    assert doc["version"] == DATA_VERSION
    assert "synthetic" in doc["description"].lower()
    assert len(d.resources) == len(variant_names()) * len(contract.table_names()) * 2
    for raw in doc["resources"]:
        assert raw["hash"].startswith("sha256:") and raw["bytes"] > 0
        assert raw["icgbench:role"] in ("public", "truth")
        for key in ("icgbench:variant", "icgbench:variant_hash", "icgbench:seed",
                    "icgbench:splits", "icgbench:content_digest"):
            assert key in raw, key
        assert raw["icgbench:schema"] == f"schemas/tables/{raw['icgbench:table']}.json"
        if raw["format"] == "parquet":
            assert raw["mediatype"] == "application/vnd.apache.parquet"
        else:
            assert raw["mediatype"] == "text/csv" and raw["encoding"] == "utf-8"
            assert raw["compression"] == "gz" and raw["path"].endswith(".csv.gz")
        for fk in raw["schema"].get("foreignKeys", []):
            prefix = f"{raw['icgbench:variant']}.s{raw['icgbench:seed']}."
            assert fk["reference"]["resource"].startswith(prefix)
            assert fk["reference"]["resource"].endswith("." + raw["format"])


def test_small_tier_is_under_25_megabytes():
    d = load_descriptor(ROOT / "datapackage.json")
    total = sum(r.bytes for r in d.resources)
    assert total < 25e6, total
    on_disk = sum(p.stat().st_size for p in (ROOT / "datasets" / "small").rglob("*")
                  if p.is_file() and p.name != "README.md")  # the dataset card
    assert on_disk == total


def test_committed_small_tier_verifies_deep():
    verdict = verify(load_descriptor(ROOT / "datapackage.json"), deep=True)
    assert verdict.ok, [str(p) for p in verdict.problems[:5]]
    assert verdict.content_verified == []


def test_verify_deep_catches_enum_pattern_and_duplicate_keys(mini):
    doc = json.loads(mini.path.read_text())
    r = next(x for x in doc["resources"] if x["name"] == "linear_lowhet.s0.subjects.parquet")
    path = mini.base / r["path"]
    table = pq.read_table(path)
    ids = table["subject_id"].to_pylist()
    ids[1] = ids[0]
    ids[2] = "XX000001"
    sex = table["sex"].to_pylist()
    sex[0] = "X"
    table = table.set_column(0, "subject_id", pa.array(ids))
    table = table.set_column(table.schema.get_field_index("sex"), "sex", pa.array(sex))
    encode.write_parquet(table, path)
    data = path.read_bytes()
    r["hash"], r["bytes"] = "sha256:" + hashlib.sha256(data).hexdigest(), len(data)
    mini.path.write_text(json.dumps(doc))
    messages = [p.message for p in verify(load_descriptor(mini.path), deep=True).problems
                if p.resource == r["name"]]
    assert any("'X' outside its enum" in m for m in messages), messages
    assert any("XX000001" in m and "does not match" in m for m in messages), messages
    assert any("primary key" in m and "duplicate" in m for m in messages), messages


def test_verify_refuses_an_inline_schema_that_drifted_from_the_contract(mini):
    doc = json.loads(mini.path.read_text())
    r = doc["resources"][0]
    r["schema"]["fields"][0]["constraints"].pop("required")
    mini.path.write_text(json.dumps(doc))
    problems = verify(load_descriptor(mini.path)).problems
    assert [p.resource for p in problems] == [r["name"]]
    assert "inline schema differs" in problems[0].message


@pytest.mark.drift
def test_freeze_check_regenerates_the_committed_small_tier(capsys):
    """Every table of the committed small tier regenerates bit for bit, through the command
    (about 8 s since the frozen cohorts' published effects ship): any change to the
    generator's output, in any variant's code path, fails here."""
    from icgbench.cli import main

    assert main(["freeze", "--check", "--tier", "small"]) == 0
    assert "regenerated data match" in capsys.readouterr().out


def test_committed_full_tier_descriptor_matches_its_seeds():
    d = load_descriptor(ROOT / "datasets" / "full" / "datapackage.json")
    assert d.tier == "full" and d.version == DATA_VERSION
    seeds = {(c["variant"], c["seed"]) for c in d.cohorts()}
    assert seeds == {(v, s) for v in variant_names() for s in TIERS["full"].seeds}
    assert all(not r.path.startswith("/") and ".." not in r.path for r in d.resources)


# --- freezing -----------------------------------------------------------------------------------

@pytest.mark.slow
def test_freeze_is_byte_identical_when_rerun(tmp_path, mini):
    root = tmp_path / "again"
    freeze.freeze(MINI, root)
    again = load_descriptor(root / MINI.descriptor_path)
    assert again.path.read_bytes() == mini.path.read_bytes()
    for r in mini.resources:
        assert (again.base / r.path).read_bytes() == (mini.base / r.path).read_bytes(), r.name


def test_csv_gz_has_a_reproducible_header(mini):
    r = next(r for r in mini.resources if r.format == "csv")
    data = (mini.base / r.path).read_bytes()
    assert data[:2] == b"\x1f\x8b"
    assert data[4:8] == b"\x00\x00\x00\x00"  # mtime 0
    assert data[3] & 0x08 == 0  # no file name stored


def test_parquet_has_no_pandas_metadata_and_round_trips(mini):
    for r in mini.resources:
        if r.format != "parquet":
            continue
        meta = pq.read_metadata(mini.base / r.path).metadata or {}
        assert b"pandas" not in meta and b"ARROW:schema" not in meta
        table = encode.read_parquet(mini.base / r.path, contract.table_schema(r.table))
        assert encode.content_digest(table, contract.table_schema(r.table)) == r.content_digest


def test_csv_and_parquet_hold_the_same_values(mini):
    for r in mini.resources:
        if r.format != "csv":
            continue
        schema = contract.table_schema(r.table)
        from_csv = encode.read_csv_gz(mini.base / r.path, schema)
        assert encode.content_digest(from_csv, schema) == r.content_digest, r.name


@pytest.mark.slow
def test_freeze_refuses_changed_data_without_a_version_bump(tmp_path, mini, monkeypatch):
    bigger = type(MINI)(name="mini", seeds=MINI.seeds, sizes={**MINI.sizes, "train": 13},
                        committed=False, description=MINI.description)
    with pytest.raises(UsageError, match="bump DATA_VERSION"):
        freeze.freeze(bigger, mini.base.parents[1])
    assert verify(load_descriptor(mini.path)).ok  # the old release is untouched


@pytest.mark.slow
def test_freeze_check_names_every_table_that_differs(mini):
    doc = json.loads(mini.path.read_text())
    for r in doc["resources"]:
        if r["icgbench:table"] == "graph" and r["icgbench:variant"] == "linear_lowhet":
            r["icgbench:content_digest"] = "sha256:" + "0" * 64
            r["icgbench:csv_sha256"] = "sha256:" + "0" * 64 if r["format"] == "csv" else None
    mini.path.write_text(json.dumps(doc))
    problems = freeze.check(MINI, mini.base.parents[1])
    assert len(problems) == 2
    assert all("linear_lowhet.s0.graph" in p for p in problems)


# --- verification -------------------------------------------------------------------------------

def test_verify_names_altered_missing_and_truncated_files(mini):
    resources = {r.name: r for r in mini.resources}
    altered = resources["nonlinear_obs.s0.subjects.csv"]
    path = mini.base / altered.path
    data = bytearray(path.read_bytes())
    data[-5] ^= 0xFF
    path.write_bytes(bytes(data))
    missing = resources["misspecified_signs.s0.graph.parquet"]
    (mini.base / missing.path).unlink()
    truncated = resources["linear_lowhet.s0.observations.parquet"]
    p = mini.base / truncated.path
    p.write_bytes(p.read_bytes()[:100])
    verdict = verify(mini)
    named = {p.resource: p.message for p in verdict.problems}
    assert "altered" in named[altered.name]
    assert "missing file" in named[missing.name]
    assert "altered" in named[truncated.name]
    assert not verdict.ok


def test_verify_checks_table_schema_constraints(mini):
    doc = json.loads(mini.path.read_text())
    r = next(x for x in doc["resources"]
             if x["name"] == "linear_lowhet.s0.test_outcomes.parquet")
    path = mini.base / r["path"]
    table = pq.read_table(path)
    risk = table["true_risk"].to_pylist()
    risk[0] = 1.5
    table = table.set_column(table.schema.get_field_index("true_risk"), "true_risk",
                             pa.array(risk))
    encode.write_parquet(table, path)
    data = path.read_bytes()
    r["hash"] = "sha256:" + hashlib.sha256(data).hexdigest()
    r["bytes"] = len(data)
    mini.path.write_text(json.dumps(doc))
    verdict = verify(load_descriptor(mini.path))
    messages = [p.message for p in verdict.problems if p.resource == r["name"]]
    assert any("above its maximum 1" in m for m in messages), messages


def test_verify_checks_foreign_keys(mini):
    doc = json.loads(mini.path.read_text())
    r = next(x for x in doc["resources"] if x["name"] == "linear_lowhet.s0.masks.parquet")
    path = mini.base / r["path"]
    table = pq.read_table(path)
    ids = table["subject_id"].to_pylist()
    ids[0] = "TR999999"
    table = table.set_column(0, "subject_id", pa.array(ids))
    encode.write_parquet(table, path)
    data = path.read_bytes()
    r["hash"], r["bytes"] = "sha256:" + hashlib.sha256(data).hexdigest(), len(data)
    mini.path.write_text(json.dumps(doc))
    assert verify(load_descriptor(mini.path)).ok  # key values are a --deep check
    messages = [str(p) for p in verify(load_descriptor(mini.path), deep=True).problems]
    assert any("TR999999" in m and "not found" in m for m in messages), messages


def test_verify_accepts_same_content_written_differently(mini):
    r = next(x for x in mini.resources if x.name == "nonlinear_mixhost.s0.subjects.parquet")
    path = mini.base / r.path
    pq.write_table(pq.read_table(path), path, compression="snappy")  # another writer
    verdict = verify(mini)
    assert verdict.ok
    assert verdict.content_verified == [r.name]


def test_verify_and_the_cli_name_a_resource_whose_row_count_is_wrong(mini, capsys):
    """The file is intact (same bytes, same hash) but the descriptor promises another number
    of rows: the descriptor, not the file, is wrong, and the verifier must say where."""
    doc = json.loads(mini.path.read_text())
    name = "nonlinear_obs.s0.subjects.parquet"
    r = next(x for x in doc["resources"] if x["name"] == name)
    rows = pq.read_metadata(mini.base / r["path"]).num_rows
    assert r["icgbench:rows"] == rows == sum(MINI.sizes.values())
    r["icgbench:rows"] = rows + 1
    mini.path.write_text(json.dumps(doc))
    verdict = verify(load_descriptor(mini.path))
    csv = name.removesuffix(".parquet") + ".csv"
    assert [str(p) for p in verdict.problems] == [
        f"{name}: {rows} rows, expected {rows + 1}",
        f"{csv}: promises {rows} rows, its Parquet twin {name} {rows + 1}"]
    assert not verdict.ok and verdict.content_verified == []
    assert main(["data", "verify", "--descriptor", str(mini.path)]) == 1
    out = capsys.readouterr().out
    assert f"FAIL {name}: {rows} rows, expected {rows + 1}" in out
    assert "FAILED (2 problem(s))" in out
    r["icgbench:rows"] = rows - 1  # fewer rows promised than held is as wrong
    mini.path.write_text(json.dumps(doc))
    assert main(["data", "verify", "--descriptor", str(mini.path), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert not report["ok"]
    assert report["problems"][0] == {"resource": name,
                                     "message": f"{rows} rows, expected {rows - 1}"}


def test_a_csv_file_promising_other_rows_than_its_parquet_twin_fails(mini, capsys):
    doc = json.loads(mini.path.read_text())
    name = "nonlinear_obs.s0.subjects.csv"
    r = next(x for x in doc["resources"] if x["name"] == name)
    rows = r["icgbench:rows"]
    r["icgbench:rows"] = rows + 1
    mini.path.write_text(json.dumps(doc))
    verdict = verify(load_descriptor(mini.path))
    twin = name.removesuffix(".csv") + ".parquet"
    assert [str(p) for p in verdict.problems] == [
        f"{name}: promises {rows + 1} rows, its Parquet twin {twin} {rows}"]
    assert main(["data", "verify", "--descriptor", str(mini.path)]) == 1
    assert f"FAIL {name}" in capsys.readouterr().out


def test_verify_on_forked_workers_finds_what_one_process_finds(mini, tmp_path, monkeypatch):
    """Spans of files are checked in other processes, and a file whose bytes differ comes
    back to this one for its key checks: the verdict is the one-process verdict."""
    from icgbench.release import verify as module

    pids = tmp_path / "pids"
    checked = module._check_file

    def recording(*args):
        with pids.open("a") as out:
            out.write(f"{os.getpid()}\n")
        return checked(*args)

    monkeypatch.setattr(module, "_check_file", recording)  # the forked workers inherit it
    assert verify(mini, workers=2).ok
    seen = pids.read_text().split()
    assert len(seen) == len(mini.resources) and str(os.getpid()) not in seen
    rewritten = next(x for x in mini.resources if x.name.endswith(".s0.subjects.parquet"))
    path = mini.base / rewritten.path
    pq.write_table(pq.read_table(path), path, compression="snappy")  # another writer
    (mini.base / mini.resources[-1].path).write_bytes(b"garbage")
    one, two = verify(mini, workers=1), verify(mini, workers=2)
    assert not two.ok and [str(p) for p in two.problems] == [str(p) for p in one.problems]
    assert two.content_verified == one.content_verified == [rewritten.name]


def test_one_process_keeps_the_bytes_of_referenced_files_only(mini, monkeypatch):
    """Bytes are kept for decoding a key column later only where a foreign key points."""
    from icgbench.release import verify as module

    kept, checked = {}, module._check_file

    def recording(descriptor, r, *args):
        res = checked(descriptor, r, *args)
        kept[r.name] = res.data is not None
        return res

    monkeypatch.setattr(module, "_check_file", recording)
    assert verify(mini, workers=1).ok
    referenced = {fk["reference"]["resource"] for x in mini.document["resources"]
                  for fk in x["schema"].get("foreignKeys", [])}
    parquet = {n for n in referenced if n.endswith(".parquet")}
    assert parquet and {n for n, k in kept.items() if k} == parquet


def test_cli_verify_exit_codes_and_json(mini, capsys):
    assert main(["data", "verify", "--descriptor", str(mini.path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] and out["checked"] == len(mini.resources)
    assert out["fingerprint"].startswith("sha256:")
    victim = mini.base / mini.resources[0].path
    victim.write_bytes(b"garbage")
    assert main(["data", "verify", "--descriptor", str(mini.path)]) == 1
    assert "FAIL " + mini.resources[0].name in capsys.readouterr().out
    verdicts = []
    for jobs in ("1", "2"):
        assert main(["data", "verify", "--descriptor", str(mini.path), "--jobs", jobs,
                     "--json"]) == 1
        verdicts.append(json.loads(capsys.readouterr().out))
    assert verdicts[0] == verdicts[1] and verdicts[0]["problems"]


# --- loading -----------------------------------------------------------------------------------

def test_load_table_public_and_truth():
    subjects = load_table("linear_lowhet", "subjects")
    assert len(subjects) == 2000
    assert list(subjects.columns) == [f["name"] for f in
                                      contract.table_schema("subjects")["fields"]]
    with pytest.raises(UsageError, match="truth table"):
        load_table("linear_lowhet", "test_outcomes")
    truth = load_table("linear_lowhet", "test_outcomes", role="truth")
    assert set(truth.split) == {"test", "target_test"}
    with pytest.raises(UsageError, match="unknown table"):
        load_table("linear_lowhet", "nope")
    with pytest.raises(UsageError, match="no cohort of variant"):
        load_table("nope", "subjects")


def test_load_table_refuses_an_altered_file(mini):
    r = next(x for x in mini.resources if x.name == "linear_lowhet.s0.subjects.parquet")
    path = mini.base / r.path
    path.write_bytes(path.read_bytes()[:-10] + b"0" * 10)
    root = mini.base.parents[1]
    with pytest.raises(InvalidInputError, match="does not match the descriptor"):
        load_table("linear_lowhet", "subjects", tier="small", root=_as_small(root, mini))


def _as_small(root: Path, mini) -> Path:
    """Present the mini tier under a root as if it were the small tier."""
    doc = copy.deepcopy(json.loads(mini.path.read_text()))
    for r in doc["resources"]:
        r["path"] = f"datasets/mini/{r['path']}"
    (root / "datapackage.json").write_text(json.dumps(doc))
    return root


def test_list_tables_reports_presence():
    rows = list_tables("small")
    assert len(rows) == len(variant_names()) * len(contract.table_names())
    assert all(r["present"] for r in rows)


def test_data_list_cli_exits_1_when_files_are_missing(capsys, tmp_path, mini, monkeypatch):
    root = _as_small(mini.base.parents[1], mini)
    (root / "datasets/mini" / mini.resources[0].path).unlink()
    monkeypatch.setenv("ICGBENCH_HOME", str(root))
    assert main(["data", "list"]) == 1
    assert "(missing)" in capsys.readouterr().out
    shutil.rmtree(root)


@pytest.mark.slow
def test_build_refuses_a_tier_that_differs_from_its_descriptor_and_installs_nothing(mini):
    root = mini.path.parents[2]
    document = json.loads(mini.path.read_text())
    target = next(r for r in document["resources"] if r["format"] == "parquet")
    target["icgbench:content_digest"] = "sha256:" + "1" * 64
    mini.path.write_text(json.dumps(document))
    for r in mini.resources:
        (mini.base / r.path).unlink()
    left = sorted(p for p in (root / MINI.data_dir).rglob("*") if p.is_file())
    assert mini.path in left and not any(p.suffix in (".parquet", ".gz") for p in left)
    with pytest.raises(InvalidInputError, match=f"{target['name']}: content digest differs"):
        freeze.build(MINI, root)
    assert sorted(p for p in (root / MINI.data_dir).rglob("*") if p.is_file()) == left


def test_a_loaded_descriptor_keeps_every_resource_and_finds_the_first_of_a_name(tmp_path):
    """Resources are indexed once per descriptor; a duplicated name must not hide one."""
    doc = json.loads((ROOT / "datapackage.json").read_text())
    first = doc["resources"][0]
    doc["resources"].insert(1, {**first, "hash": "sha256:" + "0" * 64})
    path = tmp_path / "datapackage.json"
    path.write_text(json.dumps(doc))
    d = load_descriptor(path)
    assert len(d.resources) == len(doc["resources"])
    assert [r.hash for r in d.resources[:2]] == [first["hash"], "sha256:" + "0" * 64]
    found = d.find(first["icgbench:variant"], first["icgbench:seed"], first["icgbench:table"],
                   first["format"])
    assert found.hash == first["hash"]
    path.write_text(json.dumps({**doc, "version": "9.9.9"}))  # same size class, new content
    assert load_descriptor(path).version == "9.9.9"  # a changed file is read afresh


def test_the_release_fingerprint_follows_its_documented_recipe():
    """docs/scoring.md: sorted (name, content digest) pairs, one 'name digest' line each,
    joined by newlines, SHA-256 of the UTF-8 text."""
    from icgbench.api.tables import tier_descriptor

    d = tier_descriptor("small")
    document = json.loads((ROOT / "datapackage.json").read_text())
    pairs = sorted((r["name"], r["icgbench:content_digest"]) for r in document["resources"])
    text = "\n".join(f"{name} {digest}" for name, digest in pairs)
    assert d.fingerprint() == "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_a_boolean_column_is_written_true_or_false_in_the_csv_twin():
    import pyarrow as pa

    from icgbench.release.encode import csv_text

    table = pa.table({"flag": pa.array([True, False, None])})
    schema = {"fields": [{"name": "flag", "type": "boolean"}]}
    assert csv_text(table, schema).decode().splitlines() == ["flag", "true", "false", '""']


def test_a_missing_release_file_is_named_as_one(tmp_path):
    from icgbench.errors import UsageError
    from icgbench.release.encode import read_parquet

    with pytest.raises(UsageError, match=r"^missing release file .*none\.parquet$"):
        read_parquet(tmp_path / "none.parquet", {"fields": []})
