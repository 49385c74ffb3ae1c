"""The R examples run with a real Rscript."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import require_tool
from icgbench.data import load_table

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
    from icgbench.scorer import score, validate

    rscript = require_tool("Rscript", "install r-base-core and r-cran-jsonlite")
    out = tmp_path / "r_glm.json"
    result = subprocess.run(
        [rscript, str(ROOT / "examples" / "r" / "submit_glm.R"), str(ROOT), "linear_lowhet",
         "0", str(out)], capture_output=True, text=True, check=False, timeout=180)
    assert result.returncode == 0, result.stderr
    assert f"to {out}" in result.stdout
    assert sorted(validate(out).blocks) == ["cross_host_generalization", "risk_prediction"]
    cli = subprocess.run([sys.executable, "-m", "icgbench", "validate", str(out)],
                         capture_output=True, text=True, check=False)
    assert cli.returncode == 0, cli.stdout + cli.stderr
    report = score(out)
    assert report.summary["auroc"] > 0.7
    assert report.document["model"]["language"] == "R"
