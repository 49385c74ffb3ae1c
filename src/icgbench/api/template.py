"""A valid submission to start from: every block, the right ids, constant predictions.

Probabilities are the train event rate; states are the train subjects' mean
end-of-follow-up values; intervention predictions equal the factual prediction (no
change). It validates and scores, at the level of a model that knows nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow.compute as pc

from icgbench import contract
from icgbench.api.tables import default_seed, load_arrow, tier_descriptor
from icgbench.contract.vocabulary import STATES
from icgbench.generator import get_variant, intervention_names
from icgbench.generator.mechanism import graph_nodes


def header(variant: str, seed: int, tier: str, data_version: str,
           model: dict[str, Any]) -> dict[str, Any]:
    """The header fields every submission starts with."""
    return {
        "schema_version": contract.json_schema("submission")["properties"]["schema_version"][
            "const"],
        "data_version": data_version,
        "tier": tier,
        "variant": variant,
        "variant_hash": get_variant(variant).variant_hash,
        "seed": seed,
        "model": model,
    }


def build_template(variant: str, seed: int | None = None, tier: str = "small",
                   root: Path | None = None) -> dict[str, Any]:
    """A complete constant-prediction submission for one cohort (public tables only)."""
    get_variant(variant)
    d = tier_descriptor(tier, root)
    seed = default_seed(d, variant) if seed is None else seed
    subjects = load_arrow(variant, "subjects", seed, tier, root=root)
    ids = {s: pc.filter(subjects["subject_id"], pc.equal(subjects["split"], s)).to_pylist()
           for s in ("test", "target_test")}
    rate = pc.mean(load_arrow(variant, "train_outcomes", seed, tier, root=root)["event"]).as_py()
    states = load_arrow(variant, "train_states", seed, tier, root=root)
    end = states.filter(pc.equal(states["month"], pc.max(states["month"])))
    means = {s: pc.mean(end[s]).as_py() for s in STATES}
    n, m = len(ids["test"]), len(ids["target_test"])
    model = {"name": "template", "version": "0", "language": "none",
             "description": "constant predictions: train event rate, train mean states"}
    return {
        **header(variant, seed, tier, d.version, model),
        "risk_prediction": {"subject_id": ids["test"], "proba": [rate] * n},
        "latent_recovery": {"subject_id": ids["test"],
                            "states": {s: [means[s]] * n for s in STATES}},
        "intervention_conformity": {
            "subject_id": ids["test"], "proba": [rate] * n,
            "interventions": {name: [rate] * n for name in intervention_names()},
        },
        "cross_host_generalization": {"subject_id": ids["target_test"], "proba": [rate] * m},
        "structure_recovery": _constant_graph(),
    }


def _constant_graph() -> dict[str, list[Any]]:
    """Every ordered pair of public nodes with the same score (no information)."""
    nodes = [name for name, _ in graph_nodes()]
    pairs = [(s, t) for s in nodes for t in nodes if s != t]
    return {"source": [s for s, _ in pairs], "target": [t for _, t in pairs],
            "score": [0.0] * len(pairs)}
