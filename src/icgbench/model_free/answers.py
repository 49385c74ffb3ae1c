"""The panel's answers: each one a submission built without fitting anything.

Every answer reads only a cohort's public tables (:class:`.inputs.PanelInputs`), the
documentation (the families the truth is drawn from, :mod:`icgbench.generator.family` and
:mod:`icgbench.generator.measurement`; the prior's equation, :mod:`icgbench.generator.prior`)
and, for two of them, other cohorts' truth (:class:`Donors`). The two ``*_hindsight``
answers read the cohort's own truth on purpose: they are the best change of one size along
the prior's directions, a bound on every answer of that form (the constant shifts an
attacker would try), not something a submission could know.

An answer returns its submission's task blocks (ids and lists, as a file holds them), or,
for a guess, a list of equally likely submissions whose scores the panel averages (the
guess's expected score).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from icgbench.contract.vocabulary import STATES
from icgbench.generator import mechanism as mech
from icgbench.generator.family import edge_probabilities
from icgbench.generator.interventions import scaled
from icgbench.generator.measurement import MODULES, family_mean
from icgbench.generator.prior import PriorEquation
from icgbench.model_free.inputs import PanelInputs
from icgbench.tasks.base import Truth

DECIMALS = 6
#: The constant changes along the prior's directions the panel tries.
SHIFTS = (0.005, 0.02, 0.05, 0.1)
#: Gauss-Hermite nodes for the non-linear operator's mean partner factor.
PARTNER_NODES = 32
#: Readouts of the non-linear operator beyond this share of its range are not inverted.
SATURATION = 0.95

Blocks = dict[str, dict[str, Any]]


@dataclass(frozen=True)
class Donors:
    """Other cohorts' truth an answer may copy: the graphs of the release's other frozen
    cohorts, and the average effects on the test split of the other cohorts of the same
    variant."""

    graphs: tuple[frozenset[tuple[str, str]], ...] = ()
    effects: tuple[Mapping[str, float], ...] = field(default=())


def _rounded(values: np.ndarray) -> list[float]:
    return np.round(np.asarray(values, dtype=np.float64), DECIMALS).tolist()


def _ranks(values: np.ndarray) -> np.ndarray:
    """Average ranks scaled into (0, 1): a probability that orders subjects as ``values``
    does (NaN last)."""
    x = np.where(np.isnan(values), -np.inf, values)
    order = np.argsort(x, kind="stable")
    ranks = np.empty(len(x))
    ranks[order] = np.arange(1, len(x) + 1)
    for value in np.unique(x):  # ties share their average rank
        tied = x == value
        if tied.sum() > 1:
            ranks[tied] = ranks[tied].mean()
    return ranks / (len(x) + 1)


def _risk_blocks(inputs: PanelInputs, risk: Mapping[str, np.ndarray]) -> Blocks:
    return {"risk_prediction": {"subject_id": inputs.ids["test"],
                                "proba": _rounded(risk["test"])},
            "cross_host_generalization": {"subject_id": inputs.ids["target_test"],
                                          "proba": _rounded(risk["target_test"])}}


def _intervention_block(inputs: PanelInputs, base: np.ndarray,
                        moved: Mapping[str, np.ndarray]) -> Blocks:
    return {"intervention_conformity": {
        "subject_id": inputs.ids["test"], "proba": _rounded(base),
        "interventions": {n: _rounded(np.clip(v, 0.0, 1.0)) for n, v in moved.items()}}}


def _structure_block(scores: Mapping[tuple[str, str], float]) -> Blocks:
    return {"structure_recovery": {"source": [s for s, _ in scores],
                                   "target": [t for _, t in scores],
                                   "score": _rounded(np.array(list(scores.values())))}}


def constant(inputs: PanelInputs, truth: Truth | None = None,
             donors: Donors | None = None) -> Blocks:
    """The train event rate for every subject, the train mean of every state, no change
    under any intervention (``icgbench submission template``)."""
    n = {s: len(i) for s, i in inputs.ids.items()}
    rate = inputs.train_rate
    means = inputs.train_end.mean(axis=0)
    return {**_risk_blocks(inputs, {s: np.full(k, rate) for s, k in n.items()}),
            "latent_recovery": {"subject_id": inputs.ids["test"], "states": {
                s: _rounded(np.full(n["test"], means[j])) for j, s in enumerate(STATES)}},
            **_intervention_block(inputs, np.full(n["test"], rate),
                                  {k: np.full(n["test"], rate) for k in inputs.scales})}


def _shift_answer(inputs: PanelInputs, size: float) -> Blocks:
    base = np.full(len(inputs.ids["test"]), inputs.train_rate)
    return _intervention_block(inputs, base, {
        k: base + size * inputs.prior_direction[k] for k in inputs.scales})


def prior_shift(size: float) -> Callable[..., Blocks]:
    """The train event rate, moved by ``size`` under each intervention in the direction
    the public registry's prior gives."""
    def answer(inputs: PanelInputs, truth: Truth | None = None,
               donors: Donors | None = None) -> Blocks:
        return _shift_answer(inputs, size)
    answer.__doc__ = (f"The train event rate, moved by {size:g} under each intervention in "
                      "the direction of the prior (the registry's prior_direction).")
    return answer


