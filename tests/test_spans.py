"""Spans that measure: in every variant and category the floor-to-ceiling span is at least
4 standard errors of the metric on one cohort and 10 of the variant's pooled mean, on the
committed board (``icgbench bench spans``); a reference more than a span below the floor
is at least 10 of its own standard errors below it."""

from __future__ import annotations

import json

import pytest

from conftest import ROOT
from icgbench.bench.spans import PER_COHORT_TARGET, POOLED_TARGET
from icgbench.cli import main
from icgbench.generator import variant_names
from icgbench.tasks.normalized import parts_of_categories

pytestmark = pytest.mark.slow


def test_every_span_is_wide_beside_its_standard_errors(full_tier_root, capsys):
    assert main(["bench", "spans", "--json", "--resamples", "20", "--sample", "2", "--dir",
                 str(ROOT / "leaderboard")]) == 0
    rows = json.loads(capsys.readouterr().out)
    parts = {p for ps in parts_of_categories().values() for p in ps}
    assert {(r["task"], r["metric"]) for r in rows} == parts
    assert {r["variant"] for r in rows} == set(variant_names())
    for r in rows:
        assert r["se_cohort"] > 0 and r["se_pooled"] > 0, r
        assert r["per_cohort"] >= PER_COHORT_TARGET, r
        assert r["pooled"] >= POOLED_TARGET, r
        for far in r["beyond"]:  # more than a span below the floor: read as below it
            assert far["normalized"] < -1 and far["below"] >= POOLED_TARGET, (r, far)
