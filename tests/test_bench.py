"""The bench workflow: run, audit, sweep (resumable), plots, normalized scores, baselines."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from icgbench.bench.baselines_doc import markdown
from icgbench.bench.normalize import difficulty
from icgbench.bench.sweep import grid, sweep
from icgbench.cli import main
from icgbench.generator.variants import get_variant

#: Two cohorts with the random and direct models, one with a bottleneck model (whose fit
#: takes 2 s, where the others take milliseconds), and random on the calibration cohort
#: (its structure block gives the sensitivity figure).
CELLS = [*grid(["random", "logistic_direct"], ["misspecified_signs", "nonlinear_obs"], None,
               "small"),
         *grid(["mbcnet_sign_constrained"], ["misspecified_signs"], None, "small"),
         *grid(["random"], ["linear_lowhet"], None, "small")]


@pytest.fixture(scope="module")
def small_sweep(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweep")
    result = sweep(CELLS, out, jobs=2)
    return out, result.per_seed, result.summary, result.ran


@pytest.mark.slow
def test_sweep_writes_per_seed_and_summary(small_sweep):
    out, per_seed, summary, ran = small_sweep
    assert ran == 6 and len(per_seed) == 6
    for column in ("generate_seconds", "fit_seconds", "score_seconds", "total_seconds",
                   "risk_prediction.auroc", "summary.composite"):
        assert column in per_seed.columns
    assert (per_seed.total_seconds > 0).all()
    assert set(summary.columns) >= {"n_seeds", "summary.auroc_mean", "summary.auroc_std",
                                    "summary.overall_mean", "summary.normalized_risk_mean",
                                    "total_seconds"}
    assert (out / "per_seed.csv").read_text() == per_seed.to_csv(index=False)
    assert json.loads((out / "sweep.json").read_text())["cells"] == 6
    rnd = summary[summary.model == "random"]
    assert (rnd["summary.overall_mean"].dropna() < 0.0).all()  # below the model-free floor
    fitted = summary[summary.model == "mbcnet_sign_constrained"]  # the states lift it
    assert fitted["summary.normalized_risk_mean"].mean() > 0.1  # above the floor
    direct = summary[summary.model == "logistic_direct"]  # the raw features do not
    assert (direct["summary.normalized_risk_mean"] < 0).all()


def test_sweep_resumes_without_recomputing(small_sweep):
    out, per_seed, _, _ = small_sweep
    stamps = {p: p.stat().st_mtime_ns for p in out.glob("cells/**/report.json")}
    again = sweep(CELLS, out, jobs=2)
    assert again.ran == 0 and again.regraded == 0
    assert stamps == {p: p.stat().st_mtime_ns for p in out.glob("cells/**/report.json")}
    pd.testing.assert_frame_equal(again.per_seed, per_seed)


@pytest.mark.slow
def test_plots_are_written_and_non_empty(small_sweep, tmp_path, capsys):
    out, _, _, _ = small_sweep
    assert main(["bench", "plots", "--inputdir", str(out), "--outdir", str(tmp_path)]) == 0
    assert f"wrote 5 figures to {tmp_path}: " in capsys.readouterr().out
    paths = sorted(tmp_path.iterdir())
    assert {p.name for p in paths} == {"scores_by_variant.png", "auroc_vs_r2.png",
                                       "conformity_per_intervention.png", "transfer_gap.png",
                                       "structure_sensitivity.png"}
    for p in paths:
        data = p.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000


def test_a_sweep_of_random_alone_has_no_conformity_figure(small_sweep, tmp_path):
    from icgbench.bench.plots import conformity_per_intervention  # matplotlib: 0.5 s

    _, per_seed, _, _ = small_sweep
    assert conformity_per_intervention(per_seed[per_seed.model == "random"], tmp_path) is None
    assert not list(tmp_path.iterdir())


def test_baselines_page_has_tables_and_tiers(small_sweep):
    out, _, summary, _ = small_sweep
    text = markdown(out)
    assert "## `misspecified_signs`" in text and "## Difficulty tiers and headroom" in text
    assert "synthetic" in text
    section = text[text.index("## `misspecified_signs`"):].splitlines()
    row = next(line for line in section if line.startswith("| logistic_direct"))
    auroc = summary[(summary.model == "logistic_direct")
                    & (summary.cohort == "misspecified_signs")]["summary.auroc_mean"].iloc[0]
    assert f"{auroc:.3f}" in row


def test_difficulty_tiers_follow_the_thresholds():
    assert [difficulty(x) for x in (0.9, 0.75, 0.6, 0.3, 0.1)] == [
        "calibration", "calibration", "standard", "advanced", "frontier"]


def test_bench_run_prints_one_json_document_with_timings(tmp_path, capsys):
    assert main(["bench", "run", "--cohort", "linear_lowhet", "--model", "logistic_direct",
                 "--outdir", str(tmp_path)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc["wall_clock_seconds"]) == {"generate", "fit", "predict", "write", "score",
                                              "total"}
    assert Path(doc["submission"]).is_file() and Path(doc["report"]).is_file()
    assert doc["summary"]["auroc"] > 0.6


@pytest.mark.slow  # refits the model once per state; the fast suite audits in test_seed_workflow
def test_bench_audit_lists_signs_and_relaxations(tmp_path, capsys):
    csv_path = tmp_path / "audit.csv"
    assert main(["bench", "audit", "--cohort", "misspecified_signs", "--model",
                 "mbcnet_sign_constrained", "--csv", str(csv_path)]) == 0
    out = capsys.readouterr().out
    assert f"wrote the audit to {csv_path}" in out
    audit = pd.read_csv(csv_path).set_index("state")
    assert (audit["fitted_sign"] == audit["prior_sign"]).all()  # the constraint holds
    flipped = audit[audit["prior_sign"] != audit["dgp_sign"]]
    assert len(flipped) == get_variant("misspecified_signs").n_flips
    # Relaxed, the data want the DGP's sign on each flipped state, and conformity rises.
    assert (np.sign(flipped["relaxed_coefficient"]) == flipped["dgp_sign"]).all()
    assert (flipped["change_dgp_conformity"] > 0).all()
    assert main(["bench", "audit", "--cohort", "linear_lowhet", "--model", "random"]) == 2


def test_unwritable_default_falls_back_to_a_temporary_folder(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "outputs").write_text("a file where the default folder would go")
    assert main(["bench", "run", "--cohort", "linear_lowhet", "--model", "random"]) == 0
    captured = capsys.readouterr()
    assert "writing to" in captured.err and "instead" in captured.err
    doc = json.loads(captured.out)
    assert not doc["submission"].startswith(str(tmp_path))
    assert os.path.isfile(doc["submission"])


@pytest.mark.slow
def test_demo_prints_the_table_and_where_files_went(tmp_path, capsys):
    assert main(["demo", "--outdir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "mbcnet_v0_1" in out and "random" in out and "responsive DGP conformity" in out
    assert out.strip().endswith(f"wrote the demo's submissions and reports to {tmp_path}")
    assert (tmp_path / "mbcnet_v0_1" / "report.json").is_file()
