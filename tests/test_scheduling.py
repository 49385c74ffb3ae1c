"""Where tasks run (scheduling.Runner): in this process, a process pool or a Dask cluster,
with the same outcomes, each task's exception kept as its outcome, and every resource closed.

The Dask cases start a real in-process cluster (threads, no worker processes) and connect to
it by its tcp:// address, as ``--scheduler tcp://HOST:PORT`` does; the LocalCluster of
``--scheduler local`` starts worker processes and is run by the slow sweep test.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys

import pytest

from conftest import require
from icgbench.errors import UsageError
from icgbench.scheduling import (
    DASK_HINT,
    Runner,
    _dask_client,
    add_scheduler_argument,
    run_tasks,
    scheduler_arg,
)


def _half(x: int) -> float:
    if x < 0:
        raise ValueError(f"negative: {x}")
    return x / 2


@pytest.mark.parametrize("text", ["processes", "local", "tcp://h:1", "tcp://10.0.0.1:8786"])
def test_a_well_formed_scheduler_is_taken_as_given(text):
    assert scheduler_arg(text) == text


def test_the_scheduler_option_names_its_tasks_and_folder():
    parser = argparse.ArgumentParser()
    add_scheduler_argument(parser, "cells", "OUTDIR")
    (action,) = [a for a in parser._actions if a.dest == "scheduler"]
    assert action.default == "processes" and action.type is scheduler_arg
    assert action.help.startswith("where cells run: processes (default), local")
    assert "workers see OUTDIR" in action.help
    assert parser.parse_args(["--scheduler", "local"]).scheduler == "local"


@pytest.mark.parametrize("jobs", [1, 2])
def test_outcomes_pair_each_item_with_its_result_or_its_exception(jobs):
    items = [4, -1, 6, 0]
    with Runner("processes", jobs=jobs) as runner:
        got = dict(runner.outcomes(_half, items))
        pooled = runner._pool is not None
    assert set(got) == set(items) and pooled == (jobs > 1)
    assert (got[4], got[6], got[0]) == (2.0, 3.0, 0.0)
    assert isinstance(got[-1], ValueError) and "negative: -1" in str(got[-1])


def test_one_item_runs_in_this_process_until_a_pool_exists():
    with Runner("processes", jobs=2) as runner:
        assert list(runner.outcomes(_half, [8])) == [(8, 4.0)]
        assert runner._pool is None
        assert sorted(runner.outcomes(_half, [2, 4])) == [(2, 1.0), (4, 2.0)]
        pool = runner._pool
        assert list(runner.outcomes(_half, [6])) == [(6, 3.0)]
        assert runner._pool is pool  # a live pool takes single tasks too
    with pytest.raises(RuntimeError, match="shutdown"):
        pool.submit(_half, 2)  # shut down on leaving


def test_run_tasks_yields_results_and_raises_the_first_failure():
    with run_tasks(_half, [2, 4], jobs=1) as results:
        assert sorted(results) == [1.0, 2.0]
    with pytest.raises(ValueError, match="negative: -3"), run_tasks(_half, [2, -3]) as results:
        list(results)


def test_a_missing_dask_is_a_usage_error_with_the_install_hint(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(UsageError) as exc:
        _dask_client("local", 2)
    assert str(exc.value) == f"--scheduler local needs dask.distributed: {DASK_HINT}"


@pytest.fixture(scope="module")
def cluster():
    require(importlib.util.find_spec("distributed") is not None, "dask.distributed",
            "pip install 'icgbench[dask]'")
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                      dashboard_address=":0") as c:
        yield c


@pytest.mark.slow
def test_a_dask_scheduler_gives_every_item_its_outcome(cluster):
    """Equal items included: each gets an outcome, an exception stays the item's outcome."""
    items = [4, 4, -1, 6]
    with Runner(cluster.scheduler_address, jobs=2) as runner:
        assert runner._client is not None and runner._cluster is None
        got = list(runner.outcomes(_half, items))
        client = runner._client
    assert sorted(i for i, _ in got) == sorted(items)
    assert sorted(r for i, r in got if i >= 0) == [2.0, 2.0, 3.0]
    (failure,) = [r for i, r in got if i < 0]
    assert isinstance(failure, ValueError) and "negative: -1" in str(failure)
    assert client.status == "closed"  # closed on leaving, the cluster left to its owner
    assert cluster.status.name == "running"


def test_run_tasks_on_a_dask_scheduler(cluster):
    with run_tasks(_half, [2, 6], cluster.scheduler_address, 2) as results:
        assert sorted(results) == [1.0, 3.0]
