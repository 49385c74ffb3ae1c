"""The release in the formats other tools read: Croissant, a Hugging Face card, DuckDB.

The committed croissant.json and README.md files must be what the generator makes from the
committed descriptors; mlcroissant, Hugging Face ``datasets`` (offline) and DuckDB must read
the same values as pyarrow does from the Parquet files. These tools are dev dependencies:
a missing one fails its tests, it does not skip them.
"""

from __future__ import annotations

import fnmatch
import itertools
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from icgbench import contract
from icgbench.errors import InvalidInputError
from icgbench.release.croissant import DATA_TYPES, croissant_document, data_prefix
from icgbench.release.dataset_card import (
    BINARY_NAMES,
    DTYPES,
    SPLIT_NAME,
    card_folder,
    config_files,
    is_binary,
    split_name,
)
from icgbench.release.descriptions import render, stale_descriptions, write_tier_descriptions
from icgbench.release.descriptor import SYNTHETIC_NOTICE, Descriptor, load_descriptor

# Pages here are read for their tables, links and files: built without the board's figures.
pytestmark = pytest.mark.usefixtures("no_board_figures")

ROOT = Path(__file__).resolve().parents[1]
DESCRIPTORS = {"small": ROOT / "datapackage.json",
               "full": ROOT / "datasets" / "full" / "datapackage.json"}
TIERS = sorted(DESCRIPTORS)
#: The full tier's cases check the same code on a 29.5 MB descriptor: slow (`make test-slow`).
TIER_CASES = [t if t == "small" else pytest.param(t, marks=pytest.mark.slow) for t in TIERS]


def _descriptor(tier: str) -> Descriptor:
    return load_descriptor(DESCRIPTORS[tier])


def _parquet(d: Descriptor, table: str) -> list:
    return [r for r in d.resources if r.table == table and r.format == "parquet"]


def _config(table: str) -> str:
    return f"truth_{table}" if contract.table_role(table) == "truth" else table


def _front_matter(text: str) -> dict:
    import yaml

    match = re.match(r"---\n(.*?)\n---\n", text, flags=re.S)
    assert match, "the card does not open with YAML front matter"
    return yaml.safe_load(match.group(1))


# --- the committed files and the generator --------------------------------------------------


@pytest.mark.parametrize("tier", TIER_CASES)
def test_committed_descriptions_are_what_the_descriptor_gives(tier):
    d = _descriptor(tier)
    for path, text in render(d).items():
        assert path.is_file(), f"{path} is missing"
        assert path.read_text(encoding="utf-8") == text, (
            f"{path.relative_to(ROOT)} is stale: run icgbench.release.descriptions."
            f"write_tier_descriptions({DESCRIPTORS[tier].relative_to(ROOT)!s})")
    assert sorted(p.relative_to(ROOT).as_posix() for p in render(d)) == (
        sorted(["croissant.json", "datasets/small/README.md"]) if tier == "small" else
        ["datasets/full/README.md", "datasets/full/croissant.json"])


def test_writing_is_deterministic_atomic_and_leaves_nothing_behind(tmp_path):
    """On a copy of the small tier's descriptor (the full tier's goes through the same
    code): the files written are the committed ones, again on a second write, and nothing
    else is left in the folder."""
    (tmp_path / "datapackage.json").write_bytes(DESCRIPTORS["small"].read_bytes())
    written = write_tier_descriptions(tmp_path / "datapackage.json")
    names = ["croissant.json", "datasets/small/README.md"]
    assert sorted(p.relative_to(tmp_path).as_posix() for p in written) == names
    first = {p.relative_to(tmp_path).as_posix(): p.read_bytes() for p in written}
    assert first == {name: (ROOT / name).read_bytes() for name in names}
    assert stale_descriptions(tmp_path / "datapackage.json") == []
    write_tier_descriptions(tmp_path / "datapackage.json")
    assert {p.relative_to(tmp_path).as_posix(): p.read_bytes() for p in written} == first
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")
                  if p.is_file()) == sorted([*names, "datapackage.json"])
    readme = tmp_path / "datasets" / "small" / "README.md"
    readme.write_text("edited by hand\n")
    assert stale_descriptions(tmp_path / "datapackage.json") == [readme]


