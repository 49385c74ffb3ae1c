"""structure_recovery: the causal graph over the public nodes, from a scored edge list.

The submission scores directed edges between the public nodes (the ten KCC assay columns,
the nine states, the outcome). The graph is graded at one sparsity K, chosen by the
calibration protocol of RC-GNN: a model's K* is the K that maximises directed F1 on its
submission for the release's calibration cohort (named in the descriptor), and its other
cohorts are graded at that same K*, never re-tuned. The K comes from, in order: the
scorer's ``structure_k`` option (the leaderboard passes the model's K*), the block's own
``k``, or, failing both, this cohort's own best K (reported as in-sample, not calibrated).
Beside it: F1's robustness over K* +/- 5, the whole sensitivity curve over a fixed K sweep
(1..120, independent of the true edge count), threshold-free edge AUROC and AUPRC, and the
ChaLearn cause-effect-pairs orientation score.

**One protocol for everybody**: the category's normalized score is defined only at a
calibrated K. A graph graded at its own cohort's best K (in hindsight, as on the
calibration cohort itself, where K* is chosen) is reported but not normalized, and the
model-free floor is graded the same way: each panel answer at the K* of its own
calibration-cohort graph (:mod:`icgbench.model_free.panel`), the ceiling too.
"""

from __future__ import annotations

from dataclasses import replace

from icgbench.tasks import graph_metrics as g
from icgbench.tasks.base import Blocks, Metric, Normalized, Task, TaskResult, Truth


def _n_pairs(truth: Truth) -> int:
    n = len(truth.nodes)
    return n * (n - 1)


def density(truth: Truth) -> float | None:
    """The expected directed F1 of E ordered pairs drawn at random, E the true edges among
    N ordered pairs: E / N (the random F1 2 K E / (N (K + E)) at K = E)."""
    e = len(truth.edges)
    return e / _n_pairs(truth) if e else None


METRICS = (
    Metric("k", None, "The sparsity K the graph is graded at."),
    Metric("directed_precision", True, "Share of the K selected directed edges that are true.",
           None, 1.0),
    Metric("directed_recall", True, "Share of the true directed edges selected.", None, 1.0),
    Metric("directed_f1", True, "Harmonic mean of directed precision and recall at K.", None,
           1.0),
    Metric("skeleton_f1", True, "F1 of the selected pairs against the true skeleton "
           "(direction ignored).", None, 1.0),
    Metric("shd", False, "Structural Hamming distance at K: missing + extra + reversed, a "
           "reversal counting 1 (Tsamardinos et al., gCastle).", None, 0.0),
    Metric("shd_reversal_2", False, "SHD with a reversal counting 2 (RC-GNN): "
           "|predicted - true| + |true - predicted| over directed edges.", None, 0.0),
    Metric("f1_range_k_pm5", False, "max - min directed F1 over K +/- 5: < 0.1 robust, "
           "< 0.2 moderate, else sensitive.", None, 0.0, ranked=False),
    Metric("edge_auroc", True, "AUROC of the scores over every ordered off-diagonal pair.",
           0.5, 1.0),
    Metric("edge_auprc", True, "Average precision of the scores over every ordered pair.",
           lambda t: len(t.edges) / _n_pairs(t), 1.0, "true edges / ordered pairs"),
    Metric("orientation_score", True, "ChaLearn: 0.5 (AUC(Yhat, Y1) + AUC(Yhat, Y2)) over "
           "unordered pairs.", 0.5, 1.0),
    Metric("orientation_auc_y1", True, "AUC(Yhat, Y1): A->B against the rest.", 0.5, 1.0),
    Metric("orientation_auc_y2", True, "AUC(Yhat, Y2): B->A against the rest.", 0.5, 1.0),
    Metric("n_scored_pairs", None, "Unordered pairs with a score in either direction."),
)
#: Every structure metric reads the one true graph the cohort has.
METRICS = tuple(replace(m, cohort_level=True) for m in METRICS)


def score(blocks: Blocks, truth: Truth) -> TaskResult:
    block = blocks["structure_recovery"]
    graph = g.ScoredGraph.from_edges(truth.nodes, block["source"], block["target"],
                                     block["score"])
    adjacency = g.true_matrix(truth.nodes, truth.edges)
    curve = g.sensitivity_curve(graph, adjacency)
    in_sample = g.best_k(curve)
    if block.get("k_override") is not None:
        k, source = int(block["k_override"]), "calibration (given to the scorer)"
    elif block.get("k") is not None:
        k, source = int(block["k"]), "calibration (declared in the submission)"
    else:
        k, source = in_sample, IN_SAMPLE
    at = g.at_k(curve, k)
    spread, label = g.robustness(curve, k)
    auroc, auprc = g.edge_ranking(graph, adjacency)
    orient, auc1, auc2 = g.orientation(graph, adjacency)
    metrics = {
        "k": k,
        **{name: at[name] for name in ("directed_precision", "directed_recall", "directed_f1",
                                       "skeleton_f1", "shd", "shd_reversal_2")},
        "f1_range_k_pm5": spread,
        "edge_auroc": auroc, "edge_auprc": auprc, "orientation_score": orient,
        "orientation_auc_y1": auc1, "orientation_auc_y2": auc2,
        "n_scored_pairs": len(g.ranked_selection(graph)),
    }
    details = {"k_source": source, "best_k_in_sample": in_sample, "robustness": label,
               "true_edges": len(truth.edges), "curve": curve}
    return TaskResult(metrics, details)


IN_SAMPLE = "in-sample: this cohort's own best K (not calibrated)"


def not_calibrated(result: TaskResult) -> str | None:
    """A graph graded at its own best K is not normalized (see the module)."""
    if result.details.get("k_source") != IN_SAMPLE:
        return None
    return ("not normalized: graded at this cohort's own best K, in hindsight (the "
            "calibration cohort, or no K given); the category is normalized at a calibrated "
            "K only (--structure-k, or the block's k)")


TASK = Task(
    name="structure_recovery",
    order=50,
    description="The causal graph over the public nodes: top-K directed F1 and SHD at the "
    "calibrated K, sensitivity curves, edge AUROC/AUPRC and orientation.",
    blocks=("structure_recovery",),
    split=None,
    block_schema={
        "type": "object", "additionalProperties": False,
        "required": ["source", "target", "score"],
        "description": "Scored directed edges over the public nodes (higher = more "
        "confident); pairs left out are not predicted; no self-loops, each ordered pair "
        "at most once. Optional k: the sparsity the model commits to (its K* from its "
        "calibration-cohort submission).",
        "properties": {
            "source": {"type": "array", "items": {"$ref": "#/definitions/node"}},
            "target": {"type": "array", "items": {"$ref": "#/definitions/node"}},
            "score": {"type": "array", "items": {"type": "number"}},
            "k": {"type": "integer", "minimum": 1},
        },
    },
    truth_tables=("test_outcomes", "graph", "nodes", "model_free_scores"),
    metrics=METRICS,
    headline=("directed_f1", "k", "shd", "shd_reversal_2", "skeleton_f1", "edge_auprc",
              "orientation_score", "f1_range_k_pm5"),
    score=score,
    category="structure",
    normalized=(Normalized("directed_f1", density,
                           "E / N: E ordered pairs chosen at random, E true edges among N "
                           "ordered pairs"),
                Normalized("edge_auprc")),
    unnormalizable=not_calibrated,
)
