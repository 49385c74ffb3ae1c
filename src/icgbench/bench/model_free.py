"""Model-free answers: what a submission can score without fitting anything to the data.

A task measures something only if these lose to every reference model that fits the data.
Each answer here is built from what anyone has without a model: the public tables of the
cohort (the train event rate and mean states, the prior's signs, equation and graph, the
intervention registry, the node list), the documentation (the family the graph is drawn
from), or the truth of *another* cohort (the truth ships with the release). The tests run
them on the released cohorts (``tests/test_model_free.py``), and ``icgbench bench
model-free`` prints their scores beside the references'.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from icgbench.api.tables import load_table
from icgbench.contract.vocabulary import STATES
from icgbench.generator.family import candidates, present_candidates
from icgbench.generator.interventions import scaled
from icgbench.models.base import CohortData, ReferenceModel, rounded

#: The shifts the constant answer moves its risk by, along each intervention's prior sign.
SHIFTS = (0.005, 0.02, 0.05, 0.1)
#: Draws of the documented recipe used to estimate each candidate edge's probability.
FAMILY_DRAWS = 4000


@dataclass(frozen=True)
class Donor:
    """Another cohort whose truth a copying answer reads (same tier)."""

    variant: str
    seed: int


Answer = Callable[[CohortData, Donor | None], dict[str, Any]]


def _ids(data: CohortData) -> tuple[list[str], list[str]]:
    return data.ids("test"), data.ids("target_test")


def _rate(data: CohortData) -> float:
    return float(data.train_outcomes.event.mean())


def constant(data: CohortData, donor: Donor | None = None) -> dict[str, Any]:
    """The train event rate for every subject, the train mean of every state, no change
    under any intervention (``submission template``)."""
    test, target = _ids(data)
    rate, end = _rate(data), data.end_states()
    return {
        "risk_prediction": {"subject_id": test, "proba": [rate] * len(test)},
        "latent_recovery": {"subject_id": test, "states": {
            s: [float(end[s].mean())] * len(test) for s in STATES}},
        "intervention_conformity": {"subject_id": test, "proba": [rate] * len(test),
                                    "interventions": {n: [rate] * len(test)
                                                      for n in data.intervention_scales()}},
        "cross_host_generalization": {"subject_id": target, "proba": [rate] * len(target)},
    }


def prior_shift(shift: float) -> Answer:
    """The train event rate, moved by ``shift`` under each intervention in the direction
    the public registry's prior gives."""
    def answer(data: CohortData, donor: Donor | None = None) -> dict[str, Any]:
        test, _ = _ids(data)
        rate = _rate(data)
        direction = data.interventions.groupby("intervention").prior_direction.first()
        moved = {n: [float(np.clip(rate + shift * direction[n], 0, 1))] * len(test)
                 for n in data.intervention_scales()}
        return {"intervention_conformity": {"subject_id": test, "proba": [rate] * len(test),
                                            "interventions": moved}}
    answer.__doc__ = f"prior_shift({shift})"
    return answer


def prior_equation(data: CohortData, donor: Donor | None = None) -> dict[str, Any]:
    """The prior's published risk equation applied to the train subjects' states, plain
    and under each intervention, averaged: the same risk and effects for every test
    subject."""
    test, target = _ids(data)
    equation = data.prior_equation()
    states = data.end_states()[list(STATES)].to_numpy(dtype=np.float64)
    base = float(np.mean(equation.risk(states)))
    moved = {n: [float(np.mean(equation.risk(scaled(states, unit))))] * len(test)
             for n, unit in data.intervention_scales().items()}
    return {"risk_prediction": {"subject_id": test, "proba": [base] * len(test)},
            "intervention_conformity": {"subject_id": test, "proba": [base] * len(test),
                                        "interventions": moved},
            "cross_host_generalization": {"subject_id": target,
                                          "proba": [base] * len(target)}}


def prior_graph(data: CohortData, donor: Donor | None = None) -> dict[str, Any]:
    """The cohort's public prior graph, every edge scored 1."""
    graph = load_table(data.variant, "prior_graph", data.seed, data.tier, root=data.root)
    return {"structure_recovery": {"source": graph.source.tolist(),
                                   "target": graph.target.tolist(),
                                   "score": [1.0] * len(graph)}}


@lru_cache(maxsize=1)
def family_probabilities() -> dict[tuple[str, str], float]:
    """Each candidate edge's probability of being in a cohort's graph, estimated by
    running the documented recipe (:mod:`icgbench.generator.family`) many times (for a
    cohort without reversals: which states a cohort reverses is not public)."""
    family = candidates()
    rng = np.random.default_rng(np.random.SeedSequence(20261125))
    counts = np.zeros(len(family))
    for _ in range(FAMILY_DRAWS):
        for i in present_candidates(family, rng):
            counts[i] += 1
    return {(c.node, c.target): float(n) / FAMILY_DRAWS
            for c, n in zip(family, counts, strict=True)}