def test_a_resource_outside_the_release_layout_is_refused(tmp_path):
    doc = json.loads(DESCRIPTORS["small"].read_text())
    doc["resources"][3]["path"] = "elsewhere/" + doc["resources"][3]["path"]
    d = Descriptor(tmp_path / "datapackage.json", doc)
    with pytest.raises(InvalidInputError, match="not in one folder"):
        croissant_document(d)
    doc["resources"][3]["path"] = "datasets/small/masks.parquet"
    d = Descriptor(tmp_path / "datapackage.json", doc)  # a Descriptor's document is read-only
    with pytest.raises(InvalidInputError, match=doc["resources"][3]["name"]):
        croissant_document(d)


# --- Croissant ----------------------------------------------------------------------------


@pytest.mark.parametrize("tier", TIER_CASES)
def test_croissant_describes_the_dataset_from_its_descriptor(tier):
    d = _descriptor(tier)
    doc = json.loads((d.base / "croissant.json").read_text())
    assert doc["@type"] == "sc:Dataset"
    assert doc["conformsTo"] == "http://mlcommons.org/croissant/1.1"
    assert doc["name"] == d.document["name"]
    assert doc["version"] == d.version
    assert doc["datePublished"] == d.document["created"]
    assert doc["license"] == [lic["path"] for lic in d.document["licenses"]]
    assert [c["name"] for c in doc["creator"]] == [
        c["title"] for c in d.document["contributors"] if "creator" in c["roles"]]
    assert f"version = {{{d.version}}}" in doc["citeAs"]
    assert SYNTHETIC_NOTICE in doc["description"]
    assert "simulated" in doc["rai:dataCollection"]


@pytest.mark.parametrize("tier", TIER_CASES)
def test_croissant_lists_every_file_with_its_size_and_sha256(tier):
    d = _descriptor(tier)
    doc = json.loads((d.base / "croissant.json").read_text())
    objects = {o["@id"]: o for o in doc["distribution"] if o["@type"] == "cr:FileObject"}
    assert sorted(objects) == sorted(r.name for r in d.resources)
    for r in d.resources:
        o = objects[r.name]
        assert o["contentUrl"] == r.path
        assert o["contentSize"] == f"{r.bytes} B"
        assert "sha256:" + o["sha256"] == r.hash
        assert o["encodingFormat"] == {"parquet": "application/x-parquet",
                                       "csv": "text/csv"}[r.format]
        assert "Synthetic" in o["description"]
        if r.format == "csv":
            assert o["sameAs"] == [r.name.removesuffix(".csv") + ".parquet"]


@pytest.mark.parametrize("tier", TIER_CASES)
def test_croissant_has_one_record_set_per_table_typed_from_its_table_schema(tier):
    d = _descriptor(tier)
    doc = json.loads((d.base / "croissant.json").read_text())
    assert DATA_TYPES == {"integer": "sc:Integer", "number": "sc:Float",
                          "boolean": "sc:Boolean", "string": "sc:Text"}
    record_sets = {rs["@id"]: rs for rs in doc["recordSet"]}
    assert list(record_sets) == [_config(t) for t in contract.table_names()]
    for table in contract.table_names():
        rs = record_sets[_config(table)]
        schema = contract.table_schema(table)
        fields = rs["field"]
        assert [f["name"] for f in fields] == ["variant", "seed",
                                               *(f["name"] for f in schema["fields"])]
        assert [f["dataType"] for f in fields[2:]] == [DATA_TYPES[f["type"]]
                                                       for f in schema["fields"]]
        assert [k["@id"] for k in rs["key"]] == [
            f"{rs['@id']}/{k}" for k in ("variant", "seed", *schema["primaryKey"])]
        truth = contract.table_role(table) == "truth"
        assert rs["description"].startswith("TRUTH TABLE") == truth
        assert rs["@id"].startswith("truth_") == truth
        assert "Synthetic" in rs["description"]


