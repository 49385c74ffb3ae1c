"""The two-stage mechanism-bottleneck model (MB-CNet) that mbcnet_* models share.

Stage 1 maps observations to the end-of-follow-up bottleneck states, supervised by the
train split's public latent states: one random forest (200 trees, mean-imputed features)
with the nine standardised states as outputs. ICg-CaST fits one forest per state; one
multi-output forest is about five times faster at comparable R^2. Stage 2 maps predicted
states to risk; it is trained on the forest's out-of-bag predictions, so it sees states as
noisy as the ones it will meet on test subjects. ``intervene(unit, scale)`` multiplies a
predicted state before stage 2.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.ensemble import RandomForestRegressor

from icgbench.generator.interventions import scaled
from icgbench.models.base import CohortData, ReferenceModel, rounded
from icgbench.models.features import Imputer, feature_frame
from icgbench.models.seeding import model_seed
from icgbench.vocabulary import STATES

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


class BottleneckModel(ReferenceModel):
    """Stage 1 (forest) + a stage 2 chosen by the subclass."""

    blocks = ("risk_prediction", "latent_recovery", "intervention_conformity",
              "cross_host_generalization")

    def make_stage2(self, data: CohortData) -> Stage2:
        raise NotImplementedError

    def fit(self, data: CohortData) -> None:
        x = feature_frame(data)
        end = data.end_states()
        train_ids = data.train_outcomes.subject_id.tolist()
        states = end.loc[train_ids, list(STATES)].to_numpy(dtype=np.float64)
        self.mean, self.sd = states.mean(axis=0), states.std(axis=0)
        self.sd[self.sd == 0] = 1.0
        self.imputer = Imputer().fit(x.loc[train_ids])
        self.forest = RandomForestRegressor(
            n_estimators=TREES, max_features="sqrt", min_samples_leaf=2, oob_score=True,
            random_state=model_seed("stage1", data.variant, data.seed), n_jobs=1)
        xt = self.imputer.transform(x.loc[train_ids])
        self.forest.fit(xt, (states - self.mean) / self.sd)
        oob = self.forest.oob_prediction_
        missing = np.isnan(oob)
        if missing.any():  # a subject in every bootstrap sample: use its in-sample prediction
            oob[missing] = self.forest.predict(xt)[missing]
        self.z_train = oob
        self.y_train = data.train_outcomes.event.to_numpy()
        self.features = x
        self.stage2 = self.make_stage2(data).fit(*self.stage2_rows(data))

    def stage2_rows(self, data: CohortData) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Stage 2's training rows (z, y, weight): the train subjects, unweighted."""
        return self.z_train, self.y_train, None

    def predict_z(self, ids: list[str]) -> np.ndarray:
        """Predicted standardised states of ``ids`` (subjects x states)."""
        return self.forest.predict(self.imputer.transform(self.features.loc[ids]))

    def intervene(self, z: np.ndarray, unit: dict[str, float]) -> np.ndarray:
        """Standardised states after multiplying each named state by its scale."""
        return (scaled(z * self.sd + self.mean, unit) - self.mean) / self.sd

    def predict(self, data: CohortData) -> dict[str, Any]:
        test, target = data.ids("test"), data.ids("target_test")
        z = self.predict_z(test)
        p = self.stage2.proba(z)
        states = z * self.sd + self.mean
        return {
            "risk_prediction": {"subject_id": test, "proba": rounded(p)},
            "latent_recovery": {"subject_id": test, "states": {
                s: rounded(states[:, j]) for j, s in enumerate(STATES)}},
            "intervention_conformity": {
                "subject_id": test, "proba": rounded(p),
                "interventions": {name: rounded(self.stage2.proba(self.intervene(z, unit)))
                                  for name, unit in data.intervention_scales().items()},
            },
            "cross_host_generalization": {
                "subject_id": target, "proba": rounded(self.stage2.proba(self.predict_z(target)))},
        }
