"""The R examples run with a real Rscript."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import require_tool
from icgbench.api.tables import load_table

#: The R examples run end to end: whole scripts (make test-slow).
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]


def test_read_release_r_reads_the_public_tables_and_checks_a_hash():
    rscript = require_tool("Rscript", "install r-base-core and r-cran-jsonlite")
    result = subprocess.run(
        [rscript, str(ROOT / "examples" / "r" / "read_release.R"), str(ROOT), "nonlinear_obs"],
        capture_output=True, text=True, check=False, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "synthetic data" in out
    assert "observations         10000 rows x  34 columns" in out
    assert "train_outcomes        1200 rows x   2 columns" in out
    rate = load_table("nonlinear_obs", "train_outcomes")["event"].mean()
    assert f"train event rate: {rate:.4f}" in out
    assert "sha256 OK: datasets/small/nonlinear_obs/seed0/train_outcomes.csv.gz" in out
    assert "test_outcomes" not in out  # public tables only


def test_submit_glm_r_writes_a_submission_that_scores_above_chance(tmp_path):
    from icgbench.scorer import check_submission, score

    rscript = require_tool("Rscript", "install r-base-core and r-cran-jsonlite")
    out = tmp_path / "r_glm.json"
    result = subprocess.run(
        [rscript, str(ROOT / "examples" / "r" / "submit_glm.R"), str(ROOT), "linear_lowhet",
         "0", str(out)], capture_output=True, text=True, check=False, timeout=180)
    assert result.returncode == 0, result.stderr
    assert f"to {out}" in result.stdout
    assert sorted(check_submission(out).blocks) == ["cross_host_generalization", "risk_prediction"]
    cli = subprocess.run([sys.executable, "-m", "icgbench", "validate", str(out)],
                         capture_output=True, text=True, check=False)
    assert cli.returncode == 0, cli.stdout + cli.stderr
    report = score(out)
    assert report.summary["auroc"] > 0.7
    assert report.document["model"]["language"] == "R"


#: The R packages Debian ships (bookworm: `apt-cache policy r-cran-<name>` has a candidate),
#: with their Debian names; arrow, nanoparquet, frictionless and jsonvalidate have none.
DEBIAN_R = {"jsonlite": "r-cran-jsonlite", "digest": "r-cran-digest", "V8": "r-cran-v8",
            "testthat": "r-cran-testthat", "roxygen2": "r-cran-roxygen2",
            "openssl": "r-cran-openssl"}
CRAN_ONLY = ("arrow", "nanoparquet", "frictionless", "jsonvalidate")
BASE_R = {"R", "base", "stats", "utils", "tools", "methods", "graphics", "grDevices"}


def _description_packages() -> dict[str, set[str]]:
    text = (ROOT / "r" / "DESCRIPTION").read_text()
    fields = {}
    for key in ("Depends", "Imports", "Suggests"):
        match = re.search(rf"^{key}:(.*?)(?=^\S|\Z)", text, flags=re.M | re.S)
        names = re.findall(r"([A-Za-z][A-Za-z0-9.]*)\s*(?:\([^)]*\))?\s*(?:,|$)",
                           match.group(1).strip()) if match else []
        fields[key] = set(names) - BASE_R
    return fields


def test_the_r_side_needs_only_packages_debian_ships():
    """An offline Debian user can install everything the R package, its tests and the R
    examples load, and docs/r.md's install section says so and names what needs CRAN."""
    fields = _description_packages()
    assert fields["Imports"] == {"digest", "jsonlite"}
    assert {"testthat", "V8"} <= fields["Suggests"]  # V8 validates where it is installed
    for key, names in fields.items():
        assert names <= set(DEBIAN_R), f"r/DESCRIPTION {key} lists {names - set(DEBIAN_R)}"
    for script in sorted((ROOT / "examples" / "r").glob("*.R")):
        code = "\n".join(line.split("#", 1)[0] for line in script.read_text().splitlines())
        used = set(re.findall(r"\b(?:library|require|requireNamespace)\(\"?([\w.]+)", code))
        used |= set(re.findall(r"\b([A-Za-z][\w.]*)::", code))
        assert used - BASE_R, f"{script.name}: no package found (is the pattern stale?)"
        assert used - BASE_R <= set(DEBIAN_R), (
            f"examples/r/{script.name} loads {used - BASE_R - set(DEBIAN_R)}, which Debian "
            "does not package")
    page = (ROOT / "docs" / "r.md").read_text()
    install = page.split("\n## Install\n", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"r-cran-[a-z0-9.]+", install))
    assert named <= set(DEBIAN_R.values()), named - set(DEBIAN_R.values())
    needed = {DEBIAN_R[n] for n in fields["Imports"] | fields["Suggests"]}
    assert needed <= named, f"docs/r.md's install section omits {needed - named}"
    flat = " ".join(install.split())
    assert "are not packaged by Debian: they need CRAN" in flat
    assert [n for n in CRAN_ONLY if f"`{n}`" not in flat] == []