@pytest.mark.parametrize("tier", TIER_CASES)
def test_croissant_file_sets_match_exactly_their_tables_files(tier, request):
    root = ROOT if tier == "small" else request.getfixturevalue("full_tier_root")
    d = load_descriptor(root / DESCRIPTORS[tier].relative_to(ROOT))
    doc = json.loads((d.base / "croissant.json").read_text())
    on_disk = [p.relative_to(d.base).as_posix()
               for p in (d.base / data_prefix(d)).rglob("*") if p.is_file()]
    file_sets = [fs for fs in doc["distribution"] if fs["@type"] == "cr:FileSet"]
    assert len(file_sets) == len(contract.table_names())
    for table, fs in zip(contract.table_names(), file_sets, strict=True):
        pattern = re.compile(fnmatch.translate(fs["includes"]))
        matched = {p for p in on_disk if pattern.match(p)}
        assert matched == {r.path for r in _parquet(d, table)}, table


def _expected_records(d: Descriptor, table: str, limit: int | None = None) -> list[dict]:
    """The rows mlcroissant should give: every cohort's file in path order, as pyarrow
    reads them, with the variant and seed in front and text as bytes."""
    rs = _config(table)
    rows = []
    for r in sorted(_parquet(d, table), key=lambda r: r.path):
        for row in pq.read_table(d.base / r.path).to_pylist():
            rows.append({f"{rs}/variant": r.variant.encode(), f"{rs}/seed": r.seed,
                         **{f"{rs}/{k}": v.encode() if isinstance(v, str) else v
                            for k, v in row.items()}})
            if limit is not None and len(rows) == limit:
                return rows
    return rows


def _same(got: dict, expected: dict) -> bool:
    """Equal values of the same Python types; a null (None or NaN) where pyarrow has one."""
    if got.keys() != expected.keys():
        return False
    for key, want in expected.items():
        value = got[key]
        if want is None:
            ok = value is None or (isinstance(value, float) and math.isnan(value))
        else:
            ok = type(value) is type(want) and value == want
        if not ok:
            return False
    return True


def _mlcroissant_dataset(path: Path):
    import mlcroissant as mlc

    ds = mlc.Dataset(jsonld=str(path))
    issues = ds.metadata.issues
    assert not issues.errors, issues.report()
    assert not issues.warnings, issues.report()
    return ds


@pytest.fixture(scope="module")
def small_croissant():
    """The small tier's croissant.json loaded by mlcroissant (once: loading takes 0.5 s)."""
    return _mlcroissant_dataset(ROOT / "croissant.json")


@pytest.mark.slow  # the fast suite keeps one cohort's nulls and counts, below
def test_mlcroissant_reads_the_small_tier_as_pyarrow_does(small_croissant):
    d = _descriptor("small")
    ds = small_croissant
    got = list(ds.records(record_set="train_outcomes"))
    expected = _expected_records(d, "train_outcomes")
    assert len(got) == len(expected) == sum(r.rows for r in _parquet(d, "train_outcomes"))
    bad = [i for i, (g, e) in enumerate(zip(got, expected, strict=True)) if not _same(g, e)]
    assert not bad, (got[bad[0]], expected[bad[0]])


def test_mlcroissant_reads_nulls_and_counts_of_one_cohort(tmp_path):
    """Observations of partial_observability have nulls (masked modalities), in float and
    in integer fields: mlcroissant gives a null wherever pyarrow does."""
    doc = json.loads(DESCRIPTORS["small"].read_text())
    doc["resources"] = [r for r in doc["resources"]
                        if r["icgbench:variant"] == "partial_observability"
                        and r["icgbench:table"] == "observations"]
    d = Descriptor(tmp_path / "datapackage.json", doc)
    for r in d.resources:  # file links, which mlcroissant's walk of the folder follows
        (tmp_path / r.path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / r.path).symlink_to(ROOT / r.path)
    (tmp_path / "croissant.json").write_text(json.dumps(croissant_document(d)))
    ds = _mlcroissant_dataset(tmp_path / "croissant.json")
    got = list(itertools.islice(ds.records(record_set="observations"), 400))
    expected = _expected_records(d, "observations", limit=400)
    assert any(v is None for row in expected for v in row.values())
    assert any(row["observations/mut_total_count"] is None for row in expected)
    bad = [i for i, (g, e) in enumerate(zip(got, expected, strict=True)) if not _same(g, e)]
    assert not bad, (got[bad[0]], expected[bad[0]])


