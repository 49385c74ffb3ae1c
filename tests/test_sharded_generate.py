"""`icgbench generate` writes a partitioned dataset whose content ignores shards and workers."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

from icgbench import contract
from icgbench.api.cohort import Request, ShardJob, finish, plan, write_shard
from icgbench.cli import main
from icgbench.generator import get_variant, simulate
from icgbench.generator.blocks import split_blocks
from icgbench.generator.simulator import split_sizes
from icgbench.release.encode import conform
from icgbench.release.freeze import PANEL_TABLE
from icgbench.scheduling import run_tasks

VARIANT = "partial_observability"  # target site, masks on every modality
REQUEST = Request(VARIANT, 5, split_sizes(get_variant(VARIANT), 3000), 12, block_size=500)


def _write(folder: Path, shards: int, scheduler: str = "processes", jobs: int = 1) -> dict:
    folder.mkdir()
    work = [ShardJob(REQUEST, i, b, str(folder)) for i, b in enumerate(plan(REQUEST, shards))]
    with run_tasks(write_shard, work, scheduler, jobs) as results:
        return finish(folder, REQUEST, shards, list(results))


def _digests(manifest: dict) -> dict[str, str]:
    return {t: m["content_digest"] for t, m in manifest["tables"].items()}


def _table(folder: Path, name: str) -> pa.Table:
    return ds.dataset(folder / name, format="parquet").to_table()


@pytest.fixture(scope="module")
def one_shard(tmp_path_factory) -> tuple[Path, dict]:
    folder = tmp_path_factory.mktemp("sharded") / "one"
    return folder, _write(folder, 1)


def test_blocks_cover_each_split_once_in_order():
    blocks = split_blocks({"train": 1200, "test": 400, "target_test": 400}, 500)
    assert [(b.split, b.index, b.start, b.stop) for b in blocks] == [
        ("train", 0, 0, 500), ("train", 1, 500, 1000), ("train", 2, 1000, 1200),
        ("test", 0, 0, 400), ("target_test", 0, 0, 400)]


def test_shards_deal_contiguous_runs_of_blocks():
    shards = plan(REQUEST, 3)
    flat = [b for s in shards for b in s]
    assert flat == split_blocks(REQUEST.sizes, REQUEST.block_size)
    assert sorted(len(s) for s in shards) in ([2, 3, 3], [3, 3, 2], [2, 2, 4])
    with pytest.raises(ValueError, match="between 1 and 8"):
        plan(REQUEST, 9)


@pytest.mark.slow
def test_the_dataset_is_the_cohort_simulate_gives(one_shard):
    """Every table but the model-free panel's, which a sharded cohort leaves out."""
    folder, manifest = one_shard
    cohort = simulate(VARIANT, REQUEST.seed, sizes=REQUEST.sizes, months=REQUEST.months,
                      block_size=REQUEST.block_size)
    assert set(manifest["tables"]) == set(cohort.tables) - {PANEL_TABLE}
    assert not (folder / PANEL_TABLE).exists()
    for name, table in cohort.tables.items():
        if name == PANEL_TABLE:
            continue
        expected = conform(table, contract.table_schema(name), name)
        assert _table(folder, name).equals(expected), name
        assert manifest["tables"][name]["rows"] == table.num_rows


@pytest.mark.parametrize("shards", [3, 8])
def test_any_shard_count_gives_the_same_content(shards, one_shard, tmp_path):
    base, manifest = one_shard
    again = _write(tmp_path / "d", shards)
    assert _digests(again) == _digests(manifest)
    assert len(again["tables"]["observations"]["parts"]) == shards
    for name in ("observations", "test_states", "intervention_effects"):
        assert _table(tmp_path / "d", name).equals(_table(base, name)), name


def test_more_blocks_change_only_the_blocks_beyond_the_first(one_shard):
    """Block 0 keeps the streams of an unblocked split: the frozen cohorts stay as they were."""
    folder, _ = one_shard
    whole = simulate(VARIANT, REQUEST.seed, sizes=REQUEST.sizes, months=REQUEST.months)
    first = _table(folder, "subjects").slice(0, REQUEST.block_size)
    expected = conform(whole.tables["subjects"], contract.table_schema("subjects"), "subjects")
    assert first.equals(expected.slice(0, REQUEST.block_size))
    assert not _table(folder, "subjects").equals(expected)


def test_intervention_effects_sum_blocks_in_order(one_shard):
    folder, _ = one_shard
    cf = _table(folder, "counterfactual_risks").to_pandas()
    effects = _table(folder, "intervention_effects").to_pandas().set_index("intervention")
    for split, column in (("test", "mean_effect"), ("target_test", "mean_effect_target")):
        rows = cf[cf.split == split]
        for name, value in effects[column].items():
            unrounded = np.mean(rows[f"risk__{name}"].to_numpy() - rows["risk"].to_numpy())
            assert abs(value - unrounded) < 2e-6  # risks are published to 6 decimals


@pytest.mark.slow  # a LocalCluster starts worker processes; the fast cases write in-process
def test_a_real_dask_cluster_gives_the_same_content(one_shard, tmp_path):
    import distributed
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster:
        manifest = _write(tmp_path / "dask", 4, cluster.scheduler_address, 2)
    assert _digests(manifest) == _digests(one_shard[1])


