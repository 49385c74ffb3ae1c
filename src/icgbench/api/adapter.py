"""The model adapter: any object with the seed's methods plus a cohort -> a submission.

ICg-Bench is model-agnostic through three methods (seed 000): ``predict_proba`` for risk,
``predict_bottleneck`` for the latent states, and ``intervene``/``clear_interventions`` for
do-interventions on those states. Any object that has them, a scikit-learn pipeline
wrapped in a few lines for instance, becomes a complete, valid submission here:

    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.impute import SimpleImputer
    >>> from icgbench.api.adapter import features, write_submission
    >>> from icgbench.models import CohortData
    >>> cohort = CohortData.load("linear_lowhet")
    >>> pipe = make_pipeline(SimpleImputer(), LogisticRegression(max_iter=1000))
    >>> pipe.fit(features(cohort, "train"), cohort.train_outcomes.event)
    >>> write_submission(pipe, cohort, "submission.json", name="my_model", version="1.0")

Every method receives ``X``, the wide feature table of one split (``features``): one row
per subject in the release's order, indexed by ``subject_id``. Which blocks are written
follows from which methods the object has: ``predict_proba`` alone gives
risk_prediction and cross_host_generalization; ``predict_bottleneck`` adds
latent_recovery; ``intervene`` and ``clear_interventions`` add intervention_conformity.
structure_recovery is not a per-subject prediction and is outside this protocol (write its
block yourself, see docs/submission.md). The reference bottleneck models go through this
same path.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
import pandas as pd

from icgbench import __version__
from icgbench.api.template import header
from icgbench.contract.vocabulary import STATES
from icgbench.errors import UsageError
from icgbench.io.atomic import write_bytes
from icgbench.models.base import CohortData, rounded
from icgbench.models.features import feature_frame

__all__ = ["SupportsBottleneck", "SupportsProba", "features", "predicted_blocks",
           "submission", "write_submission"]


@runtime_checkable
class SupportsProba(Protocol):
    """A risk model: event probabilities, as scikit-learn's (n, 2) array or a vector (n,)."""

    def predict_proba(self, X: pd.DataFrame) -> Any: ...


@runtime_checkable
class SupportsBottleneck(SupportsProba, Protocol):
    """A mechanism-bottleneck model (MB-CNet-shaped).

    ``predict_bottleneck(X)`` gives the end-of-follow-up value of each state (a DataFrame
    with one column per state name, or an (n, 9) array in ``icgbench.contract.vocabulary.STATES``
    order). ``intervene(unit, scale)`` multiplies state ``unit`` by ``scale`` in every later
    ``predict_proba`` until ``clear_interventions()``.
    """

    def predict_bottleneck(self, X: pd.DataFrame) -> Any: ...

    def intervene(self, unit: str, scale: float) -> None: ...

    def clear_interventions(self) -> None: ...


def features(data: CohortData, split: str) -> pd.DataFrame:
    """X for one split: the wide feature table (NaN where masked), rows in release order.

    Subject-level columns (dose, exposure mixture, KCC assay readings, host proxies, age,
    female) and every observation feature at every visit (``<feature>@<month>``).
    """
    ids = data.ids(split)
    if not ids:
        raise UsageError(f"the cohort has no {split!r} subjects")
    return feature_frame(data).loc[ids]


def _has(model: object, *methods: str) -> bool:
    return all(callable(getattr(model, m, None)) for m in methods)


def _proba(model: SupportsProba, X: pd.DataFrame) -> np.ndarray:
    raw = np.asarray(model.predict_proba(X), dtype=np.float64)
    if raw.ndim == 2 and raw.shape[1] == 2:
        raw = raw[:, 1]
    if raw.shape != (len(X),):
        raise UsageError(f"predict_proba returned shape {raw.shape} for {len(X)} subjects; "
                         "expected (n,) or (n, 2)")
    if not np.all(np.isfinite(raw)) or raw.min() < 0 or raw.max() > 1:
        raise UsageError("predict_proba returned values outside [0, 1] or not finite")
    return raw


def _states(model: SupportsBottleneck, X: pd.DataFrame) -> dict[str, list[float]]:
    raw = model.predict_bottleneck(X)
    if isinstance(raw, pd.DataFrame):
        missing = [s for s in STATES if s not in raw.columns]
        if missing:
            raise UsageError(f"predict_bottleneck lacks the state column(s) {missing}")
        values = raw[list(STATES)].to_numpy(dtype=np.float64)
    else:
        values = np.asarray(raw, dtype=np.float64)
    if values.shape != (len(X), len(STATES)):
        raise UsageError(f"predict_bottleneck returned shape {values.shape}; expected "
                         f"({len(X)}, {len(STATES)}), one column per state")
    if not np.all(np.isfinite(values)):
        raise UsageError("predict_bottleneck returned values that are not finite")
    return {s: rounded(values[:, j]) for j, s in enumerate(STATES)}


def _intervened(model: SupportsBottleneck, X: pd.DataFrame,
                scales: dict[str, dict[str, float]]) -> dict[str, list[float]]:
    out = {}
    try:
        for name, unit in scales.items():
            model.clear_interventions()
            for state, scale in unit.items():
                model.intervene(state, scale)
            out[name] = rounded(_proba(model, X))
    finally:
        model.clear_interventions()
    return out


def predicted_blocks(model: SupportsProba, data: CohortData) -> dict[str, Any]:
    """The task blocks ``model``'s methods support, predicted on ``data``'s subjects."""
    if not _has(model, "predict_proba"):
        raise UsageError(f"{type(model).__name__} has no predict_proba method")
    frame = feature_frame(data)
    test, target = frame.loc[data.ids("test")], frame.loc[data.ids("target_test")]
    test_ids = test.index.tolist()
    p = rounded(_proba(model, test))
    blocks: dict[str, Any] = {"risk_prediction": {"subject_id": test_ids, "proba": p}}
    if _has(model, "predict_bottleneck"):
        blocks["latent_recovery"] = {"subject_id": test_ids, "states": _states(model, test)}
    if _has(model, "intervene", "clear_interventions"):
        blocks["intervention_conformity"] = {
            "subject_id": test_ids, "proba": p,
            "interventions": _intervened(model, test, data.intervention_scales())}
    blocks["cross_host_generalization"] = {"subject_id": target.index.tolist(),
                                           "proba": rounded(_proba(model, target))}
    return blocks


def submission(model: SupportsProba, data: CohortData, *, name: str, version: str,
               language: str = "Python", description: str | None = None) -> dict[str, Any]:
    """A complete submission document: the cohort's header, ``model``'s identity, blocks."""
    info = {"name": name, "version": version, "language": language}
    if description:
        info["description"] = description
    return {**header(data.variant, data.seed, data.tier, data.data_version, info),
            **predicted_blocks(model, data)}


def write_submission(model: SupportsProba, data: CohortData, path: str | Path, *,
                     name: str, version: str = __version__, language: str = "Python",
                     description: str | None = None) -> Path:
    """Write ``model``'s submission to ``path`` (gzip when it ends in .gz); the path.

    Validate and grade it with ``icgbench score PATH`` or ``icgbench.scorer.score(PATH)``.
    """
    doc = submission(model, data, name=name, version=version, language=language,
                     description=description)
    text = (json.dumps(doc, allow_nan=False, separators=(",", ":")) + "\n").encode()
    path = Path(path)
    write_bytes(path, gzip.compress(text, mtime=0) if path.suffix == ".gz" else text)
    return path