@pytest.mark.slow
@pytest.mark.parametrize("table", ["subjects", "masks", "interventions", "structural_prior",
                                   "nodes", "test_outcomes", "intervention_effects",
                                   "graph"])
def test_mlcroissant_reads_every_type_as_pyarrow_does(table, small_croissant):
    d = _descriptor("small")
    ds = small_croissant
    got = list(ds.records(record_set=_config(table)))
    expected = _expected_records(d, table)
    assert len(got) == len(expected)
    bad = [i for i, (g, e) in enumerate(zip(got, expected, strict=True)) if not _same(g, e)]
    assert not bad, (got[bad[0]], expected[bad[0]])


@pytest.mark.slow
def test_mlcroissant_loads_the_full_tier_and_reads_it(full_tier_root):
    d = load_descriptor(full_tier_root / "datasets" / "full" / "datapackage.json")
    ds = _mlcroissant_dataset(d.base / "croissant.json")
    got = list(ds.records(record_set="truth_test_outcomes"))
    expected = _expected_records(d, "test_outcomes")
    held_out = sum(c["sizes"]["test"] + c["sizes"]["target_test"] for c in d.cohorts())
    assert len(got) == len(expected) == held_out
    bad = [i for i, (g, e) in enumerate(zip(got, expected, strict=True)) if not _same(g, e)]
    assert not bad, (got[bad[0]], expected[bad[0]])


@pytest.mark.slow
@pytest.mark.parametrize("tier", [t if t == "small" else pytest.param(t, marks=pytest.mark.slow)
                                  for t in TIERS])
def test_mlcroissant_loads_each_tier_with_no_error_or_warning(tier, request):
    """What ``mlcroissant validate --jsonld <file>`` checks, in process."""
    ds = (request.getfixturevalue("small_croissant") if tier == "small" else
          _mlcroissant_dataset(DESCRIPTORS[tier].parent / "croissant.json"))
    d = _descriptor(tier)
    assert ds.metadata.version == d.version
    assert len(ds.metadata.record_sets) == len(contract.table_names())
    sizes = {f.id: (f.content_size, f.sha256) for f in ds.metadata.file_objects}
    assert sizes == {r.name: (f"{r.bytes} B", r.hash.removeprefix("sha256:"))
                     for r in d.resources}


def test_mlcroissant_is_required_and_documented_with_its_parquet_extra():
    """Without its ``parquet`` extra mlcroissant loads croissant.json but raises ImportError
    at the first record: the dev extras ask for the extra, the lock pins what it pulls in,
    and every page showing mlcroissant (and each card) says to install it."""
    import importlib.metadata
    import tomllib

    dev = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]["dev"]
    assert [r for r in dev if r.startswith("mlcroissant")] == ["mlcroissant[parquet]>=1.0.17"]
    pins = {line.split("==")[0].lower(): line.split("==")[1]
            for line in (ROOT / "constraints.txt").read_text().splitlines()
            if "==" in line and not line.startswith("#")}
    extra = [re.split(r"[\s;<>=!~\[]", r, maxsplit=1)[0].lower()
             for r in importlib.metadata.requires("mlcroissant") or []
             if re.search(r"extra\s*==\s*['\"]parquet['\"]", r)]
    assert extra, "mlcroissant declares no parquet extra any more"
    for name in ["mlcroissant", *extra]:
        assert name in pins, f"constraints.txt does not pin {name} (mlcroissant[parquet])"
        assert importlib.metadata.version(name) == pins[name], name
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
             *(ROOT / card_folder(_descriptor(t)) / "README.md" for t in TIERS)]
    showing = [p for p in pages if re.search(r"import mlcroissant|mlcroissant validate|"
                                             r"readable with `mlcroissant`", p.read_text())]
    assert len(showing) >= 3  # docs/data.md and both cards
    missing = [p.relative_to(ROOT).as_posix() for p in showing
               if 'pip install "mlcroissant[parquet]"' not in p.read_text()]
    assert not missing, f"these pages show mlcroissant without its install line: {missing}"


