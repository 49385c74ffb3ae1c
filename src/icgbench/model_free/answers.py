"""The panel's answers: each one a prediction built without fitting anything.

Every answer reads only a cohort's public tables (:class:`.inputs.PanelInputs`), the
documentation (the families the truth is drawn from, :mod:`icgbench.generator.family` and
:mod:`icgbench.generator.measurement`; the prior's equation, :mod:`icgbench.generator.prior`)
and, for a few, other cohorts' truth (:class:`Donors`). None reads its own cohort's truth.

An answer returns a :class:`Prediction` (or, for a guess made at random, the list of its
equally likely predictions, whose scores the panel averages: the guess's expected score).
A prediction holds what the answer says of every split it can: the train split too, so
that the floor can be chosen on the train subjects, whose outcomes and states are public
(:mod:`.floors`). :func:`blocks` writes it as a submission's task blocks.

Combinations are answers too: the rank-average of every set of two or more risk rules
(:data:`RISK_RULES`), and the mean of the two decoders' states.
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

DECIMALS = 6
#: The constant changes along the prior's directions the panel tries.
SHIFTS = (0.005, 0.02, 0.05, 0.1)
#: How far the shrunk decoders keep their decoded states (the rest: the train mean).
SHRINKS = (0.9, 0.8, 0.7, 0.6, 0.5)
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


@dataclass(frozen=True)
class Prediction:
    """What one answer says (None: it says nothing of that).

    ``risk``: split -> event probability (train, test, target_test); ``states``: split ->
    (n, S) end-of-follow-up states (train, test); ``base`` and ``moved``: the test subjects'
    risk and their risk under each intervention; ``edges``: (source, target) -> score.
    """

    risk: Mapping[str, np.ndarray] | None = None
    states: Mapping[str, np.ndarray] | None = None
    base: np.ndarray | None = None
    moved: Mapping[str, np.ndarray] | None = None
    edges: Mapping[tuple[str, str], float] | None = None


def _rounded(values: np.ndarray) -> list[float]:
    return np.round(np.asarray(values, dtype=np.float64), DECIMALS).tolist()


def blocks(inputs: PanelInputs, p: Prediction, k: int | None = None) -> Blocks:
    """The prediction as a submission's task blocks (``k``: the structure block's K)."""
    out: Blocks = {}
    if p.risk is not None:
        out["risk_prediction"] = {"subject_id": inputs.ids["test"],
                                  "proba": _rounded(p.risk["test"])}
        out["cross_host_generalization"] = {"subject_id": inputs.ids["target_test"],
                                            "proba": _rounded(p.risk["target_test"])}
    if p.states is not None:
        out["latent_recovery"] = {"subject_id": inputs.ids["test"], "states": {
            s: _rounded(p.states["test"][:, j]) for j, s in enumerate(STATES)}}
    if p.base is not None and p.moved is not None:
        out["intervention_conformity"] = {
            "subject_id": inputs.ids["test"], "proba": _rounded(p.base),
            "interventions": {n: _rounded(np.clip(v, 0.0, 1.0)) for n, v in p.moved.items()}}
    if p.edges is not None:
        out["structure_recovery"] = {
            "source": [s for s, _ in p.edges], "target": [t for _, t in p.edges],
            "score": _rounded(np.array(list(p.edges.values()), dtype=np.float64)),
            **({} if k is None else {"k": int(k)})}
    return out


def ranks(values: np.ndarray) -> np.ndarray:
    """Average ranks scaled into (0, 1): a probability that orders subjects as ``values``
    does (NaN last)."""
    from icgbench.tasks.metrics import average_ranks

    x = np.where(np.isnan(values), -np.inf, values)
    return average_ranks(x) / (len(x) + 1)


def _sizes(inputs: PanelInputs) -> dict[str, int]:
    return {s: len(i) for s, i in inputs.ids.items()}


def constant(inputs: PanelInputs, donors: Donors | None = None) -> Prediction:
    """The train event rate for every subject, the train mean of every state, no change
    under any intervention (``icgbench submission template``)."""
    n = _sizes(inputs)
    rate = inputs.train_rate
    means = inputs.train_end.mean(axis=0)
    base = np.full(n["test"], rate)
    return Prediction(risk={s: np.full(k, rate) for s, k in n.items()},
                      states={s: np.tile(means, (n[s], 1)) for s in ("train", "test")},
                      base=base, moved={k: base for k in inputs.scales})


def _shift(inputs: PanelInputs, size: float) -> Prediction:
    base = np.full(len(inputs.ids["test"]), inputs.train_rate)
    return Prediction(base=base, moved={k: base + size * inputs.prior_direction[k]
                                        for k in inputs.scales})


def prior_shift(size: float) -> Callable[..., Prediction]:
    """The train event rate, moved by ``size`` under each intervention in the direction
    the public registry's prior gives."""
    def answer(inputs: PanelInputs, donors: Donors | None = None) -> Prediction:
        return _shift(inputs, size)
    answer.__doc__ = (f"The train event rate, moved by {size:g} under each intervention in "
                      "the direction of the prior (the registry's prior_direction).")
    return answer


