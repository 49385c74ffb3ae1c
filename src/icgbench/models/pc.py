"""pc: the PC algorithm from causal-learn, a maintained causal-discovery library.

PC with Fisher's z test (alpha = 0.01) on the standardised node values of the train split,
with no background knowledge. Its output graph (a CPDAG) becomes scores: a directed edge
i -> j scores 2 in its direction, an undirected edge 1 in both, each plus a tie-breaker of
0.1 |correlation|; non-adjacent pairs are not predicted. Install with
``pip install 'icgbench[discovery]'``. Submits structure_recovery only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from icgbench.errors import UsageError
from icgbench.models.base import CohortData, ReferenceModel, rounded
from icgbench.models.node_values import node_matrix

ALPHA = 0.01
TIE_BREAK = 0.1


class PCModel(ReferenceModel):
    name = "pc"
    description = "The PC algorithm (causal-learn, Fisher z, alpha 0.01) on the train split."
    blocks = ("structure_recovery",)
    requires = ("causallearn",)
    extra = "discovery"

    def fit(self, data: CohortData) -> None:
        try:
            from causallearn.search.ConstraintBased.PC import pc
        except ImportError:
            raise UsageError("the pc model needs causal-learn: pip install "
                             "'icgbench[discovery]'") from None
        self.names, x = node_matrix(data)
        z = (x - x.mean(axis=0)) / np.where(x.std(axis=0) > 0, x.std(axis=0), 1.0)
        self.graph = pc(z, ALPHA, "fisherz", show_progress=False, verbose=False).G.graph
        self.strength = np.abs(np.corrcoef(x, rowvar=False))

    def predict(self, data: CohortData) -> dict[str, Any]:
        g = self.graph
        source, target, score = [], [], []
        n = len(self.names)
        for i in range(n):
            for j in range(n):
                if i == j:
                    continue
                directed = g[i, j] == -1 and g[j, i] == 1  # causal-learn: i -> j
                undirected = g[i, j] == -1 and g[j, i] == -1
                if directed or undirected:
                    source.append(self.names[i])
                    target.append(self.names[j])
                    score.append((2.0 if directed else 1.0) + TIE_BREAK * self.strength[i, j])
        return {"structure_recovery": {"source": source, "target": target,
                                       "score": rounded(np.asarray(score))}}


MODEL = PCModel
