"""The hidden-confounding mechanism (issue 48's DGP; the ``hidden_confounding`` variant).

A cohort whose variant has ``n_confounded`` draws that many of its ``confound_candidates``
and gives each a hidden host factor's push in the state's risk-raising direction; the same
factor lowers the hazard through no state. The prior stays right (the graph's outcome
signs are the prior's), and the state's association with the event turns the other way.
Adding the fields moved no registered variant: its hash, streams and bytes are the same.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json

import numpy as np
import pytest

from icgbench.contract.vocabulary import STATES
from icgbench.generator import all_variants, get_variant
from icgbench.generator.family import CONFOUNDER_HAZARD, CONFOUNDER_STATE_GAIN, draw_mechanism
from icgbench.generator.mechanism import PRIOR_SIGNS
from icgbench.generator.reference import cohort_mechanism
from icgbench.generator.simulator import simulate
from icgbench.generator.variants import ADDED_LATER, FLIP_CANDIDATES

PROBE = dataclasses.replace(get_variant("linear_lowhet"), name="confounded_probe",
                            description="a probe of the confounding mechanism",
                            confound_candidates=FLIP_CANDIDATES, n_confounded=1)


def test_the_added_fields_leave_every_registered_variant_as_it_was():
    """Every variant that leaves the fields at their neutral value (all but the confounded
    ones, which came with them) hashes as before they existed and draws no confounder."""
    confounded = [v for v in all_variants() if v.n_confounded]
    assert [v.name for v in confounded] == ["hidden_confounding"]
    for v in (v for v in all_variants() if not v.n_confounded):
        before = {k: x for k, x in dataclasses.asdict(v).items() if k not in ADDED_LATER}
        canonical = json.dumps(before, sort_keys=True, separators=(",", ":"))
        assert v.variant_hash == hashlib.sha256(canonical.encode()).hexdigest()[:12]
        assert all(getattr(v, k) == neutral for k, neutral in ADDED_LATER.items())
        assert draw_mechanism(v, 1).confounded == ()
    assert PROBE.variant_hash != get_variant("linear_lowhet").variant_hash


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_confounded_state_points_the_data_the_wrong_way(seed):
    mechanism = cohort_mechanism(PROBE, seed)
    ((state, step, hazard),) = mechanism.confounded
    assert state in FLIP_CANDIDATES and step > 0
    assert -CONFOUNDER_HAZARD[1] <= hazard <= -CONFOUNDER_HAZARD[0]
    beta = dict(zip(STATES, mechanism.risk_beta, strict=True))[state]
    assert np.sign(beta) == PRIOR_SIGNS[state]  # the prior is right
    cohort = simulate(PROBE, seed, sizes={"train": 1500, "test": 100, "target_test": 100})
    states = cohort.tables["train_states"].to_pandas()
    end = states[states.month == states.month.max()].set_index("subject_id")[state]
    event = cohort.tables["train_outcomes"].to_pandas().set_index("subject_id").event
    association = np.corrcoef(end, event.reindex(end.index))[0, 1]
    assert np.sign(association) == -PRIOR_SIGNS[state], (state, association)


def test_docs_state_the_confounders_family():
    from pathlib import Path

    from icgbench.generator.family import CONFOUNDER_STATE_GAIN

    text = (Path(__file__).resolve().parents[1] / "docs" / "dgp.md").read_text()
    gain = "[{:g}, {:g}]".format(*CONFOUNDER_STATE_GAIN)
    hazard = f"[{-CONFOUNDER_HAZARD[1]:g}, {-CONFOUNDER_HAZARD[0]:g}]"
    assert f"a gain uniform in {gain}" in text
    assert f"a hazard\ncoefficient `c` uniform in {hazard}" in text


# --- the registered variant, through the command line ----------------------------------------

def test_every_committed_confounded_cohort_points_the_data_the_wrong_way(capsys):
    """`bench confounding` on the small tier: each confounded state's causal sign is the
    prior's, and its association with the event has the other sign."""
    from icgbench.cli import main

    assert main(["bench", "confounding", "--tier", "small", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    confounded = [v.name for v in all_variants() if v.n_confounded]
    assert sorted({r["variant"] for r in rows}) == confounded and len(rows) == len(confounded)
    for r in rows:
        assert r["causal_sign"] == PRIOR_SIGNS[r["state"]], r
        assert np.sign(r["association"]) == -r["causal_sign"] and r["reversed"], r


def test_bench_info_prints_the_family_and_never_a_cohorts_draw(capsys):
    """The candidates and the strength ranges, as docs/dgp.md states them; nothing of any
    committed cohort's hidden_confounders table (which state, its step or coefficient)."""
    from icgbench.api.tables import load_table
    from icgbench.cli import main

    assert main(["bench", "info", "hidden_confounding", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)["hidden_confounding"]
    assert info == {"count": 1,
                    "candidates": [{"state": s, "prior_sign": PRIOR_SIGNS[s]}
                                   for s in FLIP_CANDIDATES],
                    "state_gain": list(CONFOUNDER_STATE_GAIN),
                    "hazard_coefficient": [-CONFOUNDER_HAZARD[1], -CONFOUNDER_HAZARD[0]]}
    assert main(["bench", "info", "hidden_confounding"]) == 0
    text = capsys.readouterr().out
    assert "each cohort confounds 1 of DNA_adducts (prior +1)" in text
    drawn = load_table("hidden_confounding", "hidden_confounders", 0, "small", "truth")
    for value in (*drawn.state_step, *drawn.hazard_coefficient):
        assert f"{value}" not in text and f"{value:.3f}" not in text
    assert main(["bench", "info", "linear_lowhet"]) == 0
    assert "hidden confounding: none" in capsys.readouterr().out
