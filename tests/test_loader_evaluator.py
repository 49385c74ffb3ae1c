"""The loader and the evaluator: aligned tables in one call, and array-level scores that are
the numbers ``icgbench score`` prints for the same predictions written to a file."""

from __future__ import annotations

import doctest
import json

import numpy as np
import pytest
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import icgbench
from icgbench.api import evaluator as evaluator_module
from icgbench.api import loader as loader_module
from icgbench.cli import main
from icgbench.contract.vocabulary import STATES
from icgbench.errors import UsageError

VARIANT = "linear_lowhet"


@pytest.mark.parametrize("module", [loader_module, evaluator_module, icgbench],
                         ids=["loader", "evaluator", "package"])
def test_the_documented_examples_run(module, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_load_xy_aligns_every_table_in_the_release_order():
    xy = icgbench.load_xy(VARIANT)
    cohort = xy.cohort
    assert list(xy.X_train.index) == cohort.ids("train")
    assert list(xy.X_test.index) == cohort.ids("test")
    assert list(xy.X_target_test.index) == cohort.ids("target_test")
    events = cohort.train_outcomes.set_index("subject_id")["event"]
    assert xy.y_train.to_dict() == events.loc[cohort.ids("train")].to_dict()
    assert list(xy.end_states_train.columns) == list(STATES)
    assert list(xy.end_states_train.index) == cohort.ids("train")
    X, y, X_test = icgbench.load_xy(VARIANT, return_X_y=True)
    assert X.equals(xy.X_train) and y.equals(xy.y_train) and X_test.equals(xy.X_test)


def _fitted_proba() -> np.ndarray:
    X, y, X_test = icgbench.load_xy(VARIANT, return_X_y=True)
    pipe = make_pipeline(SimpleImputer(), StandardScaler(),
                         LogisticRegression(C=0.05, max_iter=2000))
    pipe.fit(X, y)
    return pipe.predict_proba(X_test)[:, 1]


def _cli_metrics(doc: dict, task: str, tmp_path, capsys) -> dict:
    path = tmp_path / "sub.json"
    path.write_text(json.dumps(doc))
    assert main(["score", str(path), "--json"]) == 0
    return json.loads(capsys.readouterr().out)["tasks"][task]["metrics"]


def test_the_evaluator_gives_the_scores_of_the_command_on_the_same_predictions(tmp_path,
                                                                               capsys):
    proba = _fitted_proba()
    risk = icgbench.Evaluator("risk_prediction", VARIANT)
    got = risk.eval({"proba": proba})
    assert got == _cli_metrics(risk.submission({"proba": proba}), "risk_prediction",
                               tmp_path, capsys)
    assert got["auroc"] > 0.6  # a fitted model, not the template's constant

    xy = icgbench.load_xy(VARIANT)
    states = {s: np.full(len(xy.X_test), xy.end_states_train[s].mean()) for s in STATES}
    states["DNA_adducts"] = proba * 3  # some signal in one state
    latent = icgbench.Evaluator("latent_recovery", VARIANT)
    got = latent.eval({"states": states})
    assert got == _cli_metrics(latent.submission({"states": states}), "latent_recovery",
                               tmp_path, capsys)
    ids = list(xy.X_test.index)  # given ids in another order: the same scores
    order = np.arange(len(ids))[::-1]
    shuffled = {"subject_id": [ids[i] for i in order],
                "states": {s: np.asarray(v)[order] for s, v in states.items()}}
    assert latent.eval(shuffled) == got


def test_the_evaluator_refuses_what_the_scorer_would_and_names_it():
    risk = icgbench.Evaluator("risk_prediction", VARIANT)
    with pytest.raises(UsageError, match="unknown key\\(s\\) 'probability'"):
        risk.eval({"probability": [0.5]})
    with pytest.raises(icgbench.SubmissionInvalid, match="proba"):
        risk.eval({"proba": [0.5, 0.5]})  # 2 values for 400 subjects
    with pytest.raises(UsageError, match="unknown task 'risk'"):
        icgbench.Evaluator("risk", VARIANT)
