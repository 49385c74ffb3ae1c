"""correlation: a structure baseline from absolute correlations and temporal order.

Every unordered pair of public nodes is scored by the absolute Pearson correlation of its
values on the train split. Orientation by temporal precedence: a KCC assay (the exposure,
fixed before follow-up) precedes every state and the outcome; every state precedes the
outcome; between two states, the one whose value at a visit correlates more with the
other's at the next visit leads (lagged correlations pooled over subjects and visits).
The leading direction gets the pair's score, the other half of it; two KCC assays have no
temporal order and get the same score both ways. Submits structure_recovery only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from icgbench.models.base import CohortData, ReferenceModel, rounded
from icgbench.models.node_values import node_kinds, node_matrix, trajectories

REVERSE_SHARE = 0.5
ORDER = {"kcc_assay": 0, "state": 1, "outcome": 2}


def lagged_correlation(frame, lead: str, follow: str) -> float:
    """corr(lead at a visit, follow at the next visit), pooled over subjects."""
    x = frame.groupby("subject_id")[lead].shift(1)
    y = frame[follow]
    keep = x.notna()
    return float(np.corrcoef(x[keep], y[keep])[0, 1])


class CorrelationModel(ReferenceModel):
    name = "correlation"
    description = ("Absolute correlation of node values on the train split, oriented by "
                   "temporal precedence (exposures, then states by lagged correlation, then "
                   "the outcome).")
    blocks = ("structure_recovery",)

    def fit(self, data: CohortData) -> None:
        self.names, x = node_matrix(data)
        self.strength = np.abs(np.corrcoef(x, rowvar=False))
        self.trajectories = trajectories(data)

    def _leads(self, a: str, b: str) -> bool | None:
        kinds = node_kinds()
        ka, kb = ORDER[kinds[a]], ORDER[kinds[b]]
        if ka != kb:
            return ka < kb
        if kinds[a] != "state":
            return None
        return lagged_correlation(self.trajectories, a, b) >= lagged_correlation(
            self.trajectories, b, a)

    def predict(self, data: CohortData) -> dict[str, Any]:
        source, target, score = [], [], []
        n = len(self.names)
        for i in range(n):
            for j in range(i + 1, n):
                a, b = self.names[i], self.names[j]
                s = float(self.strength[i, j])
                leads = self._leads(a, b)
                forward = s if leads in (True, None) else REVERSE_SHARE * s
                backward = s if leads in (False, None) else REVERSE_SHARE * s
                source += [a, b]
                target += [b, a]
                score += [forward, backward]
        return {"structure_recovery": {"source": source, "target": target,
                                       "score": rounded(np.asarray(score))}}


MODEL = CorrelationModel
