"""Resampling a cohort's held-out subjects: what one cohort's scores would be on another draw
of the same population, for the power analysis and the spans (:mod:`.power`, :mod:`.spans`).

Both models of a comparison are resampled alike; every per-subject metric is graded again
by the task's own function; floors and ceilings are held (a difference of two scores does not
depend on them, and a span is measured against the metric's own spread). Structure, which no
subject enters, is resampled over its node pairs instead (:func:`pair_bootstrap`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from icgbench.leaderboard.entry import LeaderboardEntry


def bootstrap(pair: list[LeaderboardEntry], folder: Path, root: Path | None,
               resamples: int, rng: np.random.Generator
               ) -> list[tuple[dict[tuple[str, str], float], dict[tuple[str, str], float]]]:
    """Both entries' per-subject normalized metrics on ``resamples`` resamplings of the
    cohort's held-out subjects (the same resampling for both)."""
    from icgbench.scorer import check_submission

    validated = [check_submission(folder / e.submission_path, root=root) for e in pair]
    truth = validated[0].truth
    sizes = {s: len(truth.ids[s]) for s in ("test", "target_test")}
    out = []
    for _ in range(resamples):
        index = {s: rng.integers(0, n, n) for s, n in sizes.items()}
        graded = []
        for v in validated:
            cut, blocks = resample(v.truth, v.blocks, index)
            graded.append(per_subject_parts(blocks, cut))
        out.append((graded[0], graded[1]))
    return out


def _resampled(value: Any, index: np.ndarray, n: int) -> Any:
    if isinstance(value, dict):
        return {k: _resampled(v, index, n) for k, v in value.items()}
    if isinstance(value, np.ndarray) and value.ndim >= 1 and len(value) == n:
        return value[index]
    return value


def resample(truth: Any, blocks: Mapping[str, Any], index: Mapping[str, np.ndarray]
              ) -> tuple[Any, dict[str, Any]]:
    """``truth`` and aligned ``blocks`` with each split's subjects drawn by ``index``."""
    from dataclasses import replace

    import pyarrow as pa

    from icgbench.tasks import BLOCK_SPLITS

    def per_split(field: Mapping[str, Any]) -> dict[str, Any]:
        return {s: v[index[s]] if s in index else v for s, v in field.items()}

    n_test = len(truth.ids["test"])
    cut = replace(
        truth,
        ids={s: v.take(pa.array(index[s])) if s in index else v for s, v in truth.ids.items()},
        event=per_split(truth.event), true_risk=per_split(truth.true_risk),
        reachable_risk=per_split(truth.reachable_risk),
        end_states=_resampled(dict(truth.end_states), index["test"], n_test),
        counterfactual=_resampled(dict(truth.counterfactual), index["test"], n_test),
        reachable_counterfactual=_resampled(dict(truth.reachable_counterfactual),
                                            index["test"], n_test))
    out = {}
    for name, block in blocks.items():
        split = BLOCK_SPLITS.get(name)
        size = len(truth.ids[split]) if split in truth.ids else 0
        out[name] = _resampled(dict(block), index[split], size) if split in index else block
    return cut, out


def per_subject_parts(blocks: Mapping[str, Any], truth: Any) -> dict[tuple[str, str], float]:
    """Every per-subject normalized metric of ``blocks`` (structure is not resampled)."""
    from icgbench.tasks import TASKS

    out = {}
    for name, task in TASKS.items():
        if task.name == "structure_recovery" or not set(task.blocks) <= set(blocks):
            continue
        metrics = task.score(blocks, truth).metrics
        for part in task.normalized:
            value = metrics.get(part.metric)
            if value is not None:
                out[(name, part.metric)] = float(value)
    return out


def pair_bootstrap(block: Mapping[str, Any], truth: Any, k: int, resamples: int,
                   rng: np.random.Generator) -> dict[str, list[float]]:
    """A graph's directed F1 at ``k`` and edge AUPRC on ``resamples`` resamplings of the
    ordered node pairs (each pair keeps its score, its truth and whether the top-``k``
    selection holds it): the resolution of the metrics on one cohort's graph."""
    from icgbench.tasks import graph_metrics as g
    from icgbench.tasks.metrics import ranking_metrics

    graph = g.ScoredGraph.from_edges(truth.nodes, block["source"], block["target"],
                                     block["score"])
    adjacency = g.true_matrix(truth.nodes, truth.edges)
    off = ~np.eye(len(truth.nodes), dtype=bool)
    selected = np.zeros_like(adjacency, dtype=bool)
    for a, b in g.ranked_selection(graph)[:k]:
        selected[a, b] = True
    labels = adjacency[off].astype(float)
    chosen = selected[off].astype(float)
    scores = graph.filled()[off]
    out: dict[str, list[float]] = {"directed_f1": [], "edge_auprc": []}
    n = len(labels)
    for _ in range(resamples):
        i = rng.integers(0, n, n)
        hits, picked, true = float(np.sum(chosen[i] * labels[i])), chosen[i].sum(), labels[i].sum()
        out["directed_f1"].append(2 * hits / (picked + true) if picked + true else 0.0)
        auprc = ranking_metrics(labels[i], scores[i])[1]
        if auprc is not None:
            out["edge_auprc"].append(auprc)
    return out