def _true_effects(truth: Truth) -> list[tuple[int, np.ndarray]]:
    base = truth.true_risk["test"]
    return [(truth.prior_direction[n], truth.counterfactual[n] - base)
            for n in truth.counterfactual]


def prior_shift_hindsight_pehe(inputs: PanelInputs, truth: Truth | None = None,
                               donors: Donors | None = None) -> Blocks:
    """Reads the truth: the one change c >= 0 along the prior's directions with the least
    squared error over subjects and interventions (c = max(0, mean of direction x true
    effect)): no constant shift along the prior has a lower PEHE."""
    assert truth is not None
    pairs = _true_effects(truth)
    c = max(0.0, float(np.mean(np.concatenate([d * e for d, e in pairs]))))
    return _shift_answer(inputs, c)


def prior_shift_hindsight_ate(inputs: PanelInputs, truth: Truth | None = None,
                              donors: Donors | None = None) -> Blocks:
    """Reads the truth: the one average change c >= 0 along the prior's directions with the
    least absolute error over interventions (c = max(0, median of direction x true average
    effect)): no constant shift along the prior has a lower ate_mae."""
    assert truth is not None
    c = max(0.0, float(np.median([d * float(np.mean(e)) for d, e in _true_effects(truth)])))
    return _shift_answer(inputs, c)


def _equation(inputs: PanelInputs, signs: np.ndarray | None = None) -> PriorEquation:
    return PriorEquation.calibrated(inputs.train_end, inputs.train_event,
                                    inputs.prior_signs if signs is None else signs)


def prior_equation_average(inputs: PanelInputs, truth: Truth | None = None,
                           donors: Donors | None = None) -> Blocks:
    """The prior's equation on the train subjects' states, plain and under each
    intervention, averaged: one risk and one change per intervention for everybody."""
    equation = _equation(inputs)
    base = float(np.mean(equation.risk(inputs.train_end)))
    n = {s: len(i) for s, i in inputs.ids.items()}
    moved = {k: np.full(n["test"], float(np.mean(equation.risk(scaled(inputs.train_end, u)))))
             for k, u in inputs.scales.items()}
    return {**_risk_blocks(inputs, {s: np.full(k, base) for s, k in n.items()}),
            **_intervention_block(inputs, np.full(n["test"], base), moved)}


def _rule(score: Callable[[PanelInputs, str], np.ndarray], doc: str) -> Callable[..., Blocks]:
    def answer(inputs: PanelInputs, truth: Truth | None = None,
               donors: Donors | None = None) -> Blocks:
        return _risk_blocks(inputs, {s: _ranks(score(inputs, s)) for s in inputs.ids})
    answer.__doc__ = doc
    return answer


