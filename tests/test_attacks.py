"""Answers without a model lose in every variant and category, through the command.

``icgbench bench attacks`` grades every attack an attacker who reads the source would try
(docs/baselines.md lists them) on the full tier's cohorts and pools them per variant as the
board does; this holds each at most 0.02, a reversal guessed at random at most 0 in
expectation over many draws, and every model of the committed board apart from the best
composite of them.
"""

from __future__ import annotations

import json

import pytest

from conftest import ROOT
from icgbench.bench.attacks import TOLERANCE
from icgbench.cli import main
from icgbench.generator import variant_names

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def report(full_tier_root, capsys_module=None):
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["bench", "attacks", "--json", "--draws", "400", "--dir",
                     str(ROOT / "leaderboard")])
    return code, json.loads(out.getvalue())


def test_no_attack_scores_above_two_hundredths_in_any_variant_and_category(report):
    code, data = report
    above = [(v, c, w) for v, cats in data["worst"].items() for c, w in cats.items()
             if w["score"] > TOLERANCE]
    assert not above and code == 0
    assert set(data["worst"]) == set(variant_names())
    assert all(len(cats) == 5 for cats in data["worst"].values())
    assert data["attacks"] > 60  # the panel's answers, the hindsight choices, the extras


def test_a_reversal_guessed_at_random_is_worth_at_most_the_floor_in_expectation(report):
    _, data = report
    guesses = data["random_guesses"]
    assert set(guesses) == {"misspecified_signs", "misspecified_signs_v2"}
    for variant, cats in guesses.items():
        for category, g in cats.items():
            assert g["mean"] <= 0.0, (variant, category, g)
            assert g["mean"] <= g["p95"] <= g["max"]


def test_every_model_of_the_board_is_apart_from_the_best_composite_of_the_attacks(report):
    _, data = report
    assert data["composite"]["overall"] <= TOLERANCE
    rows = data["separable"]
    assert len(rows) == 11  # every method of the board but random
    for row in rows:
        assert row["p_value"] is not None and row["p_value"] < 0.05, row
