"""Rankings across cohorts on the baselines page, from a small constructed sweep."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from icgbench.bench.baselines_doc import markdown
from icgbench.bench.normalize import rankings
from icgbench.bench.sweep import TIMINGS, summarize

RANDOM = {"risk_prediction.auroc": 0.5, "risk_prediction.auprc": 0.2,
          "latent_recovery.r2_mean": -1.0,
          "intervention_conformity.responsive_dgp_conformity": 0.5,
          "intervention_conformity.ate_mae": 0.1,
          "cross_host_generalization.auroc_target": 0.5,
          "structure_recovery.directed_f1": 0.1, "structure_recovery.orientation_score": 0.5}
BEST = {"risk_prediction.auroc": 1.0, "risk_prediction.auprc": 1.0,
        "latent_recovery.r2_mean": 1.0,
        "intervention_conformity.responsive_dgp_conformity": 1.0,
        "intervention_conformity.ate_mae": 0.0,
        "cross_host_generalization.auroc_target": 1.0,
        "structure_recovery.directed_f1": 1.0, "structure_recovery.orientation_score": 1.0}
RISK_HALF = {"risk_prediction.auroc": 0.75, "risk_prediction.auprc": 0.6}  # normalized 0.5
#: (model, oracle, metrics on cohort x, changes on cohort y); a missing metric: not attempted.
MODELS = [
    ("random", False, RANDOM, {}),
    ("a", False, {**RISK_HALF, "latent_recovery.r2_mean": 0.5,
                  "intervention_conformity.responsive_dgp_conformity": 0.75,
                  "intervention_conformity.ate_mae": 0.05,
                  "cross_host_generalization.auroc_target": 0.75}, {}),  # no structure
    ("b", False, {**RISK_HALF, "latent_recovery.r2_mean": 0.25,
                  "intervention_conformity.responsive_dgp_conformity": 1.0,
                  "intervention_conformity.ate_mae": 0.0,
                  "cross_host_generalization.auroc_target": 0.5,
                  "structure_recovery.directed_f1": 0.55,
                  "structure_recovery.orientation_score": 0.75}, {}),
    ("c", False, {"risk_prediction.auroc": 1.0, "risk_prediction.auprc": 1.0,
                  "cross_host_generalization.auroc_target": 1.0,
                  "structure_recovery.directed_f1": 1.0,
                  "structure_recovery.orientation_score": 1.0},
     {"cross_host_generalization.auroc_target": 0.75}),  # no latent, no intervention
    ("oracle", True, BEST, {}),
]


@pytest.fixture
def summary() -> pd.DataFrame:
    rows = []
    for model, oracle, metrics, on_y in MODELS:
        for cohort, changes in (("x", {}), ("y", on_y)):
            rows.append({"model": model, "cohort": cohort, "seed": 0, "tier": "small",
                         "oracle": oracle, **metrics, **changes,
                         **dict.fromkeys(TIMINGS, 1.0)})
    return summarize(pd.DataFrame(rows))


def test_rankings_average_over_cohorts_share_tied_ranks_and_skip_unattempted(summary):
    table = rankings(summary)
    assert list(table.index) == ["c", "b", "a", "random", "oracle"]
    assert table.loc["c", "transfer"] == pytest.approx(0.75)  # (1 + 0.5) / 2
    assert list(table.loc[["c", "a", "b", "random"], "risk_rank"]) == [1, 2, 2, 4]
    assert list(table.loc[["c", "a", "b", "random"], "transfer_rank"]) == [1, 2, 3, 3]
    for model, category in (("c", "latent"), ("c", "intervention"), ("a", "structure")):
        assert math.isnan(table.loc[model, category])
        assert pd.isna(table.loc[model, f"{category}_rank"])
    assert table.loc["random", "latent_rank"] == 3  # after a and b; c has no latent rank
    assert table.loc["c", "overall"] == pytest.approx((0.6 + 0.5) / 2)
    assert list(table.overall_rank.iloc[:4]) == [1, 2, 3, 4]
    assert table.loc["oracle", "overall"] == 1.0
    assert pd.isna(table.loc["oracle", "overall_rank"])


def test_baselines_page_shows_the_ranking_table(summary, tmp_path):
    summary.to_csv(tmp_path / "summary.csv", index=False)
    (tmp_path / "sweep.json").write_text(json.dumps(
        {"cells": 12, "failed": 2, "tiers": ["small"], "icgbench_version": "test",
         "calibrate_by": "shd"}))
    text = markdown(tmp_path)
    lines = text.splitlines()
    start = lines.index("## Rankings across all cohorts")
    assert start < lines.index("## `x`")
    table = lines[lines.index("| model | risk | latent | intervention | transfer | structure "
                              "| overall |"):]
    assert table[2] == "| c | 1.000 (1) | - | - | 0.750 (1) | 1.000 (1) | 0.550 (1) |"
    assert table[3] == ("| b | 0.500 (2=) | 0.250 (2) | 1.000 (1) | 0.000 (3=) | 0.500 (2) "
                        "| 0.450 (2) |")
    assert table[4] == ("| a | 0.500 (2=) | 0.500 (1) | 0.500 (2) | 0.500 (2) | - "
                        "| 0.400 (3) |")
    assert table[6].startswith("| oracle (reads the truth; not ranked) | 1.000 | ")
    assert "K* chosen on the calibration cohort by the lowest SHD" in text
    assert "**2 of 12 cells failed** and are left out of every table" in text
