"""The bottleneck's mechanism layer: what a sustained intervention does to the risk.

An intervention in the DGP holds a state at ``scale`` times its natural value for the whole
follow-up, and every state it drives responds, month after month (adducts drive mutation,
proliferation drives the clone, which accumulates). A model that scales one predicted end
state and holds the others sees neither the mediated part nor the accumulation. This layer
learns both from the train split's public visits:

1. **Transitions.** Each state at a visit is regressed (least squares, pooled over the
   visit pairs) on every state at the visit before, the states before it in the AOP's
   order at the same visit, and the exposure: dose, dose x each KCC assay readout, the
   host proxies, age and sex.
2. **A trajectory risk model.** A logistic regression (C = 1) of the event on the
   trajectory's mean state over the visits and its end state (standardised).
3. **Each train subject's effect.** From the subject's observed month-0 states, the
   transitions are run to the end of follow-up with and without the intervention (the
   intervened state as its scale times its natural value, as every other state sees it;
   its own recurrence on the natural value); the effect is the difference of the risk
   model's predictions.
4. **An effect model per intervention.** A ridge regression (alpha = 1) of those effects
   on stage 1's out-of-fold predicted states and their squares: what a test subject's
   effect is expected to be, given what the omics say about its states.

It is what a modeller builds from the concept labels and the visits, not the truth.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression, Ridge

from icgbench.contract.vocabulary import (
    KCCS,
    PROXIED_TRAITS,
    STATES,
    kcc_assay_column,
    proxy_column,
)
from icgbench.models.base import CohortData

C = 1.0
ALPHA = 1.0


def exposure(subjects: pd.DataFrame) -> np.ndarray:
    """The transitions' exogenous inputs, one row per subject of ``subjects``."""
    dose = subjects.dose.to_numpy(dtype=np.float64)
    assays = subjects[[kcc_assay_column(k) for k in KCCS]].to_numpy(dtype=np.float64)
    proxies = subjects[[proxy_column(t) for t in PROXIED_TRAITS]].to_numpy(dtype=np.float64)
    return np.column_stack([dose, dose[:, None] * assays, proxies,
                            subjects.age.to_numpy(dtype=np.float64) / 10.0,
                            (subjects.sex == "F").to_numpy(dtype=np.float64)])


class VisitDynamics:
    """Linear six-month transitions of the states (step 1) and the trajectory risk model
    (step 2), fitted on the train split's visits."""

    def fit(self, trajectories: np.ndarray, exog: np.ndarray, events: np.ndarray
            ) -> VisitDynamics:
        """``trajectories`` (subjects, visits, STATES) on the natural scale, ``exog``
        (subjects, inputs), ``events`` (subjects,)."""
        visits, k = trajectories.shape[1:]
        self.coef = []
        for j in range(k):
            design = np.vstack([self._row(trajectories[:, t], trajectories[:, t + 1, :j],
                                          exog) for t in range(visits - 1)])
            target = np.concatenate([trajectories[:, t + 1, j] for t in range(visits - 1)])
            self.coef.append(np.linalg.lstsq(design, target, rcond=None)[0])
        features = self._features(trajectories)
        self.mean, self.sd = features.mean(axis=0), features.std(axis=0)
        self.sd[self.sd == 0] = 1.0
        self.risk = LogisticRegression(C=C, max_iter=5000).fit(
            (features - self.mean) / self.sd, events)
        return self

    @staticmethod
    def _row(before: np.ndarray, same_visit: np.ndarray, exog: np.ndarray) -> np.ndarray:
        return np.column_stack([np.ones(len(before)), before, same_visit, exog])

    @staticmethod
    def _features(trajectories: np.ndarray) -> np.ndarray:
        return np.column_stack([trajectories.mean(axis=1), trajectories[:, -1, :]])

    def run(self, start: np.ndarray, exog: np.ndarray, visits: int,
            units: dict[str, float]) -> np.ndarray:
        """Trajectories (subjects, visits, STATES) from month-0 states ``start``, under the
        interventions ``units`` (state -> scale), as every state sees them."""
        scale = np.array([units.get(s, 1.0) for s in STATES])
        natural = np.array(start, dtype=np.float64)
        seen = [natural * scale]
        for _ in range(visits - 1):
            new = np.zeros_like(natural)
            for j, coef in enumerate(self.coef):
                before = seen[-1].copy()
                before[:, j] = natural[:, j]  # its own recurrence runs on its natural value
                row = self._row(before, new[:, :j] * scale[:j], exog)
                new[:, j] = np.maximum(row @ coef, 0.0)
            natural = new
            seen.append(natural * scale)
        return np.stack(seen, axis=1)

    def proba(self, trajectories: np.ndarray) -> np.ndarray:
        """The trajectory risk model's event probabilities."""
        return self.risk.predict_proba((self._features(trajectories) - self.mean)
                                       / self.sd)[:, 1]


class EffectModel:
    """Each intervention's effect on a subject's risk, from its predicted states (steps
    3 and 4)."""

    def fit(self, data: CohortData, z_train: np.ndarray,
            interventions: dict[str, dict[str, float]]) -> EffectModel:
        """``z_train``: stage 1's out-of-fold standardised states of the train subjects, in
        ``data.train_outcomes`` order."""
        order = data.train_outcomes.subject_id.tolist()
        states = data.train_states.set_index(["subject_id", "month"]).sort_index()
        months = sorted(data.train_states.month.unique())
        trajectories = np.stack([states.xs(m, level="month").loc[order, list(STATES)]
                                 .to_numpy(dtype=np.float64) for m in months], axis=1)
        exog = exposure(data.subjects.set_index("subject_id").loc[order])
        events = data.train_outcomes.event.to_numpy(dtype=np.float64)
        self.dynamics = VisitDynamics().fit(trajectories, exog, events)
        self.start, self.exog, self.visits = trajectories[:, 0], exog, len(months)
        self.z_train = z_train
        self.factual = self.dynamics.proba(self.dynamics.run(self.start, exog, self.visits, {}))
        self.models: dict[frozenset[tuple[str, float]], Ridge] = {}
        for units in interventions.values():
            self._fit(units)
        return self

    def _fit(self, units: dict[str, float]) -> Ridge:
        run = self.dynamics.run(self.start, self.exog, self.visits, units)
        effect = self.dynamics.proba(run) - self.factual
        model = Ridge(alpha=ALPHA).fit(self._design(self.z_train), effect)
        self.models[self.key(units)] = model
        return model

    @staticmethod
    def key(units: dict[str, float]) -> frozenset[tuple[str, float]]:
        return frozenset(units.items())

    @staticmethod
    def _design(z: np.ndarray) -> np.ndarray:
        return np.column_stack([z, z * z])

    def effect(self, z: np.ndarray, units: dict[str, float]) -> np.ndarray:
        """The expected effect of the interventions ``units`` on subjects with predicted
        standardised states ``z`` (an intervention outside the registry is learned when
        first asked for)."""
        model = self.models.get(self.key(units)) or self._fit(units)
        return model.predict(self._design(z))