# --- the Hugging Face dataset card ------------------------------------------------------------


@pytest.mark.parametrize("tier", TIER_CASES)
def test_the_card_configs_cover_every_table_and_cohort(tier):
    d = _descriptor(tier)
    folder = ROOT / card_folder(d)
    meta = _front_matter((folder / "README.md").read_text())
    assert meta["license"] == "cc-by-4.0"
    configs = {c["config_name"]: c for c in meta["configs"]}
    assert list(configs) == [_config(t) for t in contract.table_names()]
    infos = {i["config_name"]: i for i in meta["dataset_info"]}
    for table in contract.table_names():
        files = configs[_config(table)]["data_files"]
        resources = config_files(d, table)  # a file of no rows is left out
        assert {r.path for r in _parquet(d, table)} - {r.path for r in resources} == {
            r.path for r in _parquet(d, table) if r.rows == 0}
        assert [f["split"] for f in files] == [split_name(r.variant, r.seed) for r in resources]
        assert all(SPLIT_NAME.match(f["split"]) for f in files)
        assert [(folder / f["path"]).resolve() for f in files] == [
            (d.base / r.path).resolve() for r in resources]
        schema = contract.table_schema(table)["fields"]
        assert infos[_config(table)]["features"] == [
            {"name": f["name"], "dtype": _declared(f)} for f in schema]
    if tier == "small":  # the declared dtypes are the files' own types (a label is int64)
        for table in contract.table_names():
            arrow = pq.read_schema(d.base / _parquet(d, table)[0].path)
            declared = infos[_config(table)]["features"]
            assert [(f.name, str(f.type)) for f in arrow] == [
                (f["name"], "int64" if isinstance(f["dtype"], dict) else
                 {"float64": "double"}.get(f["dtype"], f["dtype"])) for f in declared]


def _declared(field: dict) -> object:
    """A field's dtype as the card's YAML reads back: datasets' class_label form for a
    0/1 label, else the Table Schema type's name."""
    if is_binary(field):
        return {"class_label": {"names": {"0": "no", "1": "yes"}}}
    return DTYPES[field["type"]]


def test_the_binary_labels_are_the_outcome_columns():
    """Which fields the card makes ClassLabels: every 0/1 outcome, and nothing else (a -1/1
    sign or a -1/0/1 direction stays an integer)."""
    binary = [(t, f["name"]) for t in contract.table_names()
              for f in contract.table_schema(t)["fields"] if is_binary(f)]
    assert binary == [("train_outcomes", "event"), ("test_outcomes", "event")]
    assert BINARY_NAMES == ("no", "yes")


@pytest.mark.parametrize("tier", TIER_CASES)
def test_the_card_text_says_what_the_release_is(tier):
    d = _descriptor(tier)
    folder = ROOT / card_folder(d)
    text = (folder / "README.md").read_text()
    body = text.split("\n---\n", 1)[1]
    assert "> **Synthetic by construction.**" in body
    assert "carcinogenicity classification or a prediction about real people" in body
    assert f"icgbench data verify --tier {tier}" in body
    assert d.version in body and d.fingerprint() in body
    assert "Creative Commons Attribution 4.0" in body
    for table in contract.table_names():
        role = "**truth**" if contract.table_role(table) == "truth" else "public"
        assert f"| `{_config(table)}` | {role} |" in body
    links = re.findall(r"\]\(([^)#\s]+)\)", body)
    local = [link for link in links if "://" not in link]
    assert any(link.endswith("docs/data.md") for link in local)
    assert [link for link in local if not (folder / link).exists()] == []


