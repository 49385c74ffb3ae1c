"""The standard Frictionless validator (`frictionless validate`) accepts the release.

It checks every CSV resource row by row against its Table Schema and every Parquet
resource's bytes and SHA-256 (Parquet resources are typed ``file`` for it; see
docs/data.md). Frictionless reads through pandas, row by row, so every case runs in
`make test-slow`: one cohort in both formats, the failures it must catch, both whole tiers.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from icgbench import contract
from icgbench.release.descriptor import FORMATS

ROOT = Path(__file__).resolve().parents[1]
FRICTIONLESS = Path(os.environ.get("VIRTUAL_ENV", ROOT / ".venv")) / "bin" / "frictionless"


def _frictionless(descriptor: Path) -> subprocess.CompletedProcess[str]:
    command = str(FRICTIONLESS) if FRICTIONLESS.exists() else "frictionless"
    return subprocess.run([command, "validate", "--json", str(descriptor)], capture_output=True,
                          text=True, check=False, timeout=1800)


def _errors(result: subprocess.CompletedProcess[str]) -> list[tuple[str, str]]:
    report = json.loads(result.stdout)
    return [(task["name"], e["type"]) for task in report["tasks"] for e in task["errors"]]


def _one_cohort(tmp_path: Path, variant: str = "nonlinear_obs") -> tuple[Path, dict]:
    """A descriptor of one small-tier cohort beside a link to the committed files."""
    document = json.loads((ROOT / "datapackage.json").read_text())
    document["resources"] = [r for r in document["resources"]
                             if r["icgbench:variant"] == variant]
    (tmp_path / "datasets").symlink_to(ROOT / "datasets", target_is_directory=True)
    path = tmp_path / "datapackage.json"
    path.write_text(json.dumps(document))
    return path, document


@pytest.mark.slow
def test_frictionless_validate_accepts_one_cohort_in_both_formats(tmp_path):
    path, document = _one_cohort(tmp_path)
    assert {r["format"] for r in document["resources"]} == set(FORMATS)
    assert len(document["resources"]) == len(FORMATS) * len(contract.table_names())
    result = _frictionless(path)
    assert result.returncode == 0, _errors(result)[:10]
    report = json.loads(result.stdout)
    assert report["valid"] and len(report["tasks"]) == len(document["resources"])
    checked = {t["name"]: t for t in report["tasks"]}
    masks = checked["nonlinear_obs.s0.masks.csv"]  # booleans and nulls, read row by row
    assert masks["stats"]["rows"] == next(r["icgbench:rows"] for r in document["resources"]
                                          if r["name"] == "nonlinear_obs.s0.masks.csv")


@pytest.mark.slow
def test_frictionless_checks_parquet_bytes_and_hash_and_csv_rows(tmp_path):
    path, document = _one_cohort(tmp_path)
    parquet = [r for r in document["resources"] if r["format"] == "parquet"]
    parquet[0]["hash"] = "sha256:" + "0" * 64
    parquet[1]["bytes"] += 1
    csv = next(r for r in document["resources"] if r["name"].endswith(".subjects.csv"))
    age = next(f for f in csv["schema"]["fields"] if f["name"] == "age")
    age["constraints"]["maximum"] = 20  # the frozen ages go up to 100: rows are read
    path.write_text(json.dumps(document))
    result = _frictionless(path)
    assert result.returncode != 0
    assert set(_errors(result)) == {(parquet[0]["name"], "hash-count"),
                                    (parquet[1]["name"], "byte-count"),
                                    (csv["name"], "constraint-error")}


@pytest.mark.slow
@pytest.mark.parametrize("descriptor", ["datapackage.json", "datasets/full/datapackage.json"])
def test_frictionless_validate_accepts_the_whole_tier(descriptor, full_tier_root):
    result = _frictionless(full_tier_root / descriptor)
    assert result.returncode == 0, _errors(result)[:10]
    report = json.loads(result.stdout)
    expected = json.loads((full_tier_root / descriptor).read_text())["resources"]
    assert report["valid"] and len(report["tasks"]) == len(expected)
