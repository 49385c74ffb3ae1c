"""The public nodes' values on the train split, for structure-recovery models.

A KCC assay node's value is the subject's assay readout, a state's its end-of-follow-up
value (``train_states``), the outcome's the event (``train_outcomes``): one row per train
subject. ``trajectories`` gives each state at every visit, for temporal precedence.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from icgbench.contract.vocabulary import OUTCOME_NODE, STATES
from icgbench.generator.mechanism import graph_nodes
from icgbench.models.base import CohortData


def node_names() -> list[str]:
    return [name for name, _ in graph_nodes()]


def node_kinds() -> dict[str, str]:
    return dict(graph_nodes())


def node_matrix(data: CohortData) -> tuple[list[str], np.ndarray]:
    """(node names, train subjects x nodes matrix)."""
    train = data.train_outcomes.set_index("subject_id")
    subjects = data.subjects.set_index("subject_id").loc[train.index]
    end = data.end_states().loc[train.index]
    columns = []
    for name, kind in graph_nodes():
        if kind == "kcc_assay":
            columns.append(subjects[name].to_numpy(dtype=float))
        elif kind == "state":
            columns.append(end[name].to_numpy(dtype=float))
        else:
            columns.append(train[OUTCOME_NODE].to_numpy(dtype=float))
    return node_names(), np.column_stack(columns)


def trajectories(data: CohortData) -> pd.DataFrame:
    """Train states at every recorded month: rows (subject, month), one column per state."""
    return data.train_states.sort_values(["subject_id", "month"])[
        ["subject_id", "month", *STATES]]


def standardised(x: np.ndarray) -> np.ndarray:
    """Each column centred and scaled to unit variance (a constant column is only centred)."""
    sd = x.std(axis=0)
    return (x - x.mean(axis=0)) / np.where(sd > 0, sd, 1.0)


def visit_panel(data: CohortData) -> tuple[list[str], list[int], np.ndarray]:
    """(node names, visit months, train subjects x visits x nodes array) for panel methods.

    A state's value at a visit is its value at that month (``train_states``); a KCC assay,
    read once before follow-up, repeats its readout at every visit; the outcome is known
    only at the end of follow-up, so it is NaN at every earlier visit. Subjects are in
    ``train_outcomes`` order, visits in month order.
    """
    names, x = node_matrix(data)
    ids = data.train_outcomes.subject_id.to_numpy()
    months = sorted(int(m) for m in data.train_states.month.unique())
    index = pd.MultiIndex.from_product([ids, months], names=["subject_id", "month"])
    states = data.train_states.set_index(["subject_id", "month"]).reindex(index)
    panel = np.repeat(x[:, None, :], len(months), axis=1)
    kinds = node_kinds()
    for column, name in enumerate(names):
        if kinds[name] == "state":
            panel[:, :, column] = states[name].to_numpy(dtype=float).reshape(
                len(ids), len(months))
        elif kinds[name] == "outcome":
            panel[:, :-1, column] = np.nan
    return names, months, panel
