import json
import subprocess
import sys

import pyarrow.parquet as pq
import pytest

from icgbench.cli import main
from icgbench.contract import table_names
from icgbench.generator import all_variants
from icgbench.release.freeze import PANEL_TABLE


def run_cli(*args: str) -> subprocess.CompletedProcess:
    """Run the real console entry point in a subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "icgbench", *args], capture_output=True, text=True, check=False
    )


def test_bench_list_text_and_json(capsys):
    assert main(["bench", "list"]) == 0
    out = capsys.readouterr().out
    for v in all_variants():
        assert v.name in out and v.variant_hash in out
    assert main(["bench", "list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in rows] == [v.name for v in all_variants()]
    assert all(set(r) == {"name", "variant_hash", "description"} for r in rows)


def test_bench_info_json_has_all_fields_and_the_reversal_candidates(capsys):
    assert main(["bench", "info", "misspecified_signs_v2", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["variant_hash"] == next(
        v.variant_hash for v in all_variants() if v.name == "misspecified_signs_v2"
    )
    assert info["sign_reversals"]["count"] == 2
    assert {"state": "immune_clearance", "prior_sign": -1} in info["sign_reversals"][
        "candidates"]
    assert main(["bench", "info", "linear_lowhet", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["sign_reversals"] == {"count": 0,
                                                                     "candidates": []}


def test_bench_info_text_names_the_candidates_not_a_cohorts_draw(capsys):
    assert main(["bench", "info", "misspecified_signs"]) == 0
    out = capsys.readouterr().out
    assert "each cohort reverses 1 of DNA_adducts (prior +1), immune_clearance (prior -1)" in out
    assert "->" not in out


def test_unknown_variant_is_exit_2_with_names():
    result = run_cli("bench", "info", "nope")
    assert result.returncode == 2
    assert "unknown variant 'nope'" in result.stderr
    assert "linear_lowhet" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.slow
def test_generate_writes_every_table_and_names_the_folder(tmp_path):
    """Every table but the model-free panel's (graded from all tables at once: a sharded
    cohort leaves it out)."""
    out = tmp_path / "cohort"
    result = run_cli("generate", "--variant", "nonlinear_obs", "--seed", "4",
                     "--n-subjects", "50", "--months", "12", "--out", str(out))
    assert result.returncode == 0, result.stderr
    tables = sorted(t for t in table_names() if t != PANEL_TABLE)
    assert result.stdout.strip().splitlines()[-1] == (
        f"wrote {len(tables)} tables in 1 shard(s) and cohort.json to {out}")
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == tables
    manifest = json.loads((out / "cohort.json").read_text())
    assert (manifest["variant"], manifest["seed"], manifest["frozen_release"]) == (
        "nonlinear_obs", 4, False)
    assert set(manifest["files"]) == {f"{t}/part-00000.parquet" for t in table_names()
                                      if t != PANEL_TABLE}
    assert set(manifest["tables"]) == set(tables)
    subjects = pq.read_table(out / "subjects")
    assert subjects.num_rows == manifest["tables"]["subjects"]["rows"] == 50
    months = set(pq.read_table(out / "observations")["visit_month"].to_pylist())
    assert months == {0, 6, 12}
    assert not [p for p in tmp_path.iterdir() if "staging" in p.name]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--variant", "linear_lowhet", "--seed", "-1"], "must not be negative"),
        (["--variant", "linear_lowhet", "--seed", "x"], "expected a whole number"),
        (["--variant", "linear_lowhet", "--seed", "1", "--n-subjects", "0"], "at least 1"),
        (["--variant", "linear_lowhet", "--seed", "1", "--n-subjects", "2"], "at least 3"),
        (["--variant", "linear_lowhet", "--seed", "1", "--months", "0"], "at least 1"),
        (["--variant", "bogus", "--seed", "1"], "registered variants"),
    ],
)
def test_generate_bad_arguments_exit_2_and_write_nothing(tmp_path, args, message, capsys):
    out = tmp_path / "never"
    try:
        code = main(["generate", *args, "--outdir", str(out)])
    except SystemExit as exc:  # argparse rejects the value itself
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


def test_generate_unwritable_folder_is_exit_2():
    # /proc refuses new entries even to root, so this holds on every Linux machine
    result = run_cli("generate", "--variant", "linear_lowhet", "--seed", "1",
                     "--n-subjects", "10", "--out", "/proc/icgbench-test/out")
    assert result.returncode == 2
    assert "cannot" in result.stderr
    assert "Traceback" not in result.stderr


def test_generate_into_a_file_path_is_exit_2(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    result = run_cli("generate", "--variant", "linear_lowhet", "--seed", "1",
                     "--n-subjects", "10", "--out", str(blocker / "out"))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert blocker.read_text() == "not a folder"


def test_package_runs_as_module():
    result = run_cli("--version")
    assert result.returncode == 0 and result.stdout.startswith("icgbench ")
