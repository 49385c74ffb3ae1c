"""A sweep survives a failing cell, reruns it, and calibrates structure by F1 or by SHD."""

from __future__ import annotations

import json
from dataclasses import replace

import pandas as pd
import pytest

from icgbench.bench.sweep import FAILED, FAILURES, FINISHED, grid, k_star, sweep
from icgbench.cli import main
from icgbench.models import DECLARATIONS, MODELS
from icgbench.tasks.graph_metrics import ScoredGraph, sensitivity_curve, true_matrix

COHORTS = ["linear_lowhet", "misspecified_signs"]  # the first is the calibration cohort


@pytest.fixture
def fits(monkeypatch):
    """Count correlation's fits and make it raise on the cohorts listed in ``fits.failing``."""
    model = MODELS["correlation"]
    original = model.fit
    calls: list[str] = []

    def fit(self, data):
        calls.append(data.variant)
        if data.variant in fit.failing:
            raise RuntimeError(f"singular matrix\n  on {data.variant}")
        return original(self, data)

    fit.failing = set()
    fit.calls = calls
    monkeypatch.setattr(model, "fit", fit)
    return fit


@pytest.mark.slow
def test_a_failing_cell_is_recorded_the_rest_finish_and_a_rerun_retries_it(tmp_path, fits):
    fits.failing = {"misspecified_signs"}
    cells = grid(["random", "correlation"], COHORTS, None, "small")
    result = sweep(cells, tmp_path, jobs=1)
    assert result.ran == 4
    assert [(f.model, f.cohort, f.seed, f.error_type, f.error) for f in result.failures] == [
        ("correlation", "misspecified_signs", 0, "RuntimeError",
         "singular matrix on misspecified_signs")]
    failures = pd.read_csv(tmp_path / FAILURES)
    assert failures.to_dict("records") == [
        {"model": "correlation", "cohort": "misspecified_signs", "seed": 0, "tier": "small",
         "error_type": "RuntimeError", "error": "singular matrix on misspecified_signs"}]
    folder = cells[3].folder(tmp_path)
    assert cells[3].model == "correlation" and cells[3].cohort == "misspecified_signs"
    recorded = json.loads((folder / FAILED).read_text())
    assert recorded["error_type"] == "RuntimeError"
    assert any("singular matrix" in line for line in recorded["traceback"])
    assert not (folder / FINISHED).exists()
    per_seed = pd.read_csv(tmp_path / "per_seed.csv")
    assert len(per_seed) == 3 and ("correlation", "misspecified_signs") not in set(
        zip(per_seed.model, per_seed.cohort, strict=True))
    assert len(pd.read_csv(tmp_path / "summary.csv")) == 3
    manifest = json.loads((tmp_path / "sweep.json").read_text())
    assert (manifest["cells"], manifest["failed"]) == (4, 1)

    fits.failing = set()
    again = sweep(cells, tmp_path, jobs=1)
    assert again.ran == 1 and again.failures == []
    assert not (folder / FAILED).exists() and (folder / FINISHED).is_file()
    assert len(again.per_seed) == 4
    assert pd.read_csv(tmp_path / FAILURES).empty


@pytest.mark.slow
def test_a_failed_calibration_cell_leaves_the_model_uncalibrated_until_a_rerun(tmp_path, fits):
    fits.failing = {"linear_lowhet"}
    cells = grid(["correlation"], COHORTS, None, "small")
    first = sweep(cells, tmp_path, jobs=1)
    assert [f.cohort for f in first.failures] == ["linear_lowhet"]
    row = first.per_seed.iloc[0]
    assert row.cohort == "misspecified_signs"
    assert row["structure_recovery.calibrated"] == 0
    assert row["structure_recovery.calibrate_by"] == "f1"
    report = json.loads((cells[1].folder(tmp_path) / "report.json").read_text())
    assert row["structure_recovery.k"] == report["tasks"]["structure_recovery"]["details"][
        "best_k_in_sample"]

    fits.failing = set()
    fits.calls.clear()
    second = sweep(cells, tmp_path, jobs=1)
    assert second.failures == [] and second.ran == 1
    assert fits.calls == ["linear_lowhet"]  # the other cell is re-scored, not refitted
    assert second.regraded == 1
    k = second.k_stars["correlation"]["f1"]
    rows = second.per_seed.set_index("cohort")
    assert (rows["structure_recovery.k"] == k).all()
    assert (rows["structure_recovery.calibrated"] == 1).all()


