"""The examples run from any folder, and say in one sentence where they looked when no
release is found (no traceback, no jsonlite lexical error on a missing datapackage.json)."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import require_tool
from icgbench.release import locate

#: The examples run from other folders: whole scripts, several seconds each (make test-slow).
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
R_EXAMPLES = ("read_release.R", "submit_glm.R")
R_HINT = "install r-base-core and r-cran-jsonlite"
#: What a failure must not show: R's and Python's error dumps, jsonlite's parser error.
NOISE = ("lexical error", "Error in", "Error:", "Execution halted", "Calls:", "Traceback")


def _env(**extra: str) -> dict[str, str]:
    """This process's environment without any variable that names a release."""
    env = {k: v for k, v in os.environ.items()
           if k not in (locate.RELEASE_ENV, locate.HOME_ENV, "ICGBENCH_ROOT")}
    return {**env, **extra}


def _one_sentence(stderr: str, script: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, f"{script} should say one sentence, not:\n{stderr}"
    assert not [n for n in NOISE if n in stderr], f"{script} printed an error dump:\n{stderr}"
    assert lines[0].startswith(f"{script}: "), lines[0]
    return lines[0]


def _rscript(script: Path, *args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    rscript = require_tool("Rscript", R_HINT)
    return subprocess.run([rscript, str(script), *args], cwd=cwd, env=_env(**env),
                          capture_output=True, text=True, check=False, timeout=180)


# --- R -----------------------------------------------------------------------------------------


def test_read_release_r_runs_from_another_folder(tmp_path):
    run = _rscript(ROOT / "examples" / "r" / "read_release.R", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "synthetic data" in run.stdout
    assert "sha256 OK: datasets/small/linear_lowhet/seed0/train_outcomes.csv.gz" in run.stdout
    assert run.stderr == ""
    assert list(tmp_path.iterdir()) == []  # it reads, it writes nothing


def test_submit_glm_r_runs_from_another_folder_and_writes_there(tmp_path):
    from icgbench.scorer import check_submission

    run = _rscript(ROOT / "examples" / "r" / "submit_glm.R", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    out = tmp_path / "r_glm_submission.json"
    assert run.stdout.strip().endswith("to r_glm_submission.json"), run.stdout
    assert sorted(check_submission(out).blocks) == ["cross_host_generalization", "risk_prediction"]


def test_an_r_example_finds_the_release_the_environment_names(tmp_path):
    """ICGBENCH_RELEASE wins over the working folder and the script's own repository."""
    release = tmp_path / "release"
    (release / "datasets").mkdir(parents=True)
    (release / "datasets" / "small").symlink_to(ROOT / "datasets" / "small")
    doc = json.loads((ROOT / "datapackage.json").read_text())
    doc["version"] = "0.0.0-copy"  # so the output shows which descriptor was read
    (release / "datapackage.json").write_text(json.dumps(doc))
    run = _rscript(ROOT / "examples" / "r" / "read_release.R", cwd=ROOT,
                   ICGBENCH_RELEASE=str(release))
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("ICg-Bench release 0.0.0-copy (small tier)"), run.stdout


@pytest.mark.parametrize("script", R_EXAMPLES)
def test_an_r_example_with_no_release_anywhere_says_where_it_looked(script, tmp_path):
    copy = tmp_path / "copy"  # the script outside any repository, run from another folder
    (copy / "examples" / "r").mkdir(parents=True)
    for name in (script, "find_release.R"):  # the example and the helper it sources
        shutil.copy(ROOT / "examples" / "r" / name, copy / "examples" / "r" / name)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run = _rscript(copy / "examples" / "r" / script, cwd=elsewhere)
    assert run.returncode == 2, run.stdout + run.stderr
    assert run.stdout == ""
    line = _one_sentence(run.stderr, script)
    assert line == (
        f"{script}: no ICg-Bench release found in {elsewhere.resolve()} or its parents, nor in "
        f"{copy.resolve()} (the repository this script sits in): pass the release root as "
        "the first argument, or set ICGBENCH_RELEASE to the folder holding the release's "
        "datapackage.json (the repository's root)")
    assert list(elsewhere.iterdir()) == []


@pytest.mark.parametrize("script", R_EXAMPLES)
def test_an_r_example_pointed_at_a_folder_without_a_release_names_it(script, tmp_path):
    (tmp_path / "datapackage.json").write_text("{not json")  # what jsonlite choked on
    run = _rscript(ROOT / "examples" / "r" / script, str(tmp_path), cwd=tmp_path)
    assert run.returncode == 2, run.stdout + run.stderr
    line = _one_sentence(run.stderr, script)
    assert line.startswith(f"{script}: {tmp_path} holds no ICg-Bench datapackage.json: pass "
                           "as RELEASE_ROOT the folder holding"), line
    run = _rscript(ROOT / "examples" / "r" / script, cwd=ROOT,
                   ICGBENCH_RELEASE=str(tmp_path / "missing"))
    assert run.returncode == 2, run.stdout + run.stderr
    line = _one_sentence(run.stderr, script)
    assert line.startswith(f"{script}: ICGBENCH_RELEASE={tmp_path / 'missing'} holds no "
                           "ICg-Bench datapackage.json: set it to the folder holding"), line
    assert line.endswith("or unset it"), line


# --- Python ------------------------------------------------------------------------------------


def _python_example(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "examples" / "run_icg_bench.py"), *args],
                          cwd=cwd, env=_env(**env), capture_output=True, text=True,
                          check=False, timeout=300)


def test_the_python_example_runs_from_another_folder(tmp_path):
    run = _python_example("out", "--models", "random", "--jobs", "1", cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    board = json.loads((tmp_path / "out" / "leaderboard" / "leaderboard.json").read_text())
    entries = board["entries"] if isinstance(board, dict) else board
    assert len(entries) == 3  # one model x 3 variants, under the folder it was run from
    assert run.stdout.rstrip().splitlines()[-1] == (
        "wrote 3 runs to out/runs and the leaderboard to out/leaderboard")


def test_the_python_example_names_a_release_root_that_holds_no_release(tmp_path):
    run = _python_example("out", "--root", str(tmp_path), cwd=tmp_path)
    assert run.returncode == 2, run.stdout + run.stderr
    assert _one_sentence(run.stderr, "run_icg_bench.py") == (
        f"run_icg_bench.py: --root {tmp_path} holds no ICg-Bench datapackage.json: pass the "
        "folder that holds the release's datapackage.json (the repository's root or an "
        "unpacked release)")
    run = _python_example("out", cwd=tmp_path, ICGBENCH_RELEASE=str(tmp_path / "missing"))
    assert run.returncode == 2, run.stdout + run.stderr
    line = _one_sentence(run.stderr, "run_icg_bench.py")
    assert line.startswith(f"run_icg_bench.py: ICGBENCH_RELEASE={tmp_path / 'missing'} does "
                           "not hold an ICg-Bench datapackage.json"), line
    assert not (tmp_path / "out").exists()


def test_the_python_example_with_no_release_anywhere_says_where_it_looked(
        tmp_path, monkeypatch, capsys):
    """In process: the example copied outside any repository, run from an empty folder,
    with the package's own checkout hidden from the locator."""
    copy = tmp_path / "copy"
    (copy / "examples").mkdir(parents=True)
    shutil.copy(ROOT / "examples" / "run_icg_bench.py", copy / "examples")
    spec = importlib.util.spec_from_file_location("run_icg_bench_copy",
                                                  copy / "examples" / "run_icg_bench.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    for variable in (locate.RELEASE_ENV, locate.HOME_ENV):
        monkeypatch.setenv(variable, "")  # unset to the locator, and restored afterwards
    monkeypatch.setattr(locate, "__file__", str(tmp_path / "a" / "b" / "c" / "locate.py"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert example.main(["out"]) == 2
    err = capsys.readouterr().err
    assert _one_sentence(err, "run_icg_bench.py") == (
        f"run_icg_bench.py: no ICg-Bench release found in {elsewhere.resolve()} or its "
        "parents, in the "
        f"checkout icgbench is installed from, or in {copy.resolve()} (the repository this "
        "script sits in): pass --root DIR or set ICGBENCH_RELEASE to the folder holding the "
        "release's datapackage.json")
    assert list(elsewhere.iterdir()) == []


@pytest.mark.slow
def test_the_python_example_fits_its_documented_default_models(tmp_path):
    """With no --models: the four quick references (FAST_MODELS) on three cohorts, a board
    of twelve entries, and no progress bar when the output is not a terminal."""
    run = _python_example("out", cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    board = json.loads((tmp_path / "out" / "leaderboard" / "leaderboard.json").read_text())
    models = sorted({e["model_name"] for e in board["entries"]})
    assert models == sorted(["random", "logistic_direct", "panel_regression", "mbcnet_v0_1"])
    assert len(board["entries"]) == 12
    assert "fitting" not in run.stderr  # progress is drawn on a terminal only
