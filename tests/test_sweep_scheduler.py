"""A sweep on Dask (a real LocalCluster) gives the process-based sweep's results."""

from __future__ import annotations

import importlib.util
import os
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pandas as pd
import pytest

from conftest import require
from icgbench.bench.sweep import TIMINGS, grid, sweep
from icgbench.cli import main
from icgbench.scheduling import Runner, run_tasks

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


@pytest.mark.parametrize("scheduler", ["slurm", "slurm-cluster", "tcp://", "http://h:1",
                                       "TCP://h:1", "local "])
def test_a_malformed_scheduler_is_refused_before_anything_runs(scheduler, tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["bench", "sweep", "--scheduler", scheduler, "--outdir", str(tmp_path / "out")])
    assert exc.value.code == 2
    assert (f"expected processes, local or tcp://HOST:PORT, got {scheduler!r}"
            in capsys.readouterr().err)
    assert not (tmp_path / "out").exists()


DIES = 3  # the item whose worker dies, the first time it runs


def _square_but_die_the_first_time(item: tuple[int, str]) -> int:
    """``value ** 2``; the worker running item ``DIES`` dies abruptly (no exception, no
    clean-up) unless the marker file says it has died once already."""
    value, marker = item
    if value == DIES and not os.path.exists(marker):
        Path(marker).touch()
        os._exit(1)
    return value * value


def test_a_worker_that_dies_fails_its_batch_cleanly_and_the_next_batch_runs(tmp_path):
    """Runner.outcomes reports every task of a batch whose worker died (the dead worker's
    task as an exception, never a hang or a crash of the caller), and the runner starts a
    fresh pool for the next batch, as a sweep's calibration and main batches need."""
    marker = str(tmp_path / "died")
    items = [(i, marker) for i in range(8)]
    with Runner("processes", jobs=2) as runner:
        first = list(runner.outcomes(_square_but_die_the_first_time, items))
        assert os.path.exists(marker)  # the worker did die
        assert sorted(item for item, _ in first) == items  # every task reported, once
        outcome = dict(first)
        assert isinstance(outcome[items[DIES]], BrokenProcessPool)
        for (value, _), result in first:
            assert result == value * value or isinstance(result, BrokenProcessPool)
        again = list(runner.outcomes(_square_but_die_the_first_time, items))
        assert sorted(again) == [(item, item[0] ** 2) for item in items]
        third = list(runner.outcomes(_square_but_die_the_first_time, items[:1]))
        assert third == [(items[0], 0)]


def test_run_tasks_raises_the_dead_workers_failure_instead_of_hanging(tmp_path):
    items = [(i, str(tmp_path / "died")) for i in range(6)]
    with pytest.raises(BrokenProcessPool), \
            run_tasks(_square_but_die_the_first_time, items, jobs=2) as results:
        list(results)
    with run_tasks(_square_but_die_the_first_time, items, jobs=2) as results:
        assert sorted(results) == [i * i for i in range(6)]
