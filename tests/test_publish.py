"""``icgbench data publish``: the Hub repository and the Zenodo deposit of a tier.

Against the miniature tier: the folders hold exactly the expected files, the same release
gives the same bytes, ``data verify --publication`` finds a missing, extra or altered file,
a tier that does not match its descriptor is refused with nothing written, ``.zenodo.json``
passes Zenodo's legacy deposit schema (vendored in tests/data/zenodo, with the fields its
loader adds), ``datasets`` loads the Hub folder offline, and ``data download`` installs the
tier from a local server that serves the Hub folder under the Hub's URL layout, trying the
mirrors in order. The slow test does the same with the full tier.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import re
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest

from icgbench.cli import main
from icgbench.errors import InvalidInputError, UsageError
from icgbench.release import publish
from icgbench.release.dataset_card import split_name
from icgbench.release.descriptor import load_descriptor
from icgbench.release.tiers import PUBLICATION, TIERS
from release_helpers import mini_release, served

ROOT = Path(__file__).resolve().parents[1]
ZENODO_SCHEMA = Path(__file__).with_name("data") / "zenodo" / "legacyrecord.json"


@pytest.fixture
def mini(tmp_path):
    return mini_release(tmp_path)


@pytest.fixture
def published(mini, tmp_path):
    return mini, publish.publish(mini, tmp_path / "pub")


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_publication_holds_the_release_and_nothing_else(published):
    d, out = published
    name = PUBLICATION.archive_name(d.tier, d.version)
    files = _files(out)
    assert set(files) == set(publish.expected_files(d))
    assert {f for f in files if f.startswith("zenodo/")} == {
        f"zenodo/{n}" for n in (name, "datapackage.json", "croissant.json", "SHA256SUMS",
                                ".zenodo.json")}
    assert files["huggingface/datapackage.json"] == d.path.read_bytes()
    assert files["huggingface/" + name] == files["zenodo/" + name]
    for r in d.resources:  # every release file, at its descriptor-relative path
        data = files[f"huggingface/{r.path}"]
        assert "sha256:" + hashlib.sha256(data).hexdigest() == r.hash and len(data) == r.bytes
    sums = files["zenodo/SHA256SUMS"].decode().splitlines()
    assert sums == [f"{hashlib.sha256(files['zenodo/' + n]).hexdigest()}  {n}"
                    for n in sorted((name, "datapackage.json", "croissant.json"))]
    if shutil.which("sha256sum"):
        check = subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=out / "zenodo",
                               capture_output=True, text=True, check=False)
        assert check.returncode == 0, check.stdout + check.stderr
    assert not [p for p in out.parent.iterdir() if p.name.startswith(".publish.")]


def test_the_same_release_gives_the_same_bytes_and_replaces_its_own_folder(published,
                                                                         tmp_path):
    d, out = published
    again = publish.publish(d, tmp_path / "again")
    assert _files(again) == _files(out)
    (out / "zenodo" / "stale.txt").write_text("left over")
    publish.publish(d, out)  # an earlier publication is replaced as a whole
    assert _files(out) == _files(again)


def test_a_folder_that_is_not_a_publication_is_never_replaced(mini, tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    with pytest.raises(UsageError, match="refusing to replace"):
        publish.publish(mini, mine)
    assert _files(mine) == {"notes.txt": b"keep me"}


def test_a_tier_that_does_not_match_its_descriptor_is_not_published(mini, tmp_path):
    r = next(r for r in mini.resources if r.format == "csv")
    path = mini.base / r.path
    path.write_bytes(path.read_bytes() + b"\0")
    with pytest.raises(InvalidInputError, match="does not match its descriptor"):
        publish.publish(mini, tmp_path / "pub")
    assert not (tmp_path / "pub").exists()


def test_verify_publication_accepts_it_and_names_what_differs(published, capsys):
    d, out = published
    argv = ["data", "verify", "--descriptor", str(d.path), "--publication", str(out)]
    assert main(argv) == 0
    assert capsys.readouterr().out.startswith(f"OK: publication {out} ")
    name = PUBLICATION.archive_name(d.tier, d.version)
    parquet = f"huggingface/{d.resources[0].path}"
    data = bytearray((out / parquet).read_bytes())
    data[len(data) // 2] ^= 1
    (out / parquet).write_bytes(bytes(data))
    (out / "zenodo" / name).write_bytes((out / "zenodo" / name).read_bytes()[:-100])
    (out / "huggingface" / "croissant.json").unlink()
    (out / "huggingface" / "extra.bin").write_bytes(b"x")
    assert main([*argv, "--json"]) == 1
    verdict = json.loads(capsys.readouterr().out)
    problems = verdict["problems"]
    assert not verdict["ok"] and len(problems) == 5, problems
    assert "huggingface/croissant.json: missing" in problems
    assert "huggingface/extra.bin: not part of the mini tier's publication" in problems
    assert any(p.startswith(f"{parquet}: ") for p in problems)
    assert any(p.startswith(f"zenodo/{name}: corrupt or truncated archive") for p in problems)
    assert any(p.startswith("zenodo/SHA256SUMS: ") for p in problems)


def zenodo_schema() -> dict:
    """Zenodo's legacy deposit schema, plus ``version`` (which its loader accepts; the
    schema predates it: tests/data/zenodo/README.md)."""
    schema = copy.deepcopy(json.loads(ZENODO_SCHEMA.read_text()))
    schema["properties"]["version"] = {"type": "string"}
    return schema


#: Fields Zenodo's deposit loader requires (CommonMetadataSchemaV1, LegacyMetadataSchemaV1).
ZENODO_REQUIRED = ("upload_type", "publication_date", "title", "creators", "description")


def zenodo_problems(metadata: dict) -> list[str]:
    """Every way ``metadata`` breaks Zenodo's schema or its loader's required fields."""
    validator = jsonschema.Draft4Validator(zenodo_schema())
    problems = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(metadata)]
    problems += [f"{key} is required" for key in ZENODO_REQUIRED if not metadata.get(key)]
    problems += [f"{key} is under 3 characters" for key in ("title", "description")
                 if len(metadata.get(key) or "") < 3]
    problems += ["a creator has no name" for c in metadata.get("creators", [])
                 if not c.get("name")]
    return problems


@pytest.mark.parametrize("tier", TIERS)
def test_zenodo_metadata_passes_zenodos_schema(tier):
    d = load_descriptor(ROOT / TIERS[tier].descriptor_path)
    metadata = publish.zenodo_metadata(d)
    assert zenodo_problems(metadata) == []
    assert metadata["upload_type"] == "dataset" and metadata["version"] == d.version
    assert {"title", "creators", "description", "version", "license", "keywords",
            "related_identifiers"} <= set(metadata)


@pytest.mark.parametrize(("change", "found"), [
    ({"upload_type": "data"}, "is not one of"),
    ({"title": ""}, "title is required"),
    ({"creators": [{"person": "x"}]}, "Additional properties"),
    ({"related_identifiers": [{"identifier": "x", "relation": "sameAs"}]}, "is not one of"),
    ({"unknown_field": 1}, "Additional properties"),
])
def test_the_zenodo_check_catches_bad_metadata(change, found):
    d = load_descriptor(ROOT / "datapackage.json")
    metadata = {**publish.zenodo_metadata(d), **change}
    assert any(found in p for p in zenodo_problems(metadata)), zenodo_problems(metadata)


@pytest.mark.slow
def test_datasets_loads_the_hub_folder_offline(published, tmp_path):
    from test_ecosystem_formats import _check_loaded, _load_offline

    d, out = published
    manifest = _load_offline(tmp_path, out / "huggingface", ["train_outcomes", "subjects"])
    _check_loaded(d, manifest, ["train_outcomes", "subjects"])
    first = d.cohorts()[0]
    assert split_name(first["variant"], first["seed"]) in manifest["splits"]["subjects"]


def hub_server_root(tmp_path: Path, hub_folder: Path, version: str) -> Path:
    """A folder that serves ``hub_folder`` at the Hub's layout:
    ``/datasets/<repository>/resolve/<revision>/<path>``."""
    root = tmp_path / "www"
    at = root / "datasets" / PUBLICATION.hub_repository / "resolve" / \
        PUBLICATION.hub_revision(version)
    at.parent.mkdir(parents=True)
    at.symlink_to(hub_folder, target_is_directory=True)
    return root


def test_download_installs_the_tier_from_the_hub_layout_trying_mirrors_in_order(
        published, tmp_path, monkeypatch, capsys):
    d, out = published
    requests: list[str] = []
    with served(hub_server_root(tmp_path, out / "huggingface", d.version),
                requests=requests) as url:
        local = dataclasses.replace(PUBLICATION, hub_endpoint=url)
        [mirror] = local.mirrors("full", d.version)  # the committed tier's layout
        assert mirror.replace(url, PUBLICATION.hub_endpoint) == PUBLICATION.mirrors(
            "full", d.version)[0]
        hub = local.hub_url(d.version, PUBLICATION.archive_name(d.tier, d.version))
        monkeypatch.setenv("ICGBENCH_HOME", str(tmp_path / "home"))
        monkeypatch.setenv("ICGBENCH_MIRRORS", f"{url}/nothing-here.tar.gz {hub}")
        monkeypatch.setattr("icgbench.api.tables.tier_descriptor", lambda tier: d)
        dest = tmp_path / "installed"
        assert main(["data", "download", "--retries", "0", "--outdir", str(dest)]) == 0
    assert requests == ["/nothing-here.tar.gz", hub.removeprefix(url)]
    assert capsys.readouterr().out.strip().endswith(f"from {hub} into {dest}")
    assert main(["data", "verify", "--descriptor", str(dest / "datapackage.json")]) == 0


def test_the_full_tiers_mirrors_are_the_configured_publication():
    d = load_descriptor(ROOT / TIERS["full"].descriptor_path)
    assert d.mirrors == list(PUBLICATION.mirrors("full", d.version))
    assert d.mirrors[0] == (f"https://huggingface.co/datasets/{PUBLICATION.hub_repository}/"
                            f"resolve/v{d.version}/icg-bench-full-{d.version}.tar.gz")
    small = load_descriptor(ROOT / TIERS["small"].descriptor_path)
    assert "icgbench:mirrors" not in small.document  # committed: never downloaded


def test_a_zenodo_record_adds_a_mirror_and_the_doi():
    where = dataclasses.replace(PUBLICATION, zenodo_record=1234567)
    assert where.doi == "10.5281/zenodo.1234567"
    assert where.mirrors("full", "6.0.0")[1] == (
        "https://zenodo.org/records/1234567/files/icg-bench-full-6.0.0.tar.gz?download=1")


@pytest.mark.slow
def test_the_full_tier_publishes_verifies_and_downloads_from_the_hub_layout(
        full_tier_root, tmp_path, monkeypatch):
    d = load_descriptor(full_tier_root / TIERS["full"].descriptor_path)
    out = publish.publish(d, tmp_path / "pub")
    problems, count = publish.publication_problems(d, out)
    assert problems == [] and count == len(d.resources) + 9
    name = PUBLICATION.archive_name(d.tier, d.version)
    with served(hub_server_root(tmp_path, out / "huggingface", d.version)) as url:
        monkeypatch.setenv("ICGBENCH_HOME", str(tmp_path / "home"))
        monkeypatch.setenv("ICGBENCH_MIRRORS",
                           dataclasses.replace(PUBLICATION, hub_endpoint=url).hub_url(
                               d.version, name))
        monkeypatch.setattr("icgbench.api.tables.tier_descriptor", lambda tier: d)
        dest = tmp_path / "installed"
        assert main(["data", "download", "--tier", "full", "--outdir", str(dest)]) == 0
    assert main(["data", "verify", "--descriptor", str(dest / "datapackage.json")]) == 0


def documented_sizes(tier: str) -> dict[str, int]:
    """The sizes docs/releasing.md's measured block gives for a tier's publication."""
    text = (ROOT / "docs" / "releasing.md").read_text()
    found = re.search(rf"published the {tier} tier .*?: huggingface/ ([\d,]+) bytes, "
                      rf"zenodo/ ([\d,]+) bytes", text)
    assert found, f"docs/releasing.md shows no publication of the {tier} tier"
    return {part: int(n.replace(",", "")) for part, n in zip(
        (publish.HUB, publish.ZENODO), found.groups(), strict=True)}


def _check_documented(tier: str, root: Path, tmp_path: Path) -> None:
    d = load_descriptor(root / TIERS[tier].descriptor_path)
    out = publish.publish(d, tmp_path / f"pub-{tier}")
    assert documented_sizes(tier) == {part: publish.folder_size(out / part)
                                      for part in (publish.HUB, publish.ZENODO)}


def test_the_documented_small_publication_is_what_the_command_writes(tmp_path):
    _check_documented("small", ROOT, tmp_path)


@pytest.mark.slow
def test_the_documented_full_publication_is_what_the_command_writes(full_tier_root,
                                                                     tmp_path):
    _check_documented("full", full_tier_root, tmp_path)
