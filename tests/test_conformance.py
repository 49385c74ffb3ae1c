"""The scorer reproduces every hand-computed conformance fixture."""

from __future__ import annotations

import pytest

from icgbench.scorer.conformance import case_paths, run_case

CASES = case_paths()


def test_fixtures_cover_the_documented_cases():
    names = {p.stem for p in CASES}
    assert {"auroc_ties", "constant_predictor", "perfectly_wrong", "flipped_sign_intervention",
            "responsive_threshold", "state_left_out"} <= names


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_conformance_case(path):
    checks = run_case(path)
    assert checks
    failed = [f"{c.task}.{c.metric}: expected {c.expected}, got {c.actual}"
              for c in checks if not c.ok]
    assert failed == []