def _load_offline(tmp_path: Path, folder: Path, configs: list[str]) -> dict:
    """Load configs with Hugging Face ``datasets`` in a fresh process, offline, with its
    caches under ``tmp_path``; every split is saved as an Arrow file to compare. Returns
    ``splits`` (config -> split -> Arrow file) and ``features`` (config -> split -> column
    -> [the ``datasets`` feature's class name, its class names or None])."""
    out = tmp_path / "out"
    script = (
        "import json, sys, pyarrow as pa\n"
        "from datasets import load_dataset\n"
        "folder, out, *configs = sys.argv[1:]\n"
        "manifest, features = {}, {}\n"
        "for config in configs:\n"
        "    loaded = load_dataset(folder, config)\n"
        "    manifest[config] = {}\n"
        "    features[config] = {split: {name: [type(f).__name__, getattr(f, 'names', None)]\n"
        "                                for name, f in ds.features.items()}\n"
        "                        for split, ds in loaded.items()}\n"
        "    for split, ds in loaded.items():\n"
        "        path = f'{out}/{config}.{split}.arrow'\n"
        "        with pa.OSFile(path, 'wb') as sink:\n"
        "            table = ds.data.table\n"
        "            with pa.ipc.new_file(sink, table.schema) as writer:\n"
        "                writer.write_table(table)\n"
        "        manifest[config][split] = path\n"
        "print(json.dumps({'splits': manifest, 'features': features}))\n"
    )
    out.mkdir()
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1",
           "HF_HOME": str(tmp_path / "hf"), "HF_DATASETS_CACHE": str(tmp_path / "hf" / "ds"),
           "HF_ENDPOINT": "http://127.0.0.1:9", "HF_HUB_DISABLE_TELEMETRY": "1"}
    result = subprocess.run([sys.executable, "-c", script, str(folder), str(out), *configs],
                            capture_output=True, text=True, env=env, cwd=tmp_path,
                            check=False)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def _check_loaded(d: Descriptor, manifest: dict, tables: list[str]) -> None:
    for table in tables:
        splits = manifest["splits"][_config(table)]
        expected_features = {
            f["name"]: ["ClassLabel", list(BINARY_NAMES)] if is_binary(f) else ["Value", None]
            for f in contract.table_schema(table)["fields"]}
        for split, features in manifest["features"][_config(table)].items():
            assert features == expected_features, (
                f"config {_config(table)}, split {split}: datasets read features {features}, "
                f"the card declares {expected_features}")
        resources = config_files(d, table)
        assert resources, f"config {_config(table)} lists no file"
        assert list(splits) == [split_name(r.variant, r.seed) for r in resources]
        for r in resources:
            with pa.memory_map(splits[split_name(r.variant, r.seed)]) as source:
                got = pa.ipc.open_file(source).read_all()
            expected = pq.read_table(d.base / r.path)
            assert got.num_rows == r.rows == expected.num_rows, r.name
            assert [(f.name, f.type) for f in got.schema] == [
                (f.name, f.type) for f in expected.schema], r.name
            for name in expected.column_names:  # same values, whatever the chunks
                assert got[name].equals(expected[name]), (r.name, name)


@pytest.mark.slow
def test_datasets_loads_the_small_tier_offline(tmp_path):
    d = _descriptor("small")
    manifest = _load_offline(tmp_path, ROOT / card_folder(d),
                             ["train_outcomes", "truth_test_outcomes"])
    _check_loaded(d, manifest, ["train_outcomes", "test_outcomes"])
    for config in ("train_outcomes", "truth_test_outcomes"):  # the target, a ClassLabel
        for split, features in manifest["features"][config].items():
            assert features["event"] == ["ClassLabel", ["no", "yes"]], (config, split)
    assert any((tmp_path / "hf" / "ds").rglob("*.arrow")), "the cache was not under tmp_path"


