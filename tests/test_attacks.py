"""Answers without a model lose in every variant and category, through the command.

``icgbench bench attacks`` grades every attack an attacker who reads the source would try
(docs/baselines.md lists them) on the full tier's cohorts and pools them per variant as the
board does; this holds each at most 0.02, a reversal guessed at random at most 0 in
expectation over many draws, and every model of the committed board apart from the best
composite of them (the rule itself is checked without the tier, unmarked).
"""

from __future__ import annotations

import json

import pytest

from conftest import ROOT
from icgbench.bench.attacks import TOLERANCE, apart
from icgbench.cli import main
from icgbench.generator import variant_names


def _row(p: float | None, **variants: tuple[float, float | None]) -> dict:
    return {"p_value": p, "per_variant": {v: {"difference": d, "p_value": q}
                                          for v, (d, q) in variants.items()}}


def test_apart_is_separable_overall_or_on_both_sides_of_the_composite():
    assert apart(_row(0.01, a=(0.1, 0.5)))
    assert apart(_row(0.4, a=(0.2, 0.001), b=(-0.3, 0.01), c=(0.0, 0.9)))
    assert not apart(_row(0.4, a=(0.2, 0.001), b=(0.3, 0.01)))  # one side only
    assert not apart(_row(0.4, a=(0.2, 0.001), b=(-0.3, 0.2)))  # the loss is noise
    assert not apart(_row(None, a=(0.0, None), b=(0.0, None)))  # a tie everywhere
    assert not apart(_row(0.05, a=(0.1, 0.05), b=(-0.1, 0.05)), alpha=0.05)


@pytest.fixture(scope="module")
def report(full_tier_root, capsys_module=None):
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["bench", "attacks", "--json", "--draws", "400", "--dir",
                     str(ROOT / "leaderboard")])
    return code, json.loads(out.getvalue())


@pytest.mark.slow
def test_no_attack_scores_above_two_hundredths_in_any_variant_and_category(report):
    code, data = report
    above = [(v, c, w) for v, cats in data["worst"].items() for c, w in cats.items()
             if w["score"] > TOLERANCE]
    assert not above and code == 0
    assert set(data["worst"]) == set(variant_names())
    assert all(len(cats) == 5 for cats in data["worst"].values())
    assert data["attacks"] > 60  # the panel's answers, the hindsight choices, the extras


@pytest.mark.slow
def test_a_reversal_guessed_at_random_is_worth_at_most_the_floor_in_expectation(report):
    _, data = report
    guesses = data["random_guesses"]
    assert set(guesses) == {"misspecified_signs", "misspecified_signs_v2"}
    for variant, cats in guesses.items():
        for category, g in cats.items():
            assert g["mean"] <= 0.0, (variant, category, g)
            assert g["mean"] <= g["p95"] <= g["max"]


@pytest.mark.slow
def test_every_model_of_the_board_is_apart_from_the_best_composite_of_the_attacks(report):
    _, data = report
    assert data["composite"]["overall"] <= TOLERANCE
    rows = data["separable"]
    assert len(rows) == 11  # every method of the board but random
    for row in rows:  # separable overall, or above on one variant and below on another
        assert row["apart"], row
        if row["p_value"] is None or row["p_value"] >= 0.05:
            sides = {v["difference"] > 0 for v in row["per_variant"].values()
                     if v["p_value"] is not None and v["p_value"] < 0.05}
            assert sides == {True, False}, row
