"""Which split of subjects each submission block predicts (documented in the schema)."""

from __future__ import annotations

#: Block name -> the split whose subjects it must cover exactly (None: not per subject).
BLOCK_SPLITS: dict[str, str | None] = {
    "risk_prediction": "test",
    "latent_recovery": "test",
    "intervention_conformity": "test",
    "cross_host_generalization": "target_test",
    "structure_recovery": None,
}
