"""ges: Greedy Equivalence Search from causal-learn, a score-based structure baseline.

GES (Chickering 2002) with causal-learn's linear-Gaussian BIC score on the standardised
node values of the train split, with no background knowledge. The penalty is
``lambda_value = 2`` (four times the textbook BIC's 0.5 per parameter and log n), chosen
for time: with the textbook penalty GES keeps over half of the 190 possible adjacencies on
3,000 subjects and takes up to 30 s, for about the same best F1 on the cohorts tried; at 2
it keeps about 75 and takes a few seconds. Its output graph (a
CPDAG) becomes scores as pc's does: a directed edge i -> j scores 2 in its direction, an
undirected edge 1 in both, each plus a tie-breaker of 0.1 |correlation|; non-adjacent pairs
are not predicted. Install with ``pip install 'icgbench[discovery]'``. Submits
structure_recovery only.
"""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np

from icgbench.errors import UsageError
from icgbench.models.base import CohortData, ReferenceModel, rounded
from icgbench.models.node_values import node_matrix, standardised

PENALTY = 2.0
TIE_BREAK = 0.1


def cpdag_scores(graph: np.ndarray, strength: np.ndarray, tie_break: float = TIE_BREAK
                 ) -> tuple[list[int], list[int], list[float]]:
    """Edge scores of a causal-learn CPDAG: 2 directed, 1 undirected, plus a tie-breaker.

    causal-learn encodes i -> j as ``graph[i, j] == -1 and graph[j, i] == 1`` and i -- j as
    -1 both ways; ``strength`` (e.g. |correlation|) orders edges of the same kind.
    """
    source, target, score = [], [], []
    n = graph.shape[0]
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            directed = graph[i, j] == -1 and graph[j, i] == 1
            undirected = graph[i, j] == -1 and graph[j, i] == -1
            if directed or undirected:
                source.append(i)
                target.append(j)
                score.append((2.0 if directed else 1.0) + tie_break * float(strength[i, j]))
    return source, target, score


def discover(x: np.ndarray) -> np.ndarray:
    """causal-learn's CPDAG from GES on the standardised columns of ``x`` (rows: samples)."""
    from causallearn.search.ScoreBased.GES import ges

    return ges(standardised(x), score_func="local_score_BIC", lambda_value=PENALTY)["G"].graph


class GESModel(ReferenceModel):
    name = "ges"
    description = ("Greedy Equivalence Search (causal-learn, BIC score with penalty 2) on "
                   "the train split.")
    blocks = ("structure_recovery",)
    requires = ("causallearn",)
    extra = "discovery"

    def fit(self, data: CohortData) -> None:
        if importlib.util.find_spec("causallearn") is None:
            raise UsageError("the ges model needs causal-learn: pip install "
                             "'icgbench[discovery]'")
        self.names, x = node_matrix(data)
        self.graph = discover(x)
        self.strength = np.abs(np.corrcoef(x, rowvar=False))

    def predict(self, data: CohortData) -> dict[str, Any]:
        source, target, score = cpdag_scores(self.graph, self.strength)
        return {"structure_recovery": {"source": [self.names[i] for i in source],
                                       "target": [self.names[j] for j in target],
                                       "score": rounded(np.asarray(score))}}


MODEL = GESModel
