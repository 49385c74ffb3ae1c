"""The public nodes' values on the train split, for structure-recovery models.

A KCC assay node's value is the subject's assay readout, a state's its end-of-follow-up
value (``train_states``), the outcome's the event (``train_outcomes``): one row per train
subject. ``trajectories`` gives each state at every visit, for temporal precedence.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from icgbench.generator.mechanism import graph_nodes
from icgbench.models.base import CohortData
from icgbench.vocabulary import OUTCOME_NODE, STATES


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
