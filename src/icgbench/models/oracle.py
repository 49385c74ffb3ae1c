"""oracle: reads the truth on purpose; the ceiling, never a leaderboard competitor.

It submits the true event probabilities, the true end-of-follow-up states, the true
counterfactual risks and the true graph, and is marked ``oracle: true`` in every
submission, report and table. It checks that a perfect submission scores perfectly where
perfection is defined.
"""

from __future__ import annotations

from typing import Any

from icgbench.api.tables import load_table
from icgbench.contract.vocabulary import STATES
from icgbench.models.base import CohortData, ReferenceModel, rounded
from icgbench.tasks import BLOCKS


class Oracle(ReferenceModel):
    name = "oracle"
    description = "Reads the truth: true risks, true states, true counterfactual risks."
    blocks = BLOCKS  # every task's block (the task registry's)
    oracle = True

    def fit(self, data: CohortData) -> None:
        def truth(table: str):
            return load_table(data.variant, table, data.seed, data.tier, role="truth",
                              root=data.root).set_index("subject_id")

        self.outcomes = truth("test_outcomes")
        states = truth("test_states")
        self.states = states[states.month == states.month.max()]
        self.counterfactual = truth("counterfactual_risks")
        self.graph = load_table(data.variant, "graph", data.seed, data.tier, role="truth",
                                root=data.root)

    def predict(self, data: CohortData) -> dict[str, Any]:
        test, target = data.ids("test"), data.ids("target_test")
        cf = self.counterfactual.loc[test]
        return {
            "risk_prediction": {"subject_id": test,
                                "proba": rounded(self.outcomes.loc[test, "true_risk"])},
            "latent_recovery": {"subject_id": test, "states": {
                s: rounded(self.states.loc[test, s]) for s in STATES}},
            "intervention_conformity": {
                "subject_id": test, "proba": rounded(cf["risk"]),
                "interventions": {c.removeprefix("risk__"): rounded(cf[c])
                                  for c in cf.columns if c.startswith("risk__")},
            },
            "cross_host_generalization": {
                "subject_id": target, "proba": rounded(self.outcomes.loc[target, "true_risk"])},
            "structure_recovery": {"source": self.graph.source.tolist(),
                                   "target": self.graph.target.tolist(),
                                   "score": [1.0] * len(self.graph)},
        }


MODEL = Oracle