dose = _rule(lambda x, s: x.dose[s], "Risk ranked by dose (a rank, not a probability).")
dose_assays = _rule(lambda x, s: x.dose[s] * x.assays[s].sum(axis=1),
                    "Risk ranked by dose times the sum of the ten KCC assay readouts.")
mutation_count = _rule(lambda x, s: x.mutation_count[s],
                       "Risk ranked by the latest observed total mutation count.")


def _partner_factor() -> float:
    """E[exp(NL_INTERACTION tanh(z))] for z ~ N(0, 1)."""
    nodes, weights = np.polynomial.hermite.hermgauss(PARTNER_NODES)
    values = np.exp(mech.NL_INTERACTION * np.tanh(np.sqrt(2.0) * nodes))
    return float(np.sum(weights * values) / np.sqrt(np.pi))


def decoded_states(inputs: PanelInputs, split: str) -> np.ndarray:
    """The subjects' end-of-follow-up states (n, S) decoded from their latest omics with
    the measurement family's mean model: the posterior mean of the standardised states
    (prior N(0, I)) under the mean loadings and the mean noise, offset and age drift (the
    non-linear operator inverted at its mean partner factor first), then put on the train
    states' scale. What a reader of the code can do without fitting anything."""
    variant = inputs.variant
    model = family_mean(variant)
    y = np.array(inputs.omics[split], dtype=np.float64)
    epi = slice(len(MODULES) - model.age_slope.size, len(MODULES))
    decades = (inputs.age[split] - mech.AGE_CENTER) / 10.0
    y[:, epi] -= model.age_slope[None, :] * decades[:, None]
    variance = model.noise_sd**2 + model.offset_sd**2
    if variant.observation_operator == "nonlinear":
        gain = mech.NL_GAIN * _partner_factor()
        y = np.arctanh(np.clip(y / gain, -SATURATION, SATURATION)) / mech.NL_SLOPE
        variance = variance / (gain * mech.NL_SLOPE) ** 2
    w = model.loadings
    z = np.zeros((y.shape[0], len(STATES)))
    seen = ~np.isnan(y)
    patterns, which = np.unique(seen, axis=0, return_inverse=True)
    for p, pattern in enumerate(patterns):
        rows = which.ravel() == p
        if not pattern.any():
            continue
        wp = w[pattern] / variance[pattern, None]
        gram = w[pattern].T @ wp + np.eye(len(STATES))
        z[rows] = np.linalg.solve(gram, wp.T @ y[np.ix_(rows, pattern)].T).T
    mean = inputs.train_end.mean(axis=0)
    sd = inputs.train_end.std(axis=0)
    return mean + sd * z


def _decoder_blocks(inputs: PanelInputs, signs: np.ndarray | None = None) -> Blocks:
    equation = _equation(inputs, signs)
    states = {s: decoded_states(inputs, s) for s in inputs.ids}
    risk = {s: equation.risk(x) for s, x in states.items()}
    moved = {k: equation.risk(scaled(states["test"], u)) for k, u in inputs.scales.items()}
    return {**_risk_blocks(inputs, risk),
            "latent_recovery": {"subject_id": inputs.ids["test"], "states": {
                s: _rounded(states["test"][:, j]) for j, s in enumerate(STATES)}},
            **_intervention_block(inputs, risk["test"], moved)}


def decoder(inputs: PanelInputs, truth: Truth | None = None,
            donors: Donors | None = None) -> Blocks:
    """States decoded from the omics with the measurement family's means
    (:func:`decoded_states`); the prior's equation on them for risk, transfer and each
    intervention (the intervened state scaled)."""
    return _decoder_blocks(inputs)


