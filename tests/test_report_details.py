"""The ``details`` of each task in a score report, on conformance fixtures, by hand.

Reports carry more than metrics: per-intervention verdicts, the states a submission
attempted, where structure recovery's K came from. Users read them to see *why* a score
is what it is, and the figures are drawn from them, so each field is pinned here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from icgbench.scorer import semantic
from icgbench.scorer.conformance import truth_from_json
from icgbench.tasks import TASKS
from icgbench.tasks import graph_metrics as g

CONFORMANCE = Path(__file__).resolve().parents[1] / "schemas" / "conformance"


def _details(case: str, task: str, **block_changes: Any) -> dict[str, Any]:
    doc = json.loads((CONFORMANCE / f"{case}.json").read_text())
    truth = truth_from_json(doc["truth"])
    blocks = {name: semantic.align(name, block, truth) for name, block in doc["blocks"].items()}
    blocks[task] = {**blocks[task], **block_changes}
    for name in [n for n, v in block_changes.items() if v is None]:
        del blocks[task][name]
    return TASKS[task].score(blocks, truth).details


def test_each_intervention_has_its_verdicts_and_the_thresholds_are_recorded():
    details = _details("flipped_sign_intervention", "intervention_conformity")
    assert details["responsive_threshold"] == 0.005 and details["tolerant_zero"] == 0.001
    flipped = details["interventions"]["do_epigenetic_memory_reset"]
    # predicted 0.3 -> 0.2 for both subjects; true risk 0.2, 0.4 -> 0.3, 0.5
    assert flipped == {"delta": pytest.approx(-0.1), "true_delta": pytest.approx(0.1),
                       "prior_direction": -1, "dgp_direction": 1, "prior_conforms": True,
                       "dgp_conforms": False, "responsive": False, "submitted": True,
                       "pehe": pytest.approx(0.2)}
    unchanged = details["interventions"]["do_immune_surveillance_restore"]
    assert unchanged["delta"] == 0.0 and not unchanged["prior_conforms"]
    assert unchanged["submitted"] and not unchanged["responsive"]
    raised = details["interventions"]["do_repair_inhibition"]  # 0.3 -> 0.4, 0.5
    assert raised["delta"] == pytest.approx(0.15) and raised["dgp_conforms"]
    assert raised["responsive"]
    missing = details["interventions"]["do_artificial_proliferation"]
    assert missing["delta"] is None and missing["submitted"] is False
    assert not (missing["prior_conforms"] or missing["dgp_conforms"] or missing["responsive"])


def test_latent_recovery_lists_the_states_submitted_in_release_order():
    details = _details("state_left_out", "latent_recovery")
    assert details == {"states_submitted": ["DNA_adducts", "ROS", "proliferation"]}


def test_structure_recovery_says_where_k_came_from():
    declared = _details("structure_errors", "structure_recovery")
    assert declared["k_source"] == "calibration (declared in the submission)"
    given = _details("structure_errors", "structure_recovery", k_override=2)
    assert given["k_source"] == "calibration (given to the scorer)"
    own = _details("structure_errors", "structure_recovery", k=None)
    assert own["k_source"] == "in-sample: this cohort's own best K (not calibrated)"
    assert own["best_k_in_sample"] == declared["best_k_in_sample"] == 3
    assert declared["robustness"] in {"robust", "moderate", "sensitive"}
    curve = declared["curve"]
    assert curve["k"] == [float(k) for k in range(1, 121)] or curve["k"] == list(range(1, 121))
    assert len(curve["directed_f1"]) == 120


def test_the_curve_counts_the_edges_actually_selected_when_k_exceeds_the_scored_pairs():
    curve = _details("structure_k_beyond_pairs", "structure_recovery")["curve"]
    assert len(curve["k"]) == len(curve["k_effective"]) == 120  # K = 1..120
    assert curve["k_effective"][0] == 1.0 and set(curve["k_effective"][1:]) == {2.0}


def test_an_empty_prediction_has_zero_precision_at_every_k():
    graph = g.ScoredGraph.from_edges(("A", "B", "C"), [], [], [])
    curve = g.sensitivity_curve(graph, g.true_matrix(("A", "B", "C"), [("A", "B")]))
    assert set(curve["directed_precision"]) == {0.0} and set(curve["k_effective"]) == {0.0}


def test_unscored_pairs_fill_one_below_the_lowest_score_or_zero():
    graph = g.ScoredGraph.from_edges(("A", "B", "C"), ["A", "B"], ["B", "C"], [2.5, -4.0])
    filled = graph.filled()
    assert filled[0, 1] == 2.5 and filled[1, 2] == -4.0
    assert filled[1, 0] == filled[0, 2] == -5.0
    assert (g.ScoredGraph.from_edges(("A", "B"), [], [], []).filled() == 0.0).all()
    assert (g.ScoredGraph.from_edges(("A", "B"), ["A"], ["B"], [2.0 ** 60]).filled()[1, 0]
            == 2.0 ** 60 - 2.0 ** 7)  # min - 1 rounds back to min: the next double below


def test_edge_lists_of_unequal_length_are_refused():
    with pytest.raises(ValueError):
        g.ScoredGraph.from_edges(("A", "B"), ["A", "B"], ["B"], [1.0, 2.0])
