"""Rankings across cohorts and tiers on the baselines page, from a constructed sweep whose
rows carry each normalized metric's score, floor and ceiling (what score reports carry)."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from icgbench.bench.baselines_doc import markdown
from icgbench.bench.normalize import rankings, variant_overall
from icgbench.bench.sweep import TIMINGS, summarize
from icgbench.tasks.normalized import higher_is_better, parts_of_categories


def _scores(**categories: float) -> dict[str, float]:
    """A sweep row whose every normalized metric of a category scores ``value`` between a
    floor 0 and a ceiling 1 (turned around for a lower-is-better metric), so that the
    category's normalized score is ``value``; a category left out was not attempted."""
    row: dict[str, float] = {}
    for category, value in categories.items():
        for task, metric in parts_of_categories()[category]:
            higher = higher_is_better((task, metric))
            column = f"{task}.{metric}"
            row[column] = value if higher else 1.0 - value
            row[column + "__floor"] = 0.0 if higher else 1.0
            row[column + "__ceiling"] = 1.0 if higher else 0.0
    return row


#: (model, oracle, scores on cohort x, scores on cohort y).
MODELS = [
    ("random", False, _scores(risk=0.0, latent=0.0, intervention=0.0, transfer=0.0,
                              structure=0.0), None),
    ("a", False, _scores(risk=0.5, latent=0.5, intervention=0.5, transfer=0.5), None),
    ("b", False, _scores(risk=0.5, latent=0.25, intervention=1.0, transfer=0.0,
                         structure=0.5), None),
    ("c", False, _scores(risk=1.0, transfer=1.0, structure=1.0),
     _scores(risk=1.0, transfer=0.5, structure=1.0)),  # no latent, no intervention
    ("oracle", True, _scores(risk=1.0, latent=1.0, intervention=1.0, transfer=1.0,
                             structure=1.0), None),
]


@pytest.fixture
def per_seed() -> pd.DataFrame:
    rows = []
    for model, oracle, on_x, on_y in MODELS:
        for cohort, scores in (("x", on_x), ("y", on_y or on_x)):
            rows.append({"model": model, "cohort": cohort, "seed": 0, "tier": "small",
                         "oracle": oracle, **scores, **dict.fromkeys(TIMINGS, 1.0)})
    return pd.DataFrame(rows)


def test_rankings_average_over_cohorts_share_tied_ranks_and_skip_unattempted(per_seed):
    table = rankings(per_seed)
    assert list(table.index) == ["c", "b", "a", "random", "oracle"]
    assert table.loc["c", "transfer"] == pytest.approx(0.75)  # (1 + 0.5) / 2
    assert list(table.loc[["c", "a", "b", "random"], "risk_rank"]) == [1, 2, 2, 4]
    assert list(table.loc[["c", "a", "b", "random"], "transfer_rank"]) == [1, 2, 3, 3]
    for model, category in (("c", "latent"), ("c", "intervention"), ("a", "structure")):
        assert math.isnan(table.loc[model, category])
        assert pd.isna(table.loc[model, f"{category}_rank"])
    assert table.loc["random", "latent_rank"] == 3  # after a and b; c has no latent rank
    assert table.loc["c", "overall"] == pytest.approx((0.6 + 0.5) / 2)  # 0 for 2 categories
    assert list(table.overall_rank.iloc[:4]) == [1, 2, 3, 4]
    assert table.loc["oracle", "overall"] == 1.0
    assert pd.isna(table.loc["oracle", "overall_rank"])


def test_baselines_page_shows_the_ranking_table(per_seed, tmp_path):
    per_seed.to_csv(tmp_path / "per_seed.csv", index=False)
    summarize(per_seed).to_csv(tmp_path / "summary.csv", index=False)
    (tmp_path / "sweep.json").write_text(json.dumps(
        {"cells": 12, "failed": 2, "tiers": ["small"], "icgbench_version": "test",
         "calibrate_by": "shd", "cell_seconds_total": 600.0}))
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
    assert "## Difficulty tiers and headroom" in text
    tiers = lines[lines.index("## Difficulty tiers and headroom"):]
    row = next(line for line in tiers if line.startswith("| `x` |"))
    assert row.startswith("| `x` | calibration (1.00, headroom 0.00, c) | standard (0.50, "
                          "headroom 0.50, a) | calibration (1.00, headroom 0.00, b) |")
    assert "K* chosen on the calibration cohort by the lowest SHD" in text
    assert "**2 of 12 cells failed** and are left out of every table" in text
    assert "Cell time in all: 10 core-minutes." in text


def test_difficulty_tiers_keep_the_sweeps_cohort_order(per_seed):
    """The difficulty table lists cohorts in the order the sweep ran them, not sorted."""
    from icgbench.bench.normalize import difficulty_tiers

    backwards = per_seed.sort_values("cohort", ascending=False, kind="stable")
    assert list(dict.fromkeys(difficulty_tiers(backwards).cohort)) == ["y", "x"]
    assert list(dict.fromkeys(difficulty_tiers(per_seed).cohort)) == ["x", "y"]


def test_each_variants_table_shows_the_models_overall_on_that_variant(per_seed, tmp_path):
    """``variant_overall`` keys a model's overall on one variant by (model, variant), and
    the page's table of each variant shows it: c, with no latent or intervention block,
    scores (1 + 1 + 1) / 5 on x and (1 + 0.5 + 1) / 5 on y."""
    overall = variant_overall(per_seed)
    assert set(overall) == {(m, v) for m, *_ in MODELS for v in ("x", "y")}
    assert overall[("c", "x")] == pytest.approx(0.6)
    assert overall[("c", "y")] == pytest.approx(0.5)
    per_seed.to_csv(tmp_path / "per_seed.csv", index=False)
    summarize(per_seed).to_csv(tmp_path / "summary.csv", index=False)
    (tmp_path / "sweep.json").write_text(json.dumps(
        {"cells": 10, "failed": 0, "tiers": ["small"], "icgbench_version": "test",
         "calibrate_by": "shd", "cell_seconds_total": 600.0}))
    lines = markdown(tmp_path).splitlines()
    for variant, expected in (("x", "0.600"), ("y", "0.500")):
        table = lines[lines.index(f"## `{variant}`"):]
        row = next(line for line in table if line.startswith("| c |"))
        assert row.endswith(f"| {expected} |"), (variant, row)
