"""Submissions for scorer tests: the template, and a perfect one built from the truth."""

from __future__ import annotations

import copy
import functools
import json
from typing import Any

from icgbench.api.tables import load_arrow
from icgbench.api.template import build_template
from icgbench.contract.vocabulary import STATES
from icgbench.generator import intervention_names


@functools.lru_cache(maxsize=8)
def _template(variant: str) -> str:
    return json.dumps(build_template(variant))


def template(variant: str = "linear_lowhet") -> dict[str, Any]:
    """A fresh copy of the cohort's template submission."""
    return json.loads(_template(variant))


def perfect(variant: str = "linear_lowhet") -> dict[str, Any]:
    """Predictions equal to the truth: true risks, true end states, true counterfactuals."""
    doc = template(variant)
    outcomes = load_arrow(variant, "test_outcomes", role="truth").to_pylist()
    risk = {r["subject_id"]: r["true_risk"] for r in outcomes}
    states = load_arrow(variant, "test_states", role="truth").to_pylist()
    end = max(r["month"] for r in states)
    state = {r["subject_id"]: r for r in states if r["month"] == end}
    cf = {r["subject_id"]: r for r in
          load_arrow(variant, "counterfactual_risks", role="truth").to_pylist()}
    ids = doc["risk_prediction"]["subject_id"]
    doc["model"] = {"name": "perfect", "version": "1", "language": "Python", "oracle": True}
    doc["risk_prediction"]["proba"] = [risk[i] for i in ids]
    doc["latent_recovery"]["states"] = {s: [state[i][s] for i in ids] for s in STATES}
    doc["intervention_conformity"]["proba"] = [cf[i]["risk"] for i in ids]
    doc["intervention_conformity"]["interventions"] = {
        n: [cf[i][f"risk__{n}"] for i in ids] for n in intervention_names()}
    target = doc["cross_host_generalization"]["subject_id"]
    doc["cross_host_generalization"]["proba"] = [risk[i] for i in target]
    return copy.deepcopy(doc)
