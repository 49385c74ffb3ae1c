"""mbcnet_v0_1: the bottleneck model with an unconstrained, isotonic-calibrated stage 2.

Stage 2 is a logistic regression on the predicted states, isotonic-calibrated with 5-fold
cross-validation (scikit-learn's CalibratedClassifierCV); its coefficients are free to take
whatever signs the data support.
"""

from __future__ import annotations

import numpy as np
from sklearn.calibration import CalibratedClassifierCV
from sklearn.linear_model import LogisticRegression

from icgbench.models.base import CohortData
from icgbench.models.bottleneck import BottleneckModel, Stage2

C = 1.0


class CalibratedLogistic(Stage2):
    def fit(self, z: np.ndarray, y: np.ndarray,
            weight: np.ndarray | None = None) -> CalibratedLogistic:
        self.model = CalibratedClassifierCV(LogisticRegression(C=C, max_iter=2000),
                                            method="isotonic", cv=5).fit(z, y, sample_weight=weight)
        return self

    def proba(self, z: np.ndarray) -> np.ndarray:
        return self.model.predict_proba(z)[:, 1]

    def coefficients(self) -> np.ndarray:
        return np.mean([c.estimator.coef_[0] for c in self.model.calibrated_classifiers_],
                       axis=0)


class MBCNetV01(BottleneckModel):
    name = "mbcnet_v0_1"
    aliases = ("v0_1",)
    description = ("Two-stage mechanism bottleneck: a random forest from observations to the "
                   "nine states, then isotonic-calibrated logistic regression on them.")

    def make_stage2(self, data: CohortData) -> Stage2:
        return CalibratedLogistic()


MODEL = MBCNetV01
