"""Pure functions that grade a scored edge list against a true directed graph.

Conventions (written out in docs/tasks.md):

- Scores: higher means more confident that the directed edge exists. A pair left out is not
  predicted; where a number is needed for it (threshold-free metrics) it takes the value
  ``min(submitted scores) - 1`` (0 when nothing was submitted; the next double below the
  minimum when ``min - 1`` rounds back to it, i.e. ``|min| >= 2**53``). Scores larger in
  magnitude than ``2**1020`` are first multiplied by the power of two that brings the
  largest to at most ``2**1020`` (exact, order-preserving), so that no difference of two
  scores can overflow.
- Top-K selection (RC-GNN's protocol): unordered pairs are ranked by the larger of their two
  directed scores; the first K are kept and each is oriented by its larger direction. Ties
  are broken by node name in code-point order (Python's ``sorted``; R's ``sort(method =
  "radix")``, not a locale's collation, which puts lowercase first or ignores the
  underscore): equal pair scores rank the pair whose sorted names come first higher, and an
  orientation tie points from the name-earlier node. Names
  carry no causal order, so ties give no free information. Pairs with no score in either
  direction are never selected, so K larger than the scored pairs selects them all.
- SHD (headline, as Tsamardinos et al. and gCastle): missing + extra + reversed, a reversed
  edge counting 1. ``shd_reversal_2`` counts a reversal twice (RC-GNN):
  ``|predicted \\ true| + |true \\ predicted|`` over directed edges.
- Orientation (ChaLearn cause-effect pairs): for each unordered pair {A, B} (A the
  name-earlier node), ``Yhat = s(A->B) - s(B->A)`` and ``Y`` = +1 (A->B true), -1 (B->A
  true) or 0; ``Y1`` = Y with 0 -> -1, ``Y2`` = Y with 0 -> +1; the score is
  ``0.5 * (AUC(Yhat, Y1) + AUC(Yhat, Y2))``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from icgbench.tasks.metrics import ranking_metrics

#: The fixed K sweep of the sensitivity curve (independent of the true edge count).
K_MAX = 120
#: Scores are rescaled by a power of two when their largest magnitude exceeds this.
SCORE_EXPONENT = 1020
SCORE_LIMIT = 2.0**SCORE_EXPONENT
ROBUST_WINDOW = 5
ROBUSTNESS = ((0.1, "robust"), (0.2, "moderate"))


@dataclass(frozen=True)
class ScoredGraph:
    """A submission's scores as a dense matrix over the node list (NaN: not predicted)."""

    nodes: tuple[str, ...]
    scores: np.ndarray  # (n, n)

    @classmethod
    def from_edges(cls, nodes: Sequence[str], source: Sequence[str], target: Sequence[str],
                   score: Sequence[float]) -> ScoredGraph:
        index = {name: i for i, name in enumerate(nodes)}
        matrix = np.full((len(nodes), len(nodes)), np.nan)
        for s, t, v in zip(source, target, score, strict=True):
            matrix[index[s], index[t]] = float(v)
        largest = float(np.nanmax(np.abs(matrix))) if len(score) else 0.0
        if largest > SCORE_LIMIT:
            matrix = np.ldexp(matrix, SCORE_EXPONENT - math.frexp(largest)[1])
        return cls(tuple(nodes), matrix)

    def filled(self) -> np.ndarray:
        """Scores with 'not predicted' replaced by min(submitted) - 1 (0 if none)."""
        present = self.scores[~np.isnan(self.scores)]
        fill = 0.0
        if present.size:
            low = float(present.min())
            fill = low - 1.0 if low - 1.0 < low else float(np.nextafter(low, -np.inf))
        return np.where(np.isnan(self.scores), fill, self.scores)


def true_matrix(nodes: Sequence[str], edges: Sequence[tuple[str, str]]) -> np.ndarray:
    """Adjacency matrix (bool) of the true directed edges."""
    index = {name: i for i, name in enumerate(nodes)}
    adjacency = np.zeros((len(nodes), len(nodes)), dtype=bool)
    for s, t in edges:
        adjacency[index[s], index[t]] = True
    return adjacency


def _name_pairs(nodes: Sequence[str]) -> list[tuple[int, int]]:
    """Every unordered pair (a, b) with a's name before b's, in name order."""
    order = sorted(range(len(nodes)), key=lambda i: nodes[i])
    return [(order[x], order[y]) for x in range(len(order)) for y in range(x + 1, len(order))]


