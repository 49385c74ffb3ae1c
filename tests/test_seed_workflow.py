"""Seed 000's commands as written: short model names, on-the-fly seeds, the example script."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from icgbench.cli import main
from icgbench.errors import UsageError
from icgbench.release.locate import source_root
from icgbench.release.tiers import UNFROZEN_NOTICE
from icgbench.release.unfrozen import simulate_release, unfrozen_tier

QUICK = ["--n-subjects", "200", "--months", "24"]  # the seed's sizes for quick runs


@pytest.fixture(scope="module")
def seed7(tmp_path_factory) -> Path:
    """The seed's `bench run --cohort linear_lowhet --variant v0_1 --seed 7`, quick sizes."""
    out = tmp_path_factory.mktemp("seed7")
    assert main(["bench", "run", "--cohort", "linear_lowhet", "--variant", "v0_1", "--seed",
                 "7", *QUICK, "--outdir", str(out)]) == 0
    return out


@pytest.mark.slow
def test_the_seeds_short_model_names_are_listed_and_accepted(capsys, seed7):
    with pytest.raises(SystemExit):
        main(["bench", "run", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    for alias, model in [("v0_1", "mbcnet_v0_1"), ("sign_constrained", "mbcnet_sign_constrained"),
                         ("sign_constrained_augmented", "mbcnet_sign_constrained_augmented")]:
        assert f"{alias} = {model}" in shown
    report = json.loads((seed7 / "report.json").read_text())
    assert report["model"]["name"] == "mbcnet_v0_1"


def test_an_unknown_model_name_is_a_usage_error_listing_the_aliases(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["bench", "run", "--cohort", "linear_lowhet", "--variant", "v0_2"])
    assert exc.value.code == 2
    assert "sign_constrained = mbcnet_sign_constrained" in capsys.readouterr().err


def test_a_seed_outside_the_release_runs_on_an_unfrozen_cohort(seed7):
    report = json.loads((seed7 / "report.json").read_text())
    assert (report["tier"], report["frozen"], report["notice"]) == (
        "unfrozen", False, UNFROZEN_NOTICE)
    assert report["seed"] == 7
    descriptor = json.loads((seed7 / "cohort" / "datapackage.json").read_text())
    assert descriptor["icgbench:frozen"] is False
    assert descriptor["icgbench:cohorts"][0]["sizes"] == {"train": 120, "test": 40,
                                                          "target_test": 40}
    assert descriptor["icgbench:cohorts"][0]["months"] == 24


def test_the_run_output_says_the_data_are_not_frozen(tmp_path, capsys):
    assert main(["bench", "run", "--cohort", "linear_lowhet", "--variant", "random",
                 "--seed", "0", *QUICK, "--outdir", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    shown = json.loads(captured.out)
    assert (shown["tier"], shown["frozen"], shown["notice"]) == ("unfrozen", False,
                                                                 UNFROZEN_NOTICE)
    assert UNFROZEN_NOTICE in captured.err  # sizes override even a frozen seed
    assert captured.err.rstrip().endswith(f"to {tmp_path}")


def test_a_frozen_cohort_stays_frozen(tmp_path, capsys):
    assert main(["bench", "run", "--cohort", "linear_lowhet", "--variant", "random",
                 "--outdir", str(tmp_path)]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert (shown["tier"], shown["frozen"]) == ("small", True) and "notice" not in shown
    assert not (tmp_path / "cohort").exists()


@pytest.mark.slow
def test_the_audit_runs_on_an_unfrozen_seed_and_says_so(capsys):
    assert main(["bench", "audit", "--variant", "sign_constrained", "--seed", "7",
                 *QUICK]) == 0  # the form; the cohort defaults to the seed's example
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("mbcnet_sign_constrained on linear_lowhet seed 7")
    assert UNFROZEN_NOTICE in first


def test_the_leaderboard_refuses_an_unfrozen_submission(seed7, tmp_path, capsys):
    board = tmp_path / "board"
    code = main(["leaderboard", "add", str(seed7 / "submission.json"), "--dir", str(board),
                 "--tier", "small"])
    out = capsys.readouterr().out
    assert code == 1
    assert '/tier: "unfrozen"' in out and "frozen release only" in out
    assert not (board / "leaderboard.json").exists()


def test_scoring_an_unfrozen_submission_needs_its_folder(seed7, tmp_path, capsys):
    assert main(["score", str(seed7 / "submission.json"), "--out", str(tmp_path / "r")]) == 1
    assert "--release DIR" in capsys.readouterr().out
    assert main(["score", str(seed7 / "submission.json"), "--release", str(seed7 / "cohort"),
                 "--out", str(tmp_path / "r.json")]) == 0
    assert f"NOTE: {UNFROZEN_NOTICE}" in capsys.readouterr().out


def test_the_responsive_threshold_is_settable_and_recorded(seed7, tmp_path, capsys):
    def graded(*extra: str) -> dict:
        out = tmp_path / f"r{len(extra)}.json"
        assert main(["score", str(seed7 / "submission.json"), "--release",
                     str(seed7 / "cohort"), "--out", str(out), *extra]) == 0
        return json.loads(out.read_text())["tasks"]["intervention_conformity"]

    default, strict = graded(), graded("--responsive-threshold", "1.0")
    assert default["details"]["responsive_threshold"] == 0.005
    assert strict["details"]["responsive_threshold"] == 1.0
    assert strict["metrics"]["responsive_dgp_conformity"] == 0.0  # no |delta| reaches 1
    assert default["metrics"]["responsive_dgp_conformity"] > 0.0
    assert "the board grades at 0.005" in capsys.readouterr().out


@pytest.mark.slow
def test_an_unfrozen_cohort_is_deterministic_and_never_replaces_a_release(tmp_path):
    tier = unfrozen_tier("misspecified_signs", 11, 60, 12)
    first = simulate_release(tier, tmp_path / "a").read_bytes()
    assert simulate_release(tier, tmp_path / "b").read_bytes() == first
    with pytest.raises(UsageError, match="frozen release"):
        simulate_release(tier, source_root())


def test_impossible_sizes_are_usage_errors(tmp_path, capsys):
    code = main(["bench", "run", "--cohort", "linear_lowhet", "--variant", "random",
                 "--n-subjects", "2", "--outdir", str(tmp_path)])
    assert code == 2
    assert "n_subjects must be at least 3" in capsys.readouterr().err


def _example(outdir: Path, *extra: str) -> subprocess.CompletedProcess:
    script = source_root() / "examples" / "run_icg_bench.py"
    return subprocess.run([sys.executable, str(script), str(outdir), *extra],
                          capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_the_example_script_writes_a_small_leaderboard(tmp_path):
    run = _example(tmp_path / "out", "--models", "random", "correlation", "--jobs", "1")
    assert run.returncode == 0, run.stderr
    board = json.loads((tmp_path / "out" / "leaderboard" / "leaderboard.json").read_text())
    entries = board["entries"] if isinstance(board, dict) else board
    assert len(entries) == 6  # 2 models x 3 variants
    assert run.stdout.rstrip().splitlines()[-1] == (
        f"wrote 6 runs to {tmp_path / 'out' / 'runs'} and the leaderboard to "
        f"{tmp_path / 'out' / 'leaderboard'}")
    assert main(["leaderboard", "verify", "--dir", str(tmp_path / "out" / "leaderboard"),
                 "--tier", "small"]) == 0


@pytest.mark.slow
def test_the_example_script_with_every_reference_model(tmp_path):
    run = _example(tmp_path / "out")
    assert run.returncode == 0, run.stderr
    assert "the leaderboard to" in run.stdout.splitlines()[-1]


def test_an_unfrozen_cohort_may_follow_its_subjects_for_one_month():
    from icgbench.release.unfrozen import unfrozen_tier

    assert unfrozen_tier("linear_lowhet", 7, n_subjects=10, months=1).months == 1
    with pytest.raises(ValueError, match="months must be at least 1, got 0"):
        unfrozen_tier("linear_lowhet", 7, n_subjects=10, months=0)