def prior_shift_other_cohorts(inputs: PanelInputs, donors: Donors | None = None
                              ) -> Prediction:
    """Other cohorts' truth, copied into one size: the train event rate moved along the
    prior's directions by c = max(0, mean over the variant's other frozen cohorts and the
    interventions of direction x true average effect), the constant shift those cohorts
    would have been best served by."""
    effects = donors.effects if donors else ()
    along = [inputs.prior_direction[k] * e[k] for e in effects for k in inputs.scales]
    return _shift(inputs, max(0.0, math.fsum(along) / len(along)) if along else 0.0)


def _equation(inputs: PanelInputs, signs: np.ndarray | None = None) -> PriorEquation:
    signs = inputs.prior_signs if signs is None else np.asarray(signs)
    return inputs.remembered(("equation", tuple(int(x) for x in signs)),
                             lambda: PriorEquation.calibrated(inputs.train_end,
                                                              inputs.train_event, signs))


def prior_equation_average(inputs: PanelInputs, donors: Donors | None = None) -> Prediction:
    """The prior's equation on the train subjects' states, plain and under each
    intervention, averaged: one risk and one change per intervention for everybody."""
    equation = _equation(inputs)
    rate = float(np.mean(equation.risk(inputs.train_end)))
    n = _sizes(inputs)
    moved = {k: np.full(n["test"], float(np.mean(equation.risk(scaled(inputs.train_end, u)))))
             for k, u in inputs.scales.items()}
    return Prediction(risk={s: np.full(k, rate) for s, k in n.items()},
                      base=np.full(n["test"], rate), moved=moved)


def _rule(score: Callable[[PanelInputs, str], np.ndarray], doc: str
          ) -> Callable[..., Prediction]:
    def answer(inputs: PanelInputs, donors: Donors | None = None) -> Prediction:
        return Prediction(risk={s: ranks(score(inputs, s)) for s in inputs.ids})
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


def train_correlation(inputs: PanelInputs) -> np.ndarray:
    """The correlation matrix of the train subjects' end states (public)."""
    return np.corrcoef(inputs.train_end, rowvar=False)


