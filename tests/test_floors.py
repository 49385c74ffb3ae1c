"""Floors chosen without hindsight on any one cohort (icgbench.model_free.floors).

Per variant and normalized metric, one answer: the best over the variant's cohorts of the
board's tier, marked in every cohort's ``model_free_scores`` of every open tier and shipped
in ``floor_choices.json``. A floor is never the best of many answers graded on its cohort
alone."""

from __future__ import annotations

import json
import types
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import ROOT
from icgbench.api.tables import tier_descriptor
from icgbench.model_free import floors
from icgbench.model_free.panel import CHANCE, ON_TRAIN, Row, chosen_on_train
from icgbench.tasks.normalized import parts_of_categories


def _tables(tier: str) -> dict[tuple[str, int], pa.Table]:
    d = tier_descriptor(tier, ROOT)
    return {(r.variant, r.seed): pq.read_table(d.base / r.path) for r in d.resources
            if r.table == "model_free_scores" and r.format == "parquet"}


@pytest.fixture(scope="module")
def full(full_tier_root) -> dict[tuple[str, int], pa.Table]:
    return _tables("full")


def test_the_shipped_choices_are_the_best_answers_over_the_board_tiers_cohorts(full):
    rows = {c: floors.rows_from_table(t) for c, t in full.items()}
    assert floors.variant_choices(rows) == floors.shipped_choices()


@pytest.mark.parametrize("tier", ["full", "small"])
def test_every_cohort_marks_its_variants_one_floor_per_metric(tier, full):
    tables = full if tier == "full" else _tables(tier)
    parts = {f"{t}/{m}" for ps in parts_of_categories().values() for t, m in ps}
    for (variant, seed), table in tables.items():
        marked = {f"{r['task']}/{r['metric']}": r["answer"] for r in table.to_pylist()
                  if r["floor"]}
        assert sum(table.column("floor").to_pylist()) == len(marked), (variant, seed)
        assert set(marked) == parts
        assert marked == floors.shipped_choices()[variant], (variant, seed)


def test_a_floor_is_not_the_best_answer_on_its_cohort_in_hindsight(full):
    """On some cohorts another answer beats the floor on the test split (the choice is
    the variant's, not the cohort's): a floor chosen per cohort in hindsight never would."""
    from icgbench.tasks.normalized import higher_is_better

    beaten = 0
    for table in full.values():
        rows = table.to_pylist()
        for r in (r for r in rows if r["floor"]):
            sign = 1 if higher_is_better((r["task"], r["metric"])) else -1
            beaten += any(sign * (o["value"] - r["value"]) > 0 for o in rows
                          if (o["task"], o["metric"]) == (r["task"], r["metric"]))
    assert beaten > len(full)


def test_the_choice_on_the_train_split_is_an_answer_of_the_panel():
    rows = [Row("a", "risk_prediction", "spearman_reachable", 0.7, 0.80),
            Row("b", "risk_prediction", "spearman_reachable", 0.9, 0.79),
            Row("c", "risk_prediction", "spearman_reachable", 0.5, 0.80),
            Row("d", "intervention_conformity", "pehe", 0.1, None)]
    (row,) = chosen_on_train(rows)
    assert (row.answer, row.value, row.selection) == (ON_TRAIN, 0.7, 0.80)  # first of ties


def test_the_chance_level_and_ties_follow_the_panels_order():
    rows = {("v", s): [Row("x", "latent_recovery", "r2_mean", 0.5, None),
                       Row("y", "latent_recovery", "r2_mean", 0.5, None),
                       Row(CHANCE, "latent_recovery", "r2_mean", 0.0, None)]
            for s in (1, 2)}
    assert floors.variant_choices(rows) == {"v": {"latent_recovery/r2_mean": "x"}}
    chosen = floors.choose(rows, board=False, shipped={"v": {"latent_recovery/r2_mean": "y"}})
    assert chosen[("v", 1)] == {("latent_recovery", "r2_mean"): "y"}
    table = floors.table(rows[("v", 1)], {("latent_recovery", "r2_mean"): "gone"})
    assert table.column("floor").to_pylist() == [False, False, True]  # unknown -> chance


def test_rewriting_the_choices_is_what_the_process_reads_next(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch):
    """Choices rewritten by ``write_choices`` (``python -m icgbench.model_free.shipped
    --floors``) are what the same process reads next, not the cached old ones. The shipped
    file is redirected to a temporary folder."""
    monkeypatch.setattr(floors, "__file__", str(tmp_path / "floors.py"))
    monkeypatch.setattr(floors, "resources", types.SimpleNamespace(files=lambda _: tmp_path))
    old = {"v": {"latent_recovery/r2_mean": CHANCE}}
    new = {"v": {"latent_recovery/r2_mean": ON_TRAIN}}
    (tmp_path / floors.FLOOR_CHOICES).write_text(json.dumps(old), encoding="utf-8")
    floors.shipped_choices.cache_clear()
    try:
        assert floors.shipped_choices() == old
        assert floors.write_choices(new) == tmp_path / floors.FLOOR_CHOICES
        assert floors.shipped_choices() == new
        assert json.loads((tmp_path / floors.FLOOR_CHOICES).read_text()) == new
    finally:
        floors.shipped_choices.cache_clear()  # the next reader gets the real file again
