"""direct_lingam: DirectLiNGAM from lingam, a structure baseline from non-Gaussianity.

DirectLiNGAM (Shimizu et al. 2011; the ``lingam`` package, pairwise-likelihood measure)
on the standardised node values of the train split. It assumes a linear acyclic model with
independent non-Gaussian noise and no hidden common cause, and then identifies the whole
causal order, not only an equivalence class. Background knowledge is the temporal order
the correlation baseline uses, given through lingam's prior-knowledge matrix: the KCC
assays (read before follow-up) are exogenous, the outcome is a sink. Every pair is scored
in the direction of the estimated causal order: the absolute adaptive-lasso coefficient of
the edge (zero when pruned) plus a tie-breaker of 0.1 |correlation|, so the pairs the lasso
keeps come first and the rest are still ranked. Install with
``pip install 'icgbench[discovery]'``. Submits structure_recovery only.
"""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np

from icgbench.errors import UsageError
from icgbench.models.base import CohortData, ReferenceModel, rounded
from icgbench.models.node_values import node_kinds, node_matrix, standardised
from icgbench.models.seeding import model_seed

TIE_BREAK = 0.1


def order_scores(order: list[int], adjacency: np.ndarray, strength: np.ndarray,
                 tie_break: float = TIE_BREAK) -> tuple[list[int], list[int], list[float]]:
    """Every pair scored in its causal-order direction: |B[j, i]| + tie_break * strength.

    ``adjacency`` is lingam's ``B`` (``B[j, i]`` is the effect of i on j), ``order`` the
    estimated causal order (earlier may cause later, never the reverse).
    """
    position = {node: p for p, node in enumerate(order)}
    source, target, score = [], [], []
    n = adjacency.shape[0]
    for i in range(n):
        for j in range(n):
            if i != j and position[i] < position[j]:
                source.append(i)
                target.append(j)
                score.append(abs(float(adjacency[j, i])) + tie_break * float(strength[i, j]))
    return source, target, score


def discover(x: np.ndarray, kinds: list[str], seed: int) -> tuple[list[int], np.ndarray]:
    """(causal order, lingam's B) of DirectLiNGAM on the standardised columns of ``x``.

    ``kinds[i]`` is column i's node kind: KCC assays are exogenous, the outcome a sink.
    """
    import lingam
    from lingam.utils import make_prior_knowledge

    prior = make_prior_knowledge(
        len(kinds), exogenous_variables=[i for i, k in enumerate(kinds) if k == "kcc_assay"],
        sink_variables=[i for i, k in enumerate(kinds) if k == "outcome"])
    model = lingam.DirectLiNGAM(random_state=seed, prior_knowledge=prior, measure="pwling")
    model.fit(standardised(x))
    return [int(i) for i in model.causal_order_], np.asarray(model.adjacency_matrix_,
                                                              dtype=float)


class DirectLiNGAMModel(ReferenceModel):
    name = "direct_lingam"
    description = ("DirectLiNGAM (lingam, pwling) on the train split, KCC assays exogenous "
                   "and the outcome a sink.")
    blocks = ("structure_recovery",)
    requires = ("lingam",)
    extra = "discovery"

    def fit(self, data: CohortData) -> None:
        if importlib.util.find_spec("lingam") is None:
            raise UsageError("the direct_lingam model needs lingam: pip install "
                             "'icgbench[discovery]'")
        self.names, x = node_matrix(data)
        kinds = node_kinds()
        self.order, self.adjacency = discover(x, [kinds[n] for n in self.names],
                                              model_seed(self.name, data.variant, data.seed))
        self.strength = np.abs(np.corrcoef(x, rowvar=False))

    def predict(self, data: CohortData) -> dict[str, Any]:
        source, target, score = order_scores(self.order, self.adjacency, self.strength)
        return {"structure_recovery": {"source": [self.names[i] for i in source],
                                       "target": [self.names[j] for j in target],
                                       "score": rounded(np.asarray(score))}}


MODEL = DirectLiNGAMModel
