"""The model adapter: third-party estimators become valid, graded submissions."""

from __future__ import annotations

import gzip
import json
import re

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.pipeline import make_pipeline

from icgbench.api.adapter import (
    SupportsBottleneck,
    SupportsProba,
    features,
    predicted_blocks,
    submission,
    write_submission,
)
from icgbench.contract.vocabulary import STATES
from icgbench.errors import UsageError
from icgbench.models import CohortData, get_model
from icgbench.release.tiers import UNFROZEN_NAME
from icgbench.release.unfrozen import simulate_release, unfrozen_tier
from icgbench.scorer import score


@pytest.fixture(scope="module")
def cohort() -> CohortData:
    return CohortData.load("linear_lowhet")


@pytest.fixture(scope="module")
def quick_cohort(tmp_path_factory) -> CohortData:
    """200 subjects simulated on the fly: a reference model fits on them in under a second."""
    root = tmp_path_factory.mktemp("quick") / "release"
    simulate_release(unfrozen_tier("linear_lowhet", 3, n_subjects=200), root)
    return CohortData.load("linear_lowhet", 3, UNFROZEN_NAME, root=root)


class RidgeBottleneck:
    """A bottleneck model in a few lines of scikit-learn (not the project's code)."""

    def __init__(self, cohort: CohortData):
        x = features(cohort, "train")
        end = cohort.end_states().loc[x.index, list(STATES)]
        self.stage1 = make_pipeline(SimpleImputer(), Ridge(alpha=1.0)).fit(x, end)
        self.stage2 = LogisticRegression(max_iter=1000).fit(
            end.to_numpy(), cohort.train_outcomes.set_index("subject_id").loc[x.index].event)
        self.units: dict[str, float] = {}

    def predict_bottleneck(self, X: pd.DataFrame) -> pd.DataFrame:
        return pd.DataFrame(self.stage1.predict(X), index=X.index, columns=list(STATES))

    def intervene(self, unit: str, scale: float) -> None:
        self.units[unit] = scale

    def clear_interventions(self) -> None:
        self.units = {}

    def predict_proba(self, X: pd.DataFrame) -> np.ndarray:
        states = self.predict_bottleneck(X)
        for unit, scale in self.units.items():
            states[unit] *= scale
        return self.stage2.predict_proba(states.to_numpy())


@pytest.mark.slow
def test_a_scikit_learn_pipeline_becomes_a_graded_risk_submission(cohort, tmp_path):
    x = features(cohort, "train")
    y = cohort.train_outcomes.set_index("subject_id").loc[x.index].event
    model = HistGradientBoostingClassifier(max_iter=50, random_state=0).fit(x, y)
    assert isinstance(model, SupportsProba) and not isinstance(model, SupportsBottleneck)
    path = write_submission(model, cohort, tmp_path / "s.json.gz", name="hgb", version="1")
    doc = json.loads(gzip.decompress(path.read_bytes()))
    assert doc["model"] == {"name": "hgb", "version": "1", "language": "Python"}
    report = score(path)
    assert set(report.document["tasks"]) == {"risk_prediction", "cross_host_generalization"}
    assert report.summary["auroc"] > 0.6


def test_a_bottleneck_shaped_object_gets_every_per_subject_block(cohort):
    model = RidgeBottleneck(cohort)
    assert isinstance(model, SupportsBottleneck)
    report = score(submission(model, cohort, name="ridge_bottleneck", version="0.1"))
    tasks = report.document["tasks"]
    assert set(tasks) == {"risk_prediction", "latent_recovery", "intervention_conformity",
                          "cross_host_generalization"}
    assert tasks["latent_recovery"]["metrics"]["r2_mean"] > 0.3
    deltas = [d["delta"] for d in tasks["intervention_conformity"]["details"][
        "interventions"].values()]
    assert any(abs(d) > 1e-3 for d in deltas)  # the interventions reached predict_proba
    assert model.units == {}  # cleared afterwards


@pytest.mark.slow
def test_the_reference_bottleneck_models_go_through_the_adapter(quick_cohort, monkeypatch):
    import icgbench.api.adapter as adapter

    calls = []
    original = adapter.predicted_blocks
    monkeypatch.setattr(adapter, "predicted_blocks",
                        lambda model, data: calls.append(model) or original(model, data))
    model = get_model("v0_1")
    model.fit(quick_cohort)
    doc = model.submission(quick_cohort)
    assert calls == [model]
    assert doc["model"]["name"] == "mbcnet_v0_1"
    assert isinstance(model, SupportsBottleneck)


@pytest.mark.parametrize(("output", "message"), [
    (lambda n: np.full((n, 3), 0.3), "expected (n,) or (n, 2)"),
    (lambda n: np.full(n, 1.5), "outside [0, 1]"),
    (lambda n: np.full(n, np.nan), "not finite"),
])
def test_bad_predictions_are_named(cohort, output, message):
    class Bad:
        def predict_proba(self, X):
            return output(len(X))

    with pytest.raises(UsageError, match=re.escape(message)):
        predicted_blocks(Bad(), cohort)


def test_a_bottleneck_missing_a_state_is_named(cohort):
    class OneState:
        def predict_proba(self, X):
            return np.full(len(X), 0.5)

        def predict_bottleneck(self, X):
            return pd.DataFrame({"ROS": np.zeros(len(X))})

    model = OneState()
    with pytest.raises(UsageError, match="lacks the state column"):
        predicted_blocks(model, cohort)


def test_an_object_without_predict_proba_is_refused(cohort):
    with pytest.raises(UsageError, match="no predict_proba"):
        predicted_blocks(object(), cohort)