def decoded_states(inputs: PanelInputs, split: str, prior: np.ndarray | None = None,
                   model: Any = None) -> np.ndarray:
    """The subjects' end-of-follow-up states (n, S) decoded from their latest omics with
    the measurement family's mean model: the posterior mean of the standardised states
    (prior N(0, ``prior``), the identity unless given) under the mean loadings and the mean
    noise, offset and age drift (the non-linear operator inverted at its mean partner
    factor first), then put on the train states' scale. What a reader of the code can do
    without fitting anything. ``model``: another measurement model to decode with."""
    variant = inputs.variant
    model = family_mean(variant) if model is None else model
    y = np.array(inputs.omics[split], dtype=np.float64)
    epi = slice(len(MODULES) - model.age_slope.size, len(MODULES))
    decades = (inputs.age[split] - mech.AGE_CENTER) / 10.0
    y[:, epi] -= model.age_slope[None, :] * decades[:, None]
    variance = model.noise_sd**2 + model.offset_sd**2
    if variant.observation_operator == "nonlinear":
        gain = mech.NL_GAIN * _partner_factor()
        y = np.arctanh(np.clip(y / gain, -SATURATION, SATURATION)) / mech.NL_SLOPE
        variance = variance / (gain * mech.NL_SLOPE) ** 2
    precision = (np.eye(len(STATES)) if prior is None
                 else np.linalg.inv(prior + 1e-6 * np.eye(len(STATES))))
    w = model.loadings
    z = np.zeros((y.shape[0], len(STATES)))
    seen = ~np.isnan(y)
    patterns, which = np.unique(seen, axis=0, return_inverse=True)
    for p, pattern in enumerate(patterns):
        rows = which.ravel() == p
        if not pattern.any():
            continue
        wp = w[pattern] / variance[pattern, None]
        gram = w[pattern].T @ wp + precision
        z[rows] = np.linalg.solve(gram, wp.T @ y[np.ix_(rows, pattern)].T).T
    mean = inputs.train_end.mean(axis=0)
    sd = inputs.train_end.std(axis=0)
    return mean + sd * z


def _from_states(inputs: PanelInputs, states: Mapping[str, np.ndarray],
                 signs: np.ndarray | None = None) -> Prediction:
    """The prior's equation (with ``signs``) on decoded states: risk on every split, and
    the test subjects' risk under each intervention (the intervened state scaled)."""
    equation = _equation(inputs, signs)
    risk = {s: equation.risk(x) for s, x in states.items()}
    moved = {k: equation.risk(scaled(states["test"], u)) for k, u in inputs.scales.items()}
    return Prediction(risk=risk, states={s: states[s] for s in ("train", "test")},
                      base=risk["test"], moved=moved)


def _decoded(inputs: PanelInputs, trained: bool = False) -> dict[str, np.ndarray]:
    """Every split's decoded states (``trained``: with the train correlation as prior)."""
    return inputs.remembered(("decoded", trained), lambda: {
        s: decoded_states(inputs, s, train_correlation(inputs) if trained else None)
        for s in inputs.ids})


def decoder(inputs: PanelInputs, donors: Donors | None = None) -> Prediction:
    """States decoded from the omics with the measurement family's means
    (:func:`decoded_states`, prior N(0, I)); the prior's equation on them for risk,
    transfer and each intervention (the intervened state scaled)."""
    return _from_states(inputs, _decoded(inputs))


def decoder_train_prior(inputs: PanelInputs, donors: Donors | None = None) -> Prediction:
    """As ``decoder``, with the train states' correlation matrix as the decoder's prior
    (:func:`train_correlation`): states that move together in the public train split are
    decoded together."""
    return _from_states(inputs, _decoded(inputs, trained=True))


def shrunk(alpha: float) -> Callable[..., Prediction]:
    """decoder_train_prior's states pulled towards the train mean by ``1 - alpha``."""
    def answer(inputs: PanelInputs, donors: Donors | None = None) -> Prediction:
        mean = inputs.train_end.mean(axis=0)
        decoded = _decoded(inputs, trained=True)
        return _from_states(inputs, {s: alpha * x + (1.0 - alpha) * mean
                                     for s, x in decoded.items()})
    answer.__doc__ = (f"decoder_train_prior's states shrunk towards the train means: "
                      f"{alpha:g} x decoded + {1 - alpha:g} x mean (the documented noise is "
                      "the family's mean, a cohort's own is often larger); the prior's "
                      "equation on them.")
    return answer


