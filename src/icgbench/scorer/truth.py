"""Loading the ground truth of one cohort from a verified release (pyarrow + numpy only)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from icgbench import contract
from icgbench.contract.vocabulary import STATES
from icgbench.io.arrow import strings, to_numpy
from icgbench.release import encode
from icgbench.release.descriptor import Descriptor
from icgbench.release.files import checked_bytes
from icgbench.tasks.base import Truth

#: Tables the scorer reads for every cohort.
TRUTH_TABLES = ("test_outcomes", "test_states", "counterfactual_risks", "reachable_risks",
                "intervention_effects", "graph", "nodes", "model_free_scores")


@dataclass(frozen=True)
class LoadedTruth:
    """A cohort's truth plus where it came from."""

    truth: Truth
    resources: tuple[str, ...]


def _table(d: Descriptor, variant: str, seed: int, table: str) -> tuple[pa.Table, str]:
    r = d.find(variant, seed, table, "parquet")
    data = checked_bytes(d, r)  # hash (or content) checked: a tampered file stops here
    return encode.conform(encode.read_parquet_bytes(data), contract.table_schema(table),
                          r.name), r.name


def _rows_of_split(table: pa.Table, split: str) -> pa.Table:
    return table.filter(pc.is_in(table["split"], value_set=strings([split])))


def _by_split(table: pa.Table, column: str) -> dict[str, Any]:
    """Per split, the column: Arrow strings for ids, float64 numpy arrays otherwise."""
    out: dict[str, Any] = {}
    for split in ("test", "target_test"):
        values = _rows_of_split(table, split)[column].combine_chunks()
        out[split] = values if column == "subject_id" else np.asarray(
            to_numpy(values), dtype=np.float64)
    return out


def load_truth(d: Descriptor, variant: str, seed: int,
               tables: tuple[str, ...] = TRUTH_TABLES) -> LoadedTruth:
    """The named truth tables of one cohort, hash-verified, as a :class:`Truth`.

    ``test_outcomes`` (which lists the held-out subjects) is always read; parts of the
    :class:`Truth` whose tables are not asked for are left empty.
    """
    wanted = ("test_outcomes", *[t for t in tables if t != "test_outcomes"])
    loaded, names = {}, []
    for name in wanted:
        loaded[name], resource = _table(d, variant, seed, name)
        names.append(resource)
    return LoadedTruth(truth_from_tables(loaded), tuple(names))


def end_states(states: pa.Table, test_ids: Any) -> dict[str, np.ndarray]:
    """Each state at the end of follow-up: the rows of the test split at the table's
    largest ``month`` (whatever the rows' order), in the order of ``test_ids``."""
    end = _rows_of_split(states, "test")
    end = end.filter(pc.equal(end["month"], pc.max(states["month"])))
    if not end["subject_id"].combine_chunks().equals(test_ids):
        raise ValueError("test_states and test_outcomes order test subjects differently")
    return {s: to_numpy(end[s]) for s in STATES}


def truth_from_tables(loaded: dict[str, pa.Table]) -> Truth:
    """A :class:`Truth` from truth tables in the release's layout (``test_outcomes``
    required; ``test_states``, ``counterfactual_risks``, ``reachable_risks``,
    ``intervention_effects``, ``graph`` and ``nodes`` as present).

    The true average effect is not read from ``intervention_effects.mean_effect`` (rounded
    to 6 decimals): tasks compute it from the counterfactual risks.
    """
    outcomes = loaded["test_outcomes"]
    ids = _by_split(outcomes, "subject_id")
    ends = end_states(loaded["test_states"], ids["test"]) if "test_states" in loaded else {}
    counterfactual: dict[str, np.ndarray] = {}
    if "counterfactual_risks" in loaded:
        cf = loaded["counterfactual_risks"]
        cf = _rows_of_split(cf, "test")
        counterfactual = {c.removeprefix("risk__"): to_numpy(cf[c])
                          for c in cf.column_names if c.startswith("risk__")}
    effects = loaded["intervention_effects"].to_pylist() if "intervention_effects" in loaded \
        else []
    graph = loaded.get("graph")
    reachable: dict[str, np.ndarray] = {}
    reachable_cf: dict[str, np.ndarray] = {}
    if "reachable_risks" in loaded:
        reach = loaded["reachable_risks"]
        reachable = _by_split(reach, "risk")
        test = _rows_of_split(reach, "test")
        reachable_cf = {c.removeprefix("risk__"): to_numpy(test[c])
                        for c in test.column_names if c.startswith("risk__")}
    panel = floors_of_panel(loaded["model_free_scores"]) if "model_free_scores" in loaded \
        else {}
    return Truth(
        ids=ids,
        event=_by_split(outcomes, "event"),
        true_risk=_by_split(outcomes, "true_risk"),
        end_states=ends,
        counterfactual=counterfactual,
        prior_direction={e["intervention"]: int(e["prior_direction"]) for e in effects},
        dgp_direction={e["intervention"]: int(e["dgp_direction"]) for e in effects},
        edges=() if graph is None else tuple(zip(graph["source"].to_pylist(),
                                                 graph["target"].to_pylist(), strict=True)),
        nodes=tuple(loaded["nodes"]["node"].to_pylist()) if "nodes" in loaded else (),
        reachable_risk=reachable,
        reachable_counterfactual=reachable_cf,
        panel=panel,
    )


def floors_of_panel(table: pa.Table) -> dict[tuple[str, str], tuple[float, str]]:
    """(task, metric) -> the floor's value and answer: the row of a ``model_free_scores``
    table marked ``floor`` (one per metric, or the table is refused)."""
    from icgbench.tasks import TASKS

    out: dict[tuple[str, str], tuple[float, str]] = {}
    for row in table.to_pylist():
        key = (row["task"], row["metric"])
        task = TASKS.get(row["task"])
        if task is None or not any(p.metric == row["metric"] for p in task.normalized):
            raise ValueError(f"model_free_scores names a metric that is not normalized {key}")
        if not row["floor"]:
            continue
        if key in out:
            raise ValueError(f"model_free_scores marks two floors of {key}")
        out[key] = (float(row["value"]), row["answer"])
    return out


def public_truth(d: Descriptor, variant: str, seed: int) -> LoadedTruth:
    """What a sealed cohort publishes of its truth's frame: the held-out subjects' ids (from
    ``subjects``) and the node list, enough to check a submission completely."""
    subjects, name = _table(d, variant, seed, "subjects")
    nodes, nodes_name = _table(d, variant, seed, "nodes")
    ids = _by_split(subjects, "subject_id")
    truth = Truth(ids=ids, event={}, true_risk={}, end_states={}, counterfactual={},
                  prior_direction={}, dgp_direction={}, edges=(),
                  nodes=tuple(nodes["node"].to_pylist()))
    return LoadedTruth(truth, (name, nodes_name))