def ranked_selection(graph: ScoredGraph) -> list[tuple[int, int]]:
    """Every scored unordered pair, best first, as the oriented edge it would predict."""
    s = np.where(np.isnan(graph.scores), -np.inf, graph.scores)
    ranked = []
    for position, (a, b) in enumerate(_name_pairs(graph.nodes)):
        best = max(s[a, b], s[b, a])
        if best == -np.inf:
            continue
        edge = (a, b) if s[a, b] >= s[b, a] else (b, a)
        ranked.append((-best, position, edge))
    ranked.sort(key=lambda r: (r[0], r[1]))
    return [edge for _, _, edge in ranked]


def sensitivity_curve(graph: ScoredGraph, truth: np.ndarray, k_max: int = K_MAX
                      ) -> dict[str, list[float]]:
    """Every top-K metric for K = 1..k_max (K beyond the scored pairs selects them all)."""
    selection = ranked_selection(graph)
    skeleton = truth | truth.T
    n_true, n_skeleton = int(truth.sum()), int(np.triu(skeleton).sum())
    correct = np.array([truth[s, t] for s, t in selection], dtype=float)
    in_skeleton = np.array([skeleton[s, t] for s, t in selection], dtype=float)
    tp = np.concatenate([[0.0], np.cumsum(correct)])
    tp_skel = np.concatenate([[0.0], np.cumsum(in_skeleton)])
    curve: dict[str, list[float]] = {k: [] for k in (
        "k", "k_effective", "directed_precision", "directed_recall", "directed_f1",
        "skeleton_f1", "shd", "shd_reversal_2")}
    for k in range(1, k_max + 1):
        m = min(k, len(selection))
        d_tp, s_tp = tp[m], tp_skel[m]
        precision = d_tp / m if m else 0.0
        recall = d_tp / n_true if n_true else 0.0
        reversed_ = s_tp - d_tp
        curve["k"].append(float(k))
        curve["k_effective"].append(float(m))
        curve["directed_precision"].append(precision)
        curve["directed_recall"].append(recall)
        curve["directed_f1"].append(f1(d_tp, m, n_true))
        curve["skeleton_f1"].append(f1(s_tp, m, n_skeleton))
        curve["shd"].append(float((n_skeleton - s_tp) + (m - s_tp) + reversed_))
        curve["shd_reversal_2"].append(float((m - d_tp) + (n_true - d_tp)))
    return curve


def f1(hits: float, selected: int, true: int) -> float:
    """F1 = 2 TP / (selected + true) from the counts, in one division: equal fractions
    give the same double, so ties between K are exact (the harmonic mean of precision and
    recall, each rounded first, can differ in the last bit: 2/7 as 0.2857142857142857 and
    0.28571428571428575)."""
    return 0.0 if hits == 0 else 2.0 * hits / (selected + true)


def best_k(curve: dict[str, list[float]]) -> int:
    """K* = the smallest K with the highest directed F1 (exact ties: :func:`f1`)."""
    f1 = np.asarray(curve["directed_f1"])
    return int(curve["k"][int(np.argmax(f1))])


def robustness(curve: dict[str, list[float]], k: int, window: int = ROBUST_WINDOW
               ) -> tuple[float, str]:
    """(range of directed F1 over K in [k - window, k + window], its class)."""
    ks = np.asarray(curve["k"])
    f1 = np.asarray(curve["directed_f1"])
    near = f1[(ks >= k - window) & (ks <= k + window)]
    spread = float(near.max() - near.min()) if near.size else 0.0
    for threshold, label in ROBUSTNESS:
        if spread < threshold:
            return spread, label
    return spread, "sensitive"


def at_k(curve: dict[str, list[float]], k: int) -> dict[str, float]:
    """The curve's metrics at one K (clamped to the sweep)."""
    i = min(max(k, 1), len(curve["k"])) - 1
    return {name: values[i] for name, values in curve.items()}


def edge_ranking(graph: ScoredGraph, truth: np.ndarray) -> tuple[float | None, float | None]:
    """(AUROC, AUPRC) over every ordered off-diagonal pair."""
    off = ~np.eye(len(graph.nodes), dtype=bool)
    return ranking_metrics(truth[off].astype(float), graph.filled()[off])


def orientation(graph: ScoredGraph, truth: np.ndarray
                ) -> tuple[float | None, float | None, float | None]:
    """(score, AUC(Yhat, Y1), AUC(Yhat, Y2)) of the ChaLearn cause-effect-pairs protocol."""
    s = graph.filled()
    pairs = _name_pairs(graph.nodes)
    y_hat = np.array([s[a, b] - s[b, a] for a, b in pairs])
    y = np.array([1.0 if truth[a, b] else -1.0 if truth[b, a] else 0.0 for a, b in pairs])
    auc1 = ranking_metrics((y == 1).astype(float), y_hat)[0]
    auc2 = ranking_metrics((y >= 0).astype(float), y_hat)[0]
    if auc1 is None or auc2 is None:
        return None, auc1, auc2
    return 0.5 * (auc1 + auc2), auc1, auc2
