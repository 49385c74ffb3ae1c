"""The two-stage mechanism-bottleneck model (MB-CNet) that mbcnet_* models share.

Stage 1 maps observations to the end-of-follow-up bottleneck states, supervised by the
train split's public latent states; by default (:class:`ForestStage1`) one random forest
(200 trees, mean-imputed features) with the nine standardised states as outputs. ICg-CaST
fits one forest per state; one multi-output forest is about five times faster at
comparable R^2. Stage 2 maps predicted states to risk; it is trained on stage 1's
out-of-sample predictions of the train subjects, so it sees states as noisy as the ones it
will meet on test subjects.

The model implements the adapter protocol (``icgbench.api.adapter``): ``predict_proba(X)``,
``predict_bottleneck(X)``, and ``intervene(unit, scale)``, which multiplies a predicted
state before stage 2; its submission is written by the same function as anybody's.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestRegressor

from icgbench.contract.vocabulary import STATES
from icgbench.generator.interventions import scaled
from icgbench.models.base import CohortData, ReferenceModel
from icgbench.models.features import Imputer, feature_frame
from icgbench.models.seeding import model_seed

TREES = 200


class Stage2:
    """A risk model on standardised predicted states."""

    def fit(self, z: np.ndarray, y: np.ndarray, weight: np.ndarray | None = None) -> Stage2:
        """Fit on standardised states ``z``, events ``y`` and optional row weights."""
        raise NotImplementedError

    def proba(self, z: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def coefficients(self) -> np.ndarray:
        """Per-state coefficients on the standardised scale (for the sign audit)."""
        raise NotImplementedError


class Stage1:
    """Observations -> standardised end-of-follow-up states."""

    def fit(self, x: pd.DataFrame, z: np.ndarray, seed: int) -> np.ndarray:
        """Fit on the train subjects' features ``x`` and standardised states ``z``; return
        out-of-sample predictions of ``z`` (what stage 2 trains on)."""
        raise NotImplementedError

    def predict(self, x: pd.DataFrame) -> np.ndarray:
        raise NotImplementedError


class ForestStage1(Stage1):
    """One multi-output random forest behind mean imputation; out-of-bag predictions."""

    def fit(self, x: pd.DataFrame, z: np.ndarray, seed: int) -> np.ndarray:
        self.imputer = Imputer().fit(x)
        self.forest = RandomForestRegressor(
            n_estimators=TREES, max_features="sqrt", min_samples_leaf=2, oob_score=True,
            random_state=seed, n_jobs=1)
        xt = self.imputer.transform(x)
        self.forest.fit(xt, z)
        oob = self.forest.oob_prediction_
        missing = np.isnan(oob)
        if missing.any():  # a subject in every bootstrap sample: use its in-sample prediction
            oob[missing] = self.forest.predict(xt)[missing]
        return oob

    def predict(self, x: pd.DataFrame) -> np.ndarray:
        return self.forest.predict(self.imputer.transform(x))


class BottleneckModel(ReferenceModel):
    """A stage 1 (the forest unless the subclass says otherwise) + a stage 2 chosen by the
    subclass."""

    blocks = ("risk_prediction", "latent_recovery", "intervention_conformity",
              "cross_host_generalization")

    def make_stage1(self) -> Stage1:
        return ForestStage1()

    def make_stage2(self, data: CohortData) -> Stage2:
        raise NotImplementedError

    def fit(self, data: CohortData) -> None:
        x = feature_frame(data)
        end = data.end_states()
        train_ids = data.train_outcomes.subject_id.tolist()
        states = end.loc[train_ids, list(STATES)].to_numpy(dtype=np.float64)
        self.states_train = states
        self.mean, self.sd = states.mean(axis=0), states.std(axis=0)
        self.sd[self.sd == 0] = 1.0
        self.stage1 = self.make_stage1()
        self.z_train = self.stage1.fit(x.loc[train_ids], (states - self.mean) / self.sd,
                                       model_seed("stage1", data.variant, data.seed))
        self.y_train = data.train_outcomes.event.to_numpy()
        self.stage2 = self.make_stage2(data).fit(*self.stage2_rows(data))
        self.units: dict[str, float] = {}
        self._cached: tuple[pd.DataFrame, np.ndarray] | None = None

    def stage2_rows(self, data: CohortData) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Stage 2's training rows (z, y, weight): the train subjects, unweighted."""
        return self.z_train, self.y_train, None

    def predict_z(self, X: pd.DataFrame) -> np.ndarray:
        """Predicted standardised states of the subjects of ``X`` (subjects x states).

        The last ``X`` is remembered (by identity), so the adapter's repeated calls on one
        split run the forest once.
        """
        if self._cached is None or self._cached[0] is not X:
            self._cached = (X, self.stage1.predict(X))
        return self._cached[1]

    def predict_bottleneck(self, X: pd.DataFrame) -> pd.DataFrame:
        """End-of-follow-up states on their natural scale, one column per state."""
        return pd.DataFrame(self.predict_z(X) * self.sd + self.mean, index=X.index,
                            columns=list(STATES))

    def intervene(self, unit: str, scale: float) -> None:
        """Multiply state ``unit`` by ``scale`` before stage 2, until cleared."""
        if unit not in STATES:
            raise ValueError(f"unknown state {unit!r}")
        self.units[unit] = scale

    def clear_interventions(self) -> None:
        self.units = {}

    def intervened(self, z: np.ndarray, units: dict[str, float]) -> np.ndarray:
        """Standardised states after multiplying each named state by its scale (the other
        states held: the seed's MB-CNet intervenes on one unit of its bottleneck)."""
        return (scaled(z * self.sd + self.mean, units) - self.mean) / self.sd

    def predict_proba(self, X: pd.DataFrame) -> np.ndarray:
        """Event probability of the subjects of ``X`` under the current interventions."""
        z = self.predict_z(X)
        return self.stage2.proba(self.intervened(z, self.units) if self.units else z)

    def predict(self, data: CohortData) -> dict[str, Any]:
        from icgbench.api.adapter import predicted_blocks  # the adapter imports the models

        return predicted_blocks(self, data)