@pytest.mark.slow
@pytest.mark.parametrize("tier", TIER_CASES)
def test_datasets_loads_every_config_of_a_tier_offline(tier, tmp_path, request):
    root = ROOT if tier == "small" else request.getfixturevalue("full_tier_root")
    d = load_descriptor(root / DESCRIPTORS[tier].relative_to(ROOT))
    tables = list(contract.table_names())
    manifest = _load_offline(tmp_path, root / card_folder(d), [_config(t) for t in tables])
    _check_loaded(d, manifest, tables)


# --- DuckDB -----------------------------------------------------------------------------------


def _sql(marker: str) -> str:
    blocks = re.findall(r"```sql\n(.*?)```", (ROOT / "docs" / "data.md").read_text(), re.S)
    found = [b for b in blocks if marker in b]
    assert len(found) == 1, f"docs/data.md should hold one DuckDB query with {marker!r}"
    return found[0]


def _tier_query(marker: str, tier: str) -> str:
    query = _sql(marker)
    assert "'datasets/full/*/seed*/" in query
    return query.replace("'datasets/full/", f"'{card_folder(_descriptor(tier))}/")


@pytest.mark.parametrize("tier", TIER_CASES)
def test_the_documented_duckdb_query_gives_every_cohorts_event_rate(tier, request,
                                                                    monkeypatch):
    import duckdb

    root = ROOT if tier == "small" else request.getfixturevalue("full_tier_root")
    d = load_descriptor(root / DESCRIPTORS[tier].relative_to(ROOT))
    monkeypatch.chdir(root)
    result = duckdb.sql(_tier_query("AS event_rate\nFROM read_parquet", tier))
    assert result.columns == ["variant", "seed", "subjects", "events", "event_rate"]
    rows = result.fetchall()
    expected = []
    for r in sorted(_parquet(d, "train_outcomes"), key=lambda r: (r.variant, r.seed)):
        events = pq.read_table(d.base / r.path, columns=["event"])["event"].to_pylist()
        expected.append((r.variant, r.seed, r.rows, sum(events), sum(events) / len(events)))
    assert len(rows) == len(d.cohorts()) == len(expected)
    assert [row[:4] for row in rows] == [e[:4] for e in expected]
    assert [row[4] for row in rows] == pytest.approx([e[4] for e in expected], abs=1e-12)
    text = (ROOT / "docs" / "data.md").read_text()
    documented = {"full": r"it gives (\d+) rows", "small": r"\((\d+) rows, seed 0\)"}[tier]
    assert int(re.search(documented, text).group(1)) == len(rows)


@pytest.mark.parametrize("tier", TIER_CASES)
def test_the_documented_duckdb_join_matches_pyarrow(tier, request, monkeypatch):
    import duckdb

    root = ROOT if tier == "small" else request.getfixturevalue("full_tier_root")
    d = load_descriptor(root / DESCRIPTORS[tier].relative_to(ROOT))
    monkeypatch.chdir(root)
    rows = duckdb.sql(_tier_query("JOIN subjects USING", tier)).fetchall()
    counts: dict[str, list[int]] = {}
    for r in _parquet(d, "train_outcomes"):
        if r.variant != "linear_lowhet":
            continue
        outcomes = pq.read_table(d.base / r.path).to_pydict()
        subjects = pq.read_table(d.base / d.find(r.variant, r.seed, "subjects").path,
                                 columns=["subject_id", "archetype"]).to_pydict()
        archetype = dict(zip(subjects["subject_id"], subjects["archetype"], strict=True))
        for sid, event in zip(outcomes["subject_id"], outcomes["event"], strict=True):
            n = counts.setdefault(archetype[sid], [0, 0])
            n[0] += 1
            n[1] += event
    assert {a: n for a, n, _ in rows} == {a: n for a, (n, _) in counts.items()}
    assert {a: rate for a, _, rate in rows} == pytest.approx(
        {a: e / n for a, (n, e) in counts.items()}, abs=1e-12)
    assert [rate for _, _, rate in rows] == sorted((rate for _, _, rate in rows),
                                                   reverse=True)
