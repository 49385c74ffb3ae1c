"""random: seeded uniform predictions for every block (the random baseline)."""

from __future__ import annotations

from typing import Any

from icgbench.contract.vocabulary import STATES
from icgbench.generator import intervention_names
from icgbench.models.base import CohortData, ReferenceModel, rounded
from icgbench.models.node_values import node_names
from icgbench.models.seeding import model_rng
from icgbench.tasks import BLOCKS


class RandomModel(ReferenceModel):
    name = "random"
    description = ("Uniform random probabilities for every block; each state drawn at random "
                   "from the train split's values. The floor every model is measured against.")
    blocks = BLOCKS  # every task's block (the task registry's)

    def fit(self, data: CohortData) -> None:
        end = data.end_states()
        self.values = {s: end[s].to_numpy() for s in STATES}

    def predict(self, data: CohortData) -> dict[str, Any]:
        rng = model_rng(self.name, data.variant, data.seed)
        test, target = data.ids("test"), data.ids("target_test")
        nodes = node_names()
        pairs = [(s, t) for s in nodes for t in nodes if s != t]
        n = len(test)
        return {
            "risk_prediction": {"subject_id": test, "proba": rounded(rng.random(n))},
            "latent_recovery": {"subject_id": test, "states": {
                s: rounded(rng.choice(values, n)) for s, values in self.values.items()}},
            "intervention_conformity": {
                "subject_id": test, "proba": rounded(rng.random(n)),
                "interventions": {d: rounded(rng.random(n)) for d in intervention_names()},
            },
            "cross_host_generalization": {"subject_id": target,
                                          "proba": rounded(rng.random(len(target)))},
            "structure_recovery": {"source": [s for s, _ in pairs],
                                   "target": [t for _, t in pairs],
                                   "score": rounded(rng.random(len(pairs)))},
        }


MODEL = RandomModel