@pytest.mark.slow
def test_the_cli_on_a_local_cluster_matches_one_shard(tmp_path, capsys):
    args = ["generate", "--variant", "linear_lowhet", "--seed", "2", "--n-subjects", "300",
            "--months", "12"]
    assert main([*args, "--outdir", str(tmp_path / "a")]) == 0
    assert main([*args, "--shards", "3", "--scheduler", "local", "--jobs", "2", "--outdir",
                 str(tmp_path / "b")]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    a, b = (json.loads((tmp_path / x / "cohort.json").read_text()) for x in "ab")
    assert out[-1] == (f"wrote {len(b['tables'])} tables in 3 shard(s) and cohort.json to "
                       f"{tmp_path / 'b'}")
    assert set(b["tables"]) == set(a["tables"]) >= {"prior_graph", "reachable_risks"}
    assert _digests(a) == _digests(b) and (a["shards"], b["shards"]) == (1, 3)
    for manifest, folder in ((a, tmp_path / "a"), (b, tmp_path / "b")):
        for rel, meta in manifest["files"].items():
            assert pq.read_metadata(folder / rel).num_rows == meta["rows"], rel


@pytest.mark.slow
def test_duckdb_and_dask_dataframe_read_the_dataset(one_shard):
    import dask.dataframe as dd
    import duckdb
    folder, manifest = one_shard
    (rows, events), = duckdb.sql(
        f"SELECT count(*), sum(event) FROM read_parquet('{folder}/train_outcomes/*.parquet')"
    ).fetchall()
    train = _table(folder, "train_outcomes")
    assert (rows, events) == (train.num_rows, pa.compute.sum(train["event"]).as_py())
    frame = dd.read_parquet(str(folder / "observations"))
    assert len(frame) == manifest["tables"]["observations"]["rows"]
    assert frame["visit_month"].max().compute() == REQUEST.months


def _calibration_spy(monkeypatch) -> list[tuple[str, int, dict]]:
    """Record every target-site recalibration: (calibration, rows, its stream's state).

    The calibration is named by the module and the number of columns it rescales (the
    measured host proxies, the KCC assays, the omics modules); the state is the stream's
    at the moment the gains and offsets are drawn from it, so two equal states are the same
    calibration.
    """
    from icgbench.generator import observation, population

    seen: list[tuple[str, int, dict]] = []
    for module in (population, observation):
        original = module.recalibrated

        def recalibrated(values, rng, *args, _original=original, _module=module.__name__):
            seen.append((f"{_module.rsplit('.', 1)[-1]}:{values.shape[-1]}", values.shape[0],
                         rng.bit_generator.state))
            return _original(values, rng, *args)

        monkeypatch.setattr(module, "recalibrated", recalibrated)
    return seen


@pytest.mark.slow
def test_every_shard_and_block_of_the_target_site_shares_one_calibration(tmp_path,
                                                                        monkeypatch):
    """A cohort of many target blocks, written in 3 shards as `icgbench generate --shards 3`
    does, is measured at one target site: its lab's gains and offsets (host proxies, assays,
    omics) are drawn once per cohort, not once per block or shard."""
    block = 40
    request = Request(VARIANT, 5, {"train": block, "test": block, "target_test": 3 * block},
                      6, block_size=block)
    seen = _calibration_spy(monkeypatch)  # (the reference populations' rows are not 40)
    shards = plan(request, 3)
    target_shards = {i for i, s in enumerate(shards) for b in s if b.split == "target_test"}
    assert len(target_shards) >= 2  # the target blocks are written by different shards
    folder = tmp_path / "three"
    folder.mkdir()
    jobs = [ShardJob(request, i, b, str(folder)) for i, b in enumerate(shards)]
    with run_tasks(write_shard, jobs) as results:
        finish(folder, request, len(jobs), list(results))
    calls = [(kind, state) for kind, rows, state in seen if rows == block]
    kinds = {kind for kind, _ in calls}
    assert len(kinds) == 3, kinds  # proxies, assays, omics
    for kind in kinds:
        states = [state for k, state in calls if k == kind]
        assert len(states) == 3, kind  # one per target block
        assert all(s == states[0] for s in states), f"{kind}: the calibration differs by block"


def _dies_on_the_second_shard(job: ShardJob) -> dict:
    """A worker that dies (as the kernel's OOM killer would end it) on shard 1."""
    import os

    if job.index == 1:
        os._exit(1)
    return write_shard(job)


def test_a_worker_that_dies_ends_generate_with_a_message_and_nothing_written(
        tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("icgbench.api.cohort.write_shard", _dies_on_the_second_shard)
    out = tmp_path / "out"
    code = main(["generate", "--variant", "linear_lowhet", "--seed", "1", "--n-subjects",
                 "300", "--months", "12", "--jobs", "2", "--shards", "2", "--outdir", str(out)])
    err = capsys.readouterr().err
    assert code == 1
    assert "a worker process died" in err and "Traceback" not in err
    assert not out.exists()
