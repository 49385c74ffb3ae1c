"""One cohort as scikit-learn users hold data: aligned feature tables and training labels.

The public tables are long (five visits per subject, masks apart, outcomes and states in
their own tables); :func:`load_xy` joins them once, in the release's subject order, so a
first model is ``fit(X_train, y_train)`` and ``predict_proba(X_test)``. The data are
synthetic: nothing here describes real people or real agents.

    >>> import icgbench
    >>> xy = icgbench.load_xy("linear_lowhet")
    >>> xy.X_train.shape[0] == len(xy.y_train) == len(xy.end_states_train)
    True
    >>> bool((xy.X_train.index == xy.y_train.index).all())
    True
    >>> X_train, y_train, X_test = icgbench.load_xy("linear_lowhet", return_X_y=True)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal, overload

import pandas as pd

from icgbench.contract.vocabulary import STATES
from icgbench.models.base import CohortData


@dataclass(frozen=True)
class TrainTest:
    """A cohort's model inputs and training labels, every table indexed by ``subject_id``.

    ``X_*``: the wide feature table of a split (NaN where a modality is masked; see
    :func:`icgbench.api.adapter.features`). ``y_train``: the train subjects' events (0/1).
    ``end_states_train``: their bottleneck states at the end of follow-up (the labels of
    latent recovery). ``X_target_test``: the shifted host population of
    cross_host_generalization. ``cohort``: the public tables themselves.
    """

    X_train: pd.DataFrame
    y_train: pd.Series
    end_states_train: pd.DataFrame
    X_test: pd.DataFrame
    X_target_test: pd.DataFrame
    cohort: CohortData


@overload
def load_xy(variant: str, seed: int | None = ..., *, tier: str = ...,
            root: Path | None = ..., return_X_y: Literal[False] = ...) -> TrainTest: ...
@overload
def load_xy(variant: str, seed: int | None = ..., *, tier: str = ...,
            root: Path | None = ..., return_X_y: Literal[True]
            ) -> tuple[pd.DataFrame, pd.Series, pd.DataFrame]: ...


def load_xy(variant: str, seed: int | None = None, *, tier: str = "small",
            root: Path | None = None, return_X_y: bool = False
            ) -> TrainTest | tuple[pd.DataFrame, pd.Series, pd.DataFrame]:
    """The cohort's aligned tables (:class:`TrainTest`); with ``return_X_y``, only
    ``(X_train, y_train, X_test)``, as scikit-learn's loaders give them."""
    from icgbench.api.adapter import features

    cohort = CohortData.load(variant, seed, tier, root)
    X_train = features(cohort, "train")
    y_train = cohort.train_outcomes.set_index("subject_id")["event"].loc[X_train.index]
    X_test = features(cohort, "test")
    if return_X_y:
        return X_train, y_train, X_test
    end = cohort.end_states()[list(STATES)].loc[X_train.index]
    return TrainTest(X_train, y_train.rename("event"), end, X_test,
                     features(cohort, "target_test"), cohort)
