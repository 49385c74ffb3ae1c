"""logistic_direct: observations straight to the event, no mechanism.

Logistic regression from every observed feature (visits flattened, masked values imputed
with the train mean plus missingness indicators), exposures and covariates to the event.
It submits risk_prediction and cross_host_generalization only: the model that shows a high
AUROC need not mean a recovered mechanism.
"""

from __future__ import annotations

from typing import Any

from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

from icgbench.models.base import CohortData, ReferenceModel, rounded
from icgbench.models.features import Imputer, feature_frame

C = 0.05  # L2 strength: strong, since features outnumber events in the small tier


class LogisticDirect(ReferenceModel):
    name = "logistic_direct"
    description = ("L2 logistic regression from observed omics, exposures and covariates "
                   "straight to the event; no bottleneck.")
    blocks = ("risk_prediction", "cross_host_generalization")

    def fit(self, data: CohortData) -> None:
        x = feature_frame(data)
        train = data.train_outcomes.set_index("subject_id")
        xt = x.loc[train.index]
        self.imputer = Imputer(indicators=True).fit(xt)
        self.scaler = StandardScaler().fit(self.imputer.transform(xt))
        self.model = LogisticRegression(C=C, max_iter=5000).fit(
            self.scaler.transform(self.imputer.transform(xt)), train["event"].to_numpy())
        self.features = x

    def _proba(self, ids: list[str]):
        x = self.scaler.transform(self.imputer.transform(self.features.loc[ids]))
        return self.model.predict_proba(x)[:, 1]

    def predict(self, data: CohortData) -> dict[str, Any]:
        test, target = data.ids("test"), data.ids("target_test")
        return {
            "risk_prediction": {"subject_id": test, "proba": rounded(self._proba(test))},
            "cross_host_generalization": {"subject_id": target,
                                          "proba": rounded(self._proba(target))},
        }


MODEL = LogisticDirect
