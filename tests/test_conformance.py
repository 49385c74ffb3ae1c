"""The scorer reproduces every hand-computed conformance fixture; each pinned rule decides."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from icgbench.scorer.conformance import TOLERANCE, case_paths, run_case

CASES = case_paths()
ROOT = Path(__file__).resolve().parents[1]
FIELDS = {"description", "pins", "wrong_rule_gives", "wrong_baseline_gives", "truth", "blocks",
          "expected", "expected_baselines", "expected_normalized", "expected_floor_answers",
          "expected_overall", "means"}
#: Early cases whose values no plausible wrong rule changes: they need not name a rule.
PLAIN = {"perfectly_wrong", "structure_all_equal", "structure_perfect"}


def _case(path: Path) -> dict:
    return json.loads(path.read_text())


def _differs(a: float | None, b: float | None) -> bool:
    """True when a and b differ by more than the conformance tolerance (null != any number)."""
    if a is None or b is None:
        return (a is None) != (b is None)
    return not math.isclose(a, b, rel_tol=TOLERANCE, abs_tol=TOLERANCE)


def test_the_package_ships_exactly_the_repositorys_fixtures():
    """(Their bytes are compared by test_release's schema-copy test.)"""
    assert [p.name for p in case_paths()] == sorted(
        p.name for p in (ROOT / "schemas" / "conformance").glob("*.json"))


def test_a_fixture_whose_blocks_are_invalid_is_refused(tmp_path):
    case = json.loads(CASES[0].read_text())
    assert "blocks" in case
    block = next(iter(case["blocks"].values()))
    for value in block.values():
        if isinstance(value, list):
            value.pop()  # one prediction short
            break
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(case))
    with pytest.raises(ValueError, match="fixture blocks are invalid"):
        run_case(broken)


def test_fixtures_cover_the_documented_cases():
    names = {p.stem for p in CASES}
    assert {"auroc_ties", "constant_predictor", "perfectly_wrong", "flipped_sign_intervention",
            "responsive_threshold", "state_left_out", "responsive_exact_threshold",
            "ece_bin_edge", "ece_clamp_log_loss_clip", "structure_tie_at_k",
            "structure_best_k_tie", "structure_k_beyond_pairs", "structure_huge_scores",
            "transfer_gap_sign", "latent_r2_overflow",
            "normalized_floor_is_the_marked_row", "normalized_negative_and_left_out",
            "spearman_ties",
            "normalized_mean_over_cohorts"} <= names


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_conformance_case(path):
    checks = run_case(path)
    assert checks
    failed = [f"{c.task}.{c.metric}: expected {c.expected}, got {c.actual}"
              for c in checks if not c.ok]
    assert failed == []


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_fixture_has_a_description_and_only_known_fields(path):
    case = _case(path)
    assert set(case) <= FIELDS, set(case) - FIELDS
    assert {"description", "truth", "blocks", "expected"} <= set(case) or (
        {"description", "means"} <= set(case) and not {"truth", "blocks"} & set(case))
    assert isinstance(case["description"], str) and case["description"].strip()


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_fixture_names_the_rule_it_pins(path):
    case = _case(path)
    if path.stem in PLAIN:
        assert "pins" not in case and "wrong_rule_gives" not in case
        return
    assert isinstance(case.get("pins"), str) and case["pins"].strip()
    wrong = case.get("wrong_rule_gives")
    assert isinstance(wrong, dict) and wrong


@pytest.mark.parametrize("path", [p for p in CASES if "wrong_rule_gives" in _case(p)],
                         ids=[p.stem for p in CASES if "wrong_rule_gives" in _case(p)])
def test_the_pinned_rule_decides_the_expected_values(path):
    """Each value under the plausible wrong rule is off by more than the tolerance."""
    case = _case(path)
    expectations = {**case.get("expected", {}),
                    **{f"{t} (normalized)": v
                       for t, v in case.get("expected_normalized", {}).items()},
                    "means": {k: v["expected"] for k, v in case.get("means", {}).items()}}
    for metric, wrong in case["wrong_rule_gives"].items():
        tasks = [t for t, metrics in expectations.items() if metric in metrics]
        assert len(tasks) == 1, f"{metric} must be an expected value of exactly one task"
        expected = expectations[tasks[0]][metric]
        assert wrong is None or isinstance(wrong, int | float), metric
        assert _differs(expected, wrong), (
            f"{metric}: the wrong rule gives {wrong}, the expected value is {expected}: "
            "the fixture does not decide its rule")


@pytest.mark.parametrize("path", [p for p in CASES if "wrong_baseline_gives" in _case(p)],
                         ids=[p.stem for p in CASES if "wrong_baseline_gives" in _case(p)])
def test_the_pinned_baseline_rule_decides_the_expected_baselines(path):
    case = _case(path)
    for metric, wrong in case["wrong_baseline_gives"].items():
        (expected,) = [b[metric] for b in case["expected_baselines"].values() if metric in b]
        assert _differs(expected, wrong), metric


@pytest.mark.parametrize("path", [p for p in CASES if "tables" in _case(p).get("truth", {})],
                         ids=[p.stem for p in CASES if "tables" in _case(p).get("truth", {})])
def test_truth_tables_in_a_fixture_follow_the_release_layout(path):
    """A fixture's truth tables have the release's columns, in its order, and types."""
    from icgbench import contract

    for name, columns in _case(path)["truth"]["tables"].items():
        fields = contract.table_schema(name)["fields"]
        assert list(columns) == [f["name"] for f in fields], name
        lengths = {len(v) for v in columns.values()}
        assert len(lengths) == 1, f"{name}: columns of different lengths"


def test_scoring_doc_names_every_fixture_that_pins_a_rule():
    text = (ROOT / "docs" / "scoring.md").read_text()
    named = set(re.findall(r"`([a-z0-9_]+)\.json`", text))
    stems = {p.stem for p in CASES}
    assert named <= stems, f"docs/scoring.md names missing fixtures: {named - stems}"
    pinning = {p.stem for p in CASES if "pins" in _case(p)}
    assert pinning <= named, f"docs/scoring.md does not name {pinning - named}"
