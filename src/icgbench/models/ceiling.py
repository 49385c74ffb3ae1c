"""ceiling: reads the truth; the best score any model of the subjects' states can reach.

The oracle submits the true event probabilities, which hold the frailty, a log-hazard
offset that acts through no state and that no observation reveals: no model can reach
them. The ceiling submits what the states can give at best: every risk and every
intervention's risk with the frailty integrated out (truth table ``reachable_risks``), the
true states and the true graph. Its scores are the ceilings the normalized scores are
computed against (docs/scoring.md); like the oracle it is a reference line, never a
competitor.
"""

from __future__ import annotations

from typing import Any

from icgbench.api.tables import load_table
from icgbench.models.base import CohortData, rounded
from icgbench.models.oracle import Oracle


class Ceiling(Oracle):
    name = "ceiling"
    oracle = True
    description = ("Reads the truth: the risks reachable from the states (frailty integrated "
                   "out), the true states and the true graph.")

    def fit(self, data: CohortData) -> None:
        super().fit(data)
        self.reachable = load_table(data.variant, "reachable_risks", data.seed, data.tier,
                                    role="truth", root=data.root).set_index("subject_id")

    def predict(self, data: CohortData) -> dict[str, Any]:
        blocks = super().predict(data)
        test, target = data.ids("test"), data.ids("target_test")
        reach = self.reachable
        blocks["risk_prediction"]["proba"] = rounded(reach.loc[test, "risk"])
        blocks["cross_host_generalization"]["proba"] = rounded(reach.loc[target, "risk"])
        blocks["intervention_conformity"] = {
            "subject_id": test, "proba": rounded(reach.loc[test, "risk"]),
            "interventions": {c.removeprefix("risk__"): rounded(reach.loc[test, c])
                              for c in reach.columns if c.startswith("risk__")}}
        return blocks


MODEL = Ceiling
