"""Features a model can build from the public tables: visits flattened, masks imputed.

One row per subject: subject-level columns (dose, exposure mixture, KCC assay readouts,
host proxies, age, sex) and every observation feature at every visit
(``<feature>@<month>``). Masked values become NaN; :class:`Imputer` replaces them by the
train mean and, optionally, adds one missingness indicator per (modality, visit).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from icgbench.contract.vocabulary import feature_columns
from icgbench.models.base import CohortData

SUBJECT_PREFIXES = ("mix__", "kcc_assay__", "proxy__")


def subject_columns(subjects: pd.DataFrame) -> list[str]:
    return ["dose", "age"] + [c for c in subjects.columns if c.startswith(SUBJECT_PREFIXES)]


def feature_frame(data: CohortData) -> pd.DataFrame:
    """The wide feature table of every subject, indexed by subject_id (NaN where masked)."""
    subjects = data.subjects.set_index("subject_id")
    base = subjects[subject_columns(data.subjects)].astype(float)
    base["female"] = (subjects["sex"] == "F").astype(float)
    obs = data.observations
    columns = [c for cols in feature_columns().values() for c in cols]
    wide = obs.pivot(index="subject_id", columns="visit_month", values=columns)
    wide.columns = [f"{feature}@{month}" for feature, month in wide.columns]
    return base.join(wide.astype(float)).loc[subjects.index]


@dataclass
class Imputer:
    """Train-mean imputation, with optional missingness indicators per (modality, visit)."""

    indicators: bool = False
    means: pd.Series | None = None
    indicator_sources: dict[str, str] | None = None

    def fit(self, x: pd.DataFrame) -> Imputer:
        self.means = x.mean().fillna(0.0)
        if self.indicators:
            sources = {}
            for modality, cols in feature_columns().items():
                for column in x.columns:
                    feature, _, month = column.partition("@")
                    if feature == cols[0]:
                        sources[f"missing__{modality}@{month}"] = column
            self.indicator_sources = sources
        return self

    def transform(self, x: pd.DataFrame) -> np.ndarray:
        assert self.means is not None
        values = x.to_numpy(dtype=np.float64)  # a copy: x is never changed
        means = self.means.reindex(x.columns).to_numpy(dtype=np.float64)
        parts = [np.where(np.isnan(values), means, values)]  # DataFrame.fillna, per column
        if self.indicators and self.indicator_sources:
            flags = np.column_stack([x[src].isna().to_numpy(dtype=np.float64)
                                     for src in self.indicator_sources.values()])
            parts.append(flags)
        return np.hstack(parts)