def decoders_mean(inputs: PanelInputs, donors: Donors | None = None) -> Prediction:
    """The mean of the two decoders' states, and the prior's equation on it."""
    plain, trained = _decoded(inputs), _decoded(inputs, trained=True)
    return _from_states(inputs, {s: (plain[s] + trained[s]) / 2.0 for s in inputs.ids})


def guesses(inputs: PanelInputs) -> list[tuple[str, ...]]:
    """Every equally likely guess of which candidate states a misspecified cohort reverses
    (``n_flips`` of ``flip_candidates``); none on a well-specified variant."""
    v = inputs.variant
    return list(itertools.combinations(v.flip_candidates, v.n_flips)) if v.n_flips else []


def _guessed(inputs: PanelInputs, guess: tuple[str, ...]) -> Prediction:
    signs = np.array([-s if name in guess else s
                      for name, s in zip(STATES, inputs.prior_signs, strict=True)])
    return inputs.remembered(("guess", guess), lambda: _from_states(
        inputs, _decoded(inputs, trained=True), signs))


def reversal_guess(guess: tuple[str, ...]) -> Callable[..., Prediction]:
    """One fixed guess of the reversed states, the same on every cohort."""
    def answer(inputs: PanelInputs, donors: Donors | None = None) -> Prediction:
        return _guessed(inputs, guess)
    answer.__doc__ = (f"A fixed guess that the cohort reverses {' and '.join(guess)}: "
                      "decoder_train_prior's answer with the prior's signs reversed there.")
    return answer


def reversal_guesses(inputs: PanelInputs, donors: Donors | None = None) -> list[Prediction]:
    """A guess at random of which candidate states the cohort reverses: every equally likely
    guess (:func:`guesses`), decoder_train_prior's answer with the prior's signs reversed
    there; the panel scores their average (the expected score of guessing at random)."""
    return [_guessed(inputs, g) for g in guesses(inputs)]


def _edges(scores: Mapping[tuple[str, str], float]) -> Prediction:
    return Prediction(edges=dict(scores))


def family(inputs: PanelInputs, donors: Donors | None = None) -> Prediction:
    """Every candidate edge of the documented family, scored by its probability of being in
    a cohort's graph (:func:`icgbench.generator.family.edge_probabilities`)."""
    return _edges(edge_probabilities())


def prior_graph(inputs: PanelInputs, donors: Donors | None = None) -> Prediction:
    """The cohort's public prior graph, every edge scored 1."""
    return _edges(dict.fromkeys(inputs.prior_graph, 1.0))


def prior_graph_family(inputs: PanelInputs, donors: Donors | None = None) -> Prediction:
    """The public prior graph's edges first (1 + the family's probability), then every
    other candidate by its family probability."""
    p = edge_probabilities()
    listed = set(inputs.prior_graph)
    scores = {e: p.get(e, 0.0) + (1.0 if e in listed else 0.0) for e in {*p, *listed}}
    return _edges(dict(sorted(scores.items())))


def consensus(inputs: PanelInputs, donors: Donors | None = None) -> Prediction:
    """Other cohorts' true graphs, copied: each edge scored by the share of the release's
    other frozen cohorts whose graph holds it."""
    graphs = donors.graphs if donors else ()
    counts: dict[tuple[str, str], int] = {}
    for g in graphs:
        for edge in g:
            counts[edge] = counts.get(edge, 0) + 1
    return _edges({e: c / len(graphs) for e, c in sorted(counts.items())})


def copied_effects(inputs: PanelInputs, donors: Donors | None = None) -> Prediction:
    """Other cohorts' truth, copied: the train event rate, moved under each intervention by
    the average of the true average effects of the other frozen cohorts of the variant."""
    effects = donors.effects if donors else ()
    base = np.full(len(inputs.ids["test"]), inputs.train_rate)
    moved = {k: base + (math.fsum(e[k] for e in effects) / len(effects) if effects else 0.0)
             for k in inputs.scales}
    return Prediction(base=base, moved=moved)


