"""What a model-free answer may read of a cohort: its public tables, as arrays."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from icgbench.contract.vocabulary import (
    EPIGENOMIC_MODULES,
    KCCS,
    STATES,
    TRANSCRIPTOMIC_MODULES,
    kcc_assay_column,
)
from icgbench.generator.variants import Variant

HELD_OUT = ("test", "target_test")
#: The splits an answer predicts: train too, where the floor's choice reads its score.
SPLITS = ("train", *HELD_OUT)
#: The omics modules an answer decodes, in the measurement model's order.
OMICS_COLUMNS = (*(f"tx__{m}" for m in TRANSCRIPTOMIC_MODULES),
                 *(f"epi__{m}" for m in EPIGENOMIC_MODULES))


def _frame(table: Any) -> pd.DataFrame:
    return table if isinstance(table, pd.DataFrame) else table.to_pandas()


@dataclass(frozen=True)
class PanelInputs:
    """A cohort's public tables as the panel's answers read them (every split in release
    order; ``train_end`` and ``train_event`` follow ``ids["train"]``)."""

    variant: Variant
    ids: Mapping[str, list[str]]  # split -> subject ids: train, test, target_test
    train_end: np.ndarray  # (n, S) train states at the end of follow-up
    train_event: np.ndarray  # (n,) 0/1
    dose: Mapping[str, np.ndarray]
    assays: Mapping[str, np.ndarray]  # (n, KCCs)
    age: Mapping[str, np.ndarray]
    omics: Mapping[str, np.ndarray]  # (n, modules) latest observed value, NaN if none
    mutation_count: Mapping[str, np.ndarray]  # latest observed, NaN if none
    scales: Mapping[str, Mapping[str, float]]  # intervention -> state -> scale
    prior_direction: Mapping[str, int]
    prior_signs: np.ndarray  # (S,)
    prior_graph: tuple[tuple[str, str], ...]
    nodes: tuple[str, ...]
    #: What answers compute once and share (decoded states, calibrated equations).
    memo: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    def remembered(self, key: Any, compute: Any) -> Any:
        """``compute()``, computed once per key for these inputs."""
        if key not in self.memo:
            self.memo[key] = compute()
        return self.memo[key]

    @property
    def train_rate(self) -> float:
        return float(np.mean(self.train_event))

    @property
    def held_out(self) -> dict[str, list[str]]:
        """The ids of the held-out splits (what a submission predicts)."""
        return {s: self.ids[s] for s in HELD_OUT}

    @classmethod
    def from_tables(cls, variant: Variant, tables: Mapping[str, Any]) -> PanelInputs:
        """From the cohort's public tables (Arrow tables or pandas frames by name)."""
        subjects = _frame(tables["subjects"]).set_index("subject_id")
        states = _frame(tables["train_states"])
        end = states[states.month == states.month.max()].set_index("subject_id")
        events = _frame(tables["train_outcomes"]).set_index("subject_id").event
        obs = _frame(tables["observations"]).sort_values(["subject_id", "visit_month"])
        latest = obs.groupby("subject_id", sort=False)[
            [*OMICS_COLUMNS, "mut_total_count"]].last()
        ids = {s: subjects.index[subjects.split == s].tolist() for s in SPLITS}
        registry = _frame(tables["interventions"])
        scales: dict[str, dict[str, float]] = {}
        for row in registry.itertuples():
            scales.setdefault(row.intervention, {})[row.state] = float(row.scale)
        prior = _frame(tables["structural_prior"]).set_index("state").loc[list(STATES)]
        graph = _frame(tables["prior_graph"])
        return cls(
            variant=variant,
            ids=ids,
            train_end=end.loc[ids["train"], list(STATES)].to_numpy(dtype=np.float64),
            train_event=events.loc[ids["train"]].to_numpy(dtype=np.float64),
            dose={s: subjects.loc[i, "dose"].to_numpy(dtype=np.float64)
                  for s, i in ids.items()},
            assays={s: subjects.loc[i, [kcc_assay_column(k) for k in KCCS]].to_numpy(
                dtype=np.float64) for s, i in ids.items()},
            age={s: subjects.loc[i, "age"].to_numpy(dtype=np.float64) for s, i in ids.items()},
            omics={s: latest.reindex(i)[list(OMICS_COLUMNS)].to_numpy(dtype=np.float64)
                   for s, i in ids.items()},
            mutation_count={s: latest.reindex(i)["mut_total_count"].to_numpy(
                dtype=np.float64) for s, i in ids.items()},
            scales=scales,
            prior_direction=dict(registry.groupby("intervention", sort=False)
                                 .prior_direction.first().astype(int)),
            prior_signs=prior.prior_sign.to_numpy(dtype=np.int64),
            prior_graph=tuple(zip(graph.source, graph.target, strict=True)),
            nodes=tuple(_frame(tables["nodes"]).node),
        )