def reversal_guesses(inputs: PanelInputs, truth: Truth | None = None,
                     donors: Donors | None = None) -> list[Blocks]:
    """On a misspecified variant: every equally likely guess of which candidate states the
    cohort reverses (n_flips of flip_candidates), the decoder's answer with the prior's
    signs reversed there; the panel scores the guesses' average (the expected score of
    guessing at random)."""
    variant = inputs.variant
    out = []
    for guess in itertools.combinations(variant.flip_candidates, variant.n_flips):
        signs = np.array([-s if name in guess else s
                          for name, s in zip(STATES, inputs.prior_signs, strict=True)])
        out.append(_decoder_blocks(inputs, signs))
    return out


def family(inputs: PanelInputs, truth: Truth | None = None,
           donors: Donors | None = None) -> Blocks:
    """Every candidate edge of the documented family, scored by its probability of being in
    a cohort's graph (:func:`icgbench.generator.family.edge_probabilities`)."""
    return _structure_block(edge_probabilities())


def prior_graph(inputs: PanelInputs, truth: Truth | None = None,
                donors: Donors | None = None) -> Blocks:
    """The cohort's public prior graph, every edge scored 1."""
    return _structure_block(dict.fromkeys(inputs.prior_graph, 1.0))


def prior_graph_family(inputs: PanelInputs, truth: Truth | None = None,
                       donors: Donors | None = None) -> Blocks:
    """The public prior graph's edges first (1 + the family's probability), then every
    other candidate by its family probability."""
    p = edge_probabilities()
    listed = set(inputs.prior_graph)
    scores = {e: p.get(e, 0.0) + (1.0 if e in listed else 0.0) for e in {*p, *listed}}
    return _structure_block(dict(sorted(scores.items())))


def consensus(inputs: PanelInputs, truth: Truth | None = None,
              donors: Donors | None = None) -> Blocks:
    """Other cohorts' true graphs, copied: each edge scored by the share of the release's
    other frozen cohorts whose graph holds it."""
    graphs = donors.graphs if donors else ()
    counts: dict[tuple[str, str], int] = {}
    for g in graphs:
        for edge in g:
            counts[edge] = counts.get(edge, 0) + 1
    return _structure_block({e: c / len(graphs) for e, c in sorted(counts.items())})


def copied_effects(inputs: PanelInputs, truth: Truth | None = None,
                   donors: Donors | None = None) -> Blocks:
    """Other cohorts' truth, copied: the train event rate, moved under each intervention by
    the average of the true average effects of the other frozen cohorts of the variant."""
    effects = donors.effects if donors else ()
    base = np.full(len(inputs.ids["test"]), inputs.train_rate)
    moved = {k: base + (math.fsum(e[k] for e in effects) / len(effects) if effects else 0.0)
             for k in inputs.scales}
    return _intervention_block(inputs, base, moved)


Answer = Callable[..., Blocks | list[Blocks]]

#: The panel, by name (docs/scoring.md lists it with each answer's docstring).
ANSWERS: dict[str, Answer] = {
    "constant": constant,
    **{f"prior_shift_{s:g}": prior_shift(s) for s in SHIFTS},
    "prior_shift_hindsight_pehe": prior_shift_hindsight_pehe,
    "prior_shift_hindsight_ate": prior_shift_hindsight_ate,
    "prior_equation_average": prior_equation_average,
    "dose": dose,
    "dose_assays": dose_assays,
    "mutation_count": mutation_count,
    "decoder": decoder,
    "reversal_guesses": reversal_guesses,
    "family": family,
    "prior_graph": prior_graph,
    "prior_graph_family": prior_graph_family,
    "consensus": consensus,
    "copied_effects": copied_effects,
}
#: Answers that read the cohort's own truth (bounds, not submissions anyone could make).
READS_TRUTH = ("prior_shift_hindsight_pehe", "prior_shift_hindsight_ate")


def applies(name: str, inputs: PanelInputs) -> bool:
    """Whether the answer exists for this cohort (guesses need reversals to guess)."""
    return name != "reversal_guesses" or inputs.variant.n_flips > 0