Answer = Callable[..., Prediction | list[Prediction]]

#: The risk rules whose rank-averages are answers too (every set of two or more).
RISK_RULES = ("dose", "dose_assays", "mutation_count", "decoder", "decoder_train_prior")
#: The name of a rank-average of ``rules``.
ENSEMBLE_PREFIX = "ranks_of__"


def ensemble_name(rules: tuple[str, ...]) -> str:
    return ENSEMBLE_PREFIX + "__".join(rules)


def ensembles() -> list[tuple[str, ...]]:
    """Every set of two or more of :data:`RISK_RULES`, in a fixed order."""
    return [c for r in range(2, len(RISK_RULES) + 1)
            for c in itertools.combinations(RISK_RULES, r)]


def rank_average(parts: list[Prediction]) -> Prediction:
    """The mean of the parts' risk ranks, per split."""
    splits = parts[0].risk.keys() if parts[0].risk is not None else ()
    return Prediction(risk={s: np.mean([ranks(p.risk[s]) for p in parts], axis=0)
                            for s in splits})


#: The panel's base answers, by name (docs/scoring.md lists them with their docstrings);
#: the fixed reversal guesses and the rank-averages are added per cohort (:func:`names`).
ANSWERS: dict[str, Answer] = {
    "constant": constant,
    **{f"prior_shift_{s:g}": prior_shift(s) for s in SHIFTS},
    "prior_shift_other_cohorts": prior_shift_other_cohorts,
    "prior_equation_average": prior_equation_average,
    "dose": dose,
    "dose_assays": dose_assays,
    "mutation_count": mutation_count,
    "decoder": decoder,
    "decoder_train_prior": decoder_train_prior,
    "decoders_mean": decoders_mean,
    **{f"decoder_train_prior_shrunk_{a:g}": shrunk(a) for a in SHRINKS},
    "reversal_guesses": reversal_guesses,
    "family": family,
    "prior_graph": prior_graph,
    "prior_graph_family": prior_graph_family,
    "consensus": consensus,
    "copied_effects": copied_effects,
}
#: The name of a fixed reversal guess.
GUESS_PREFIX = "reversal_guess__"
#: Answers that say something only of the graph (graded at their calibration K*).
STRUCTURE_ANSWERS = ("family", "prior_graph", "prior_graph_family", "consensus")


def guess_name(guess: tuple[str, ...]) -> str:
    return GUESS_PREFIX + "__".join(guess)


def applies(name: str, inputs: PanelInputs) -> bool:
    """Whether the answer exists for this cohort (guesses need reversals to guess)."""
    return name != "reversal_guesses" or inputs.variant.n_flips > 0


def made(inputs: PanelInputs, donors: Donors) -> dict[str, Prediction | list[Prediction]]:
    """Every answer of the panel on one cohort, by name, in the panel's order: the base
    answers, each fixed reversal guess, then each rank-average."""
    out: dict[str, Prediction | list[Prediction]] = {
        name: answer(inputs, donors) for name, answer in ANSWERS.items()
        if applies(name, inputs)}
    for g in guesses(inputs):
        out[guess_name(g)] = _guessed(inputs, g)
    for rules in ensembles():
        out[ensemble_name(rules)] = rank_average([out[r] for r in rules])  # type: ignore[misc]
    return out


def describe(name: str) -> str:
    """One answer's description (the docs' list)."""
    if name.startswith(GUESS_PREFIX):
        return reversal_guess(tuple(name.removeprefix(GUESS_PREFIX).split("__"))).__doc__ or ""
    if name.startswith(ENSEMBLE_PREFIX):
        rules = name.removeprefix(ENSEMBLE_PREFIX).split("__")
        return f"The mean of the risk ranks of {', '.join(rules)}."
    return " ".join((ANSWERS[name].__doc__ or name).split())