def family(data: CohortData, donor: Donor | None = None) -> dict[str, Any]:
    """Every candidate edge of the documented family, scored by its probability."""
    p = family_probabilities()
    return {"structure_recovery": {"source": [s for s, _ in p], "target": [t for _, t in p],
                                   "score": rounded(np.array(list(p.values())))}}


def _truth(donor: Donor, data: CohortData, table: str):
    return load_table(donor.variant, table, donor.seed, data.tier, role="truth", root=data.root)


def copied(data: CohortData, donor: Donor | None = None) -> dict[str, Any]:
    """Another cohort's truth, copied subject by subject (ids are numbered alike in every
    cohort) and its true graph."""
    assert donor is not None
    test, target = _ids(data)
    risk = _truth(donor, data, "test_outcomes").set_index("subject_id").true_risk
    states = _truth(donor, data, "test_states")
    end = states[states.month == states.month.max()].set_index("subject_id")
    cf = _truth(donor, data, "counterfactual_risks").set_index("subject_id")
    graph = _truth(donor, data, "graph")
    return {
        "risk_prediction": {"subject_id": test, "proba": rounded(risk.loc[test])},
        "latent_recovery": {"subject_id": test, "states": {
            s: rounded(end.loc[test, s]) for s in STATES}},
        "intervention_conformity": {
            "subject_id": test, "proba": rounded(cf.loc[test, "risk"]),
            "interventions": {c.removeprefix("risk__"): rounded(cf.loc[test, c])
                              for c in cf.columns if c.startswith("risk__")}},
        "cross_host_generalization": {"subject_id": target,
                                      "proba": rounded(risk.loc[target])},
        "structure_recovery": {"source": graph.source.tolist(),
                               "target": graph.target.tolist(),
                               "score": [1.0] * len(graph)},
    }


#: Every model-free answer, by name.
ANSWERS: dict[str, Answer] = {
    "constant": constant,
    **{f"prior_shift_{s:g}": prior_shift(s) for s in SHIFTS},
    "prior_equation": prior_equation,
    "prior_graph": prior_graph,
    "family": family,
    "copied_truth": copied,
}


class ModelFree(ReferenceModel):
    """A model-free answer wrapped as a model, so it is submitted and scored like one."""

    blocks = ("risk_prediction", "latent_recovery", "intervention_conformity",
              "cross_host_generalization", "structure_recovery")

    def __init__(self, answer: str, donor: Donor | None = None) -> None:
        self.name = f"model_free_{answer}"
        self.description = " ".join((ANSWERS[answer].__doc__ or answer).split())
        self.answer, self.donor = ANSWERS[answer], donor

    def fit(self, data: CohortData) -> None:
        pass

    def predict(self, data: CohortData) -> dict[str, Any]:
        return self.answer(data, self.donor)


def scores(cohorts: list[tuple[str, int]], tier: str, root=None,
           answers: list[str] | None = None) -> list[dict[str, Any]]:
    """Each answer's scores on each cohort, graded as the board grades an entry: rows of
    (answer, cohort, seed, normalized score per category, overall, directed F1). An answer
    with a structure block is graded at its K* on the tier's calibration cohort when
    ``cohorts`` holds it (else at its own best K). ``copied_truth`` copies the truth of
    the next cohort in ``cohorts`` (the last copies the first)."""
    from icgbench.api.tables import tier_descriptor
    from icgbench.contract.vocabulary import CATEGORIES
    from icgbench.scorer import score
    from icgbench.tasks import graph_metrics

    calibration = tier_descriptor(tier, root).calibration_cohort
    ordered = sorted(cohorts, key=lambda c: c != calibration)  # calibration first
    k_star: dict[str, int] = {}
    rows = []
    for variant, seed in ordered:
        data = CohortData.load(variant, seed, tier, root)
        i = cohorts.index((variant, seed))
        donor = Donor(*cohorts[(i + 1) % len(cohorts)])
        for answer in answers or list(ANSWERS):
            report = score(ModelFree(answer, donor).submission(data), root=root,
                           structure_k=k_star.get(answer))
            structure = report.document["tasks"].get("structure_recovery")
            if structure and (variant, seed) == calibration:
                k_star[answer] = graph_metrics.best_k(structure["details"]["curve"])
            rows.append({"answer": answer, "cohort": variant, "seed": seed,
                         **{f"normalized_{c}": report.summary["normalized"][c]
                            for c in CATEGORIES},
                         "overall": report.summary["overall"],
                         "directed_f1": structure["metrics"]["directed_f1"] if structure
                         else None})
    return rows
