"""A sweep on Dask (a real LocalCluster) gives the process-based sweep's results."""

from __future__ import annotations

import importlib.util

import pandas as pd
import pytest

from conftest import require
from icgbench.bench.sweep import TIMINGS, grid, sweep
from icgbench.cli import main

COHORTS = ["linear_lowhet", "misspecified_signs"]  # the first is the calibration cohort
MODELS = ["random", "correlation"]


def _measured(outdir) -> pd.DataFrame:
    per_seed = pd.read_csv(outdir / "per_seed.csv")
    return per_seed.drop(columns=[c for c in TIMINGS if c in per_seed])


@pytest.mark.slow
def test_a_sweep_on_a_local_cluster_equals_the_process_sweep_and_resumes(tmp_path):
    require(importlib.util.find_spec("distributed") is not None, "dask.distributed",
            "pip install 'icgbench[dask]'")
    cells = grid(MODELS, COHORTS, None, "small")
    serial = sweep(cells, tmp_path / "processes", jobs=1)
    on_dask = sweep(cells, tmp_path / "dask", jobs=2, scheduler="local")
    assert on_dask.ran == serial.ran == len(cells)
    pd.testing.assert_frame_equal(_measured(tmp_path / "dask"),
                                  _measured(tmp_path / "processes"))
    again = sweep(cells, tmp_path / "dask", jobs=2, scheduler="local")
    assert again.ran == 0 and again.regraded == 0


@pytest.mark.slow  # the Dask client waits its 10 s timeout
def test_an_unreachable_scheduler_is_a_usage_error(tmp_path, capsys):
    code = main(["bench", "sweep", "--models", "random", "--cohorts", "linear_lowhet",
                 "--scheduler", "tcp://127.0.0.1:9", "--outdir", str(tmp_path / "out")])
    assert code == 2
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in capsys.readouterr().err


def test_a_malformed_scheduler_is_refused_before_anything_runs(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["bench", "sweep", "--scheduler", "slurm", "--outdir", str(tmp_path / "out")])
    assert exc.value.code == 2
    assert "expected processes, local or tcp://HOST:PORT, got 'slurm'" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