def test_all_cells_failing_still_writes_the_tables(tmp_path, fits, capsys):
    fits.failing = {"linear_lowhet"}
    result = sweep(grid(["correlation"], COHORTS[:1], None, "small"), tmp_path, jobs=1)
    assert len(result.failures) == 1 and result.per_seed.empty and result.summary.empty
    for name in ("per_seed.csv", "summary.csv", FAILURES, "sweep.json"):
        assert (tmp_path / name).is_file()
    assert json.loads((tmp_path / "sweep.json").read_text())["failed"] == 1
    capsys.readouterr()
    for argv in (["bench", "plots", "--inputdir", str(tmp_path), "--outdir",
                  str(tmp_path / "figures")],
                 ["bench", "baselines", "--inputdir", str(tmp_path), "--out",
                  str(tmp_path / "b.md")]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert "no finished cells" in err and "Traceback" not in err
    assert not (tmp_path / "b.md").exists() and not (tmp_path / "figures").exists()


def test_cli_sweep_exits_1_and_says_how_many_cells_failed(tmp_path, fits, capsys):
    fits.failing = {"misspecified_signs"}
    code = main(["bench", "sweep", "--models", "correlation", "--cohorts", *COHORTS,
                 "--outdir", str(tmp_path), "--jobs", "1"])
    captured = capsys.readouterr()
    assert code == 1
    assert "Traceback" not in captured.err
    assert ("correlation on misspecified_signs seed 0 failed: RuntimeError: singular matrix "
            "on misspecified_signs") in captured.err
    assert captured.err.strip().splitlines()[-1] == (
        f"icgbench: 1 of 2 cells failed; see {tmp_path / FAILURES}")
    assert "wrote per_seed.csv" in captured.out


def _without_its_dependency(monkeypatch, model: str) -> None:
    """Make ``model`` declare a module that is not installed (from the extra discovery)."""
    declared = replace(DECLARATIONS[model], requires=("icgbench_no_such_module",),
                       extra="discovery")
    monkeypatch.setitem(DECLARATIONS, model, declared)


def test_a_named_model_without_its_dependency_is_a_usage_error(tmp_path, monkeypatch, capsys):
    _without_its_dependency(monkeypatch, "correlation")
    out = tmp_path / "sweep"
    code = main(["bench", "sweep", "--models", "random", "correlation", "--cohorts",
                 "linear_lowhet", "--outdir", str(out), "--jobs", "1"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert "correlation needs the icgbench_no_such_module module: pip install " \
           "'icgbench[discovery]'" in err
    assert not out.exists()


def test_the_default_sweep_leaves_out_a_model_without_its_dependency(tmp_path, monkeypatch,
                                                                    capsys):
    _without_its_dependency(monkeypatch, "correlation")
    monkeypatch.setattr("icgbench.cli.bench.competitors", lambda: ["random", "correlation"])
    code = main(["bench", "sweep", "--cohorts", "linear_lowhet", "--outdir", str(tmp_path),
                 "--jobs", "1"])
    err = capsys.readouterr().err
    assert code == 0
    notes = [line for line in err.splitlines() if "left out of the sweep" in line]
    assert len(notes) == 1 and "correlation needs the icgbench_no_such_module" in notes[0]
    assert set(pd.read_csv(tmp_path / "per_seed.csv").model) == {"random"}


def _curve(order: list[str]) -> dict[str, list[float]]:
    """The sensitivity curve of edges ranked in ``order`` ('+' true, '-' false) against the
    chain n0 -> n1 -> n2 -> n3 (three true edges)."""
    nodes = [f"n{i}" for i in range(8)]
    true = [(f"n{i}", f"n{i + 1}") for i in range(3)]
    wrong = iter([("n4", "n5"), ("n5", "n6"), ("n6", "n7"), ("n4", "n7")])
    correct = iter(true)
    edges = [next(correct) if mark == "+" else next(wrong) for mark in order]
    scores = [float(len(edges) - i) for i in range(len(edges))]
    graph = ScoredGraph.from_edges(nodes, [s for s, _ in edges], [t for _, t in edges], scores)
    return sensitivity_curve(graph, true_matrix(nodes, true), k_max=10)


def test_shd_k_star_differs_from_the_f1_k_star_where_it_should():
    curve = _curve(["+", "-", "-", "-", "+", "+"])
    # K=1: F1 0.5, SHD 2; K=6: F1 2/3, SHD 3; SHD is lowest (2) at K=1 only
    assert k_star(curve, "f1") == 6
    assert k_star(curve, "shd") == 1
    same = _curve(["+", "+", "+", "-"])  # both agree on K=3 (F1 1, SHD 0)
    assert k_star(same, "f1") == k_star(same, "shd") == 3
    tie = _curve(["+", "-", "+"])  # SHD 2 at K=1 and at K=3: the smallest K wins
    assert k_star(tie, "shd") == 1


@pytest.mark.slow
def test_structure_sensitivity_marks_both_k_stars_and_writes_a_png(tmp_path):
    from icgbench.bench.plots import structure_sensitivity  # matplotlib: 0.5 s

    curves = {"a": _curve(["+", "-", "-", "-", "+", "+"]), "b": _curve(["+", "+", "+", "-"])}
    path = structure_sensitivity(curves, "constructed", tmp_path, by="shd")
    assert path == tmp_path / "structure_sensitivity.png"
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_calibrating_by_shd_is_recorded_and_grades_at_the_shd_k_star(tmp_path):
    cells = grid(["correlation"], COHORTS[:1], None, "small")
    result = sweep(cells, tmp_path, jobs=1, calibrate_by="shd")
    stars = result.k_stars["correlation"]
    assert stars["shd"] != stars["f1"]
    row = pd.read_csv(tmp_path / "per_seed.csv").iloc[0]
    assert row["structure_recovery.k"] == stars["shd"]
    assert row["structure_recovery.calibrate_by"] == "shd"
    manifest = json.loads((tmp_path / "sweep.json").read_text())
    assert manifest["calibrate_by"] == "shd"
    assert manifest["calibration"]["k_star"]["correlation"] == stars
    report = json.loads((cells[0].folder(tmp_path) / "report.json").read_text())
    assert report["tasks"]["structure_recovery"]["metrics"]["k"] == stars["shd"]
    assert sweep(cells, tmp_path, jobs=1, calibrate_by="f1").per_seed.iloc[0][
        "structure_recovery.k"] == stars["f1"]  # switching back re-scores at the F1 K*


@pytest.mark.slow
def test_a_worker_that_dies_mid_sweep_fails_its_cells_and_the_sweep_goes_on(
        tmp_path, monkeypatch, capsys):
    """`bench sweep --jobs 2`: the worker fitting correlation on the calibration cohort dies
    (killed, as by the kernel's out-of-memory killer). The cells of that batch are recorded
    as failed, the next batch runs on fresh workers, the command exits 1 without a
    traceback, and a rerun finishes every cell."""
    import os

    model = MODELS["correlation"]
    original = model.fit
    marker = tmp_path / "died"

    def fit(self, data):
        if data.variant == COHORTS[0] and not marker.exists():
            marker.touch()
            os._exit(1)
        return original(self, data)

    monkeypatch.setattr(model, "fit", fit)
    out = tmp_path / "sweep"
    argv = ["bench", "sweep", "--models", "random", "correlation", "--cohorts", *COHORTS,
            "--outdir", str(out), "--jobs", "2"]
    code = main(argv)
    captured = capsys.readouterr()
    assert marker.exists()  # the worker did die
    assert code == 1 and "Traceback" not in captured.err
    failures = pd.read_csv(out / FAILURES)
    assert set(failures.error_type) == {"BrokenProcessPool"}
    failed = set(zip(failures.model, failures.cohort, strict=True))
    assert ("correlation", COHORTS[0]) in failed  # the dead worker's cell
    assert failed <= {(m, COHORTS[0]) for m in ("random", "correlation")}  # its batch only
    per_seed = pd.read_csv(out / "per_seed.csv")
    done = set(zip(per_seed.model, per_seed.cohort, strict=True))
    assert {(m, COHORTS[1]) for m in ("random", "correlation")} <= done  # on fresh workers
    # random's cell of the dead batch fails with it unless it finished first (a busy
    # machine decides which): either way every cell is accounted for exactly once
    assert not done & failed and len(done) + len(failed) == 4 == len(per_seed) + len(failures)
    assert f"{len(failures)} of 4 cells failed" in captured.err

    assert main(argv) == 0  # the rerun retries the failed cells only
    capsys.readouterr()
    per_seed = pd.read_csv(out / "per_seed.csv")
    assert len(per_seed) == 4 and pd.read_csv(out / FAILURES).empty
    assert (per_seed[per_seed.model == "correlation"]["structure_recovery.calibrated"]
            == 1).all()
