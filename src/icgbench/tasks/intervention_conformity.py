"""intervention_conformity: does intervening on a state move the predicted risk right?

For each ``do_*`` intervention the mean predicted risk change ``delta`` over the test
subjects is compared with the structural prior's direction and with the DGP's true
direction; ``responsive_dgp_conformity`` also requires ``|delta| >= responsive_threshold``,
which closes the loophole of a sign constraint that drives a coefficient to zero. Because
the truth holds every subject's counterfactual risk, the individual effects are graded too
(PEHE) and each average effect's error (``ate_mae``).

The category's score combines PEHE and ``ate_mae``, each normalized between the model-free
floor and what the subjects' states can give at best (docs/scoring.md): the panel holds
constant changes along the prior's directions, the prior's equation on states decoded with
the documented means, fixed and random guesses at which states a cohort reverses, and other
cohorts' effects. The conformity shares are reported, not normalized: a share over seven
interventions moves in steps of 1/7 and a constant that follows the prior wins it wherever
the prior is right, so on one cohort it measures almost nothing (docs/baselines.md). A
wrong sign still costs: it is an effect of the wrong size.
"""

from __future__ import annotations

import math

import numpy as np

from icgbench.generator.interventions import intervention_names
from icgbench.tasks.base import (
    IDS,
    PROBABILITIES,
    Blocks,
    Metric,
    Normalized,
    Task,
    TaskResult,
    Truth,
    finite_or_none,
)

RESPONSIVE_THRESHOLD = 0.005
#: The seed reference (ICg-CaST) counts a zero change as a prior pass within this tolerance.
TOLERANT_ZERO = 1e-3
#: A predicted average change smaller than this in magnitude has no sign: it is float noise
#: (e.g. a model whose intervened and factual predictions differ only in the last bit), far
#: below the responsive threshold, and counts as zero in every verdict.
ZERO_DELTA = 1e-12


def average_change(effect: np.ndarray) -> float:
    """The mean of per-subject changes, summed left to right in subject order in doubles.

    The order is part of the contract so that ports reach the same value bit for bit (a
    pairwise or extended-precision sum can differ in the last bits).
    """
    return float(np.cumsum(effect, dtype=np.float64)[-1] / len(effect)) if len(effect) else 0.0


def delta_sign(delta: float) -> int:
    """The sign of an average change, 0 within ZERO_DELTA of zero."""
    return 0 if abs(delta) < ZERO_DELTA else int(np.sign(delta))


def _delta_sd(truth: Truth) -> float:
    """Standard deviation of the mean difference of two independent uniform predictions."""
    return math.sqrt(1.0 / (6.0 * len(truth.ids["test"])))


def _p_abs_below(t: float, sd: float) -> float:
    return math.erf(t / (sd * math.sqrt(2.0)))


def _expected_abs_normal(mu: float, sd: float) -> float:
    z = mu / sd
    return sd * math.sqrt(2 / math.pi) * math.exp(-z * z / 2) + mu * math.erf(z / math.sqrt(2))


def _true_effects(truth: Truth) -> dict[str, np.ndarray]:
    base = truth.true_risk["test"]
    return {n: truth.counterfactual[n] - base for n in intervention_names()}


def _random_pehe(truth: Truth) -> float:
    effects = np.concatenate(list(_true_effects(truth).values()))
    return math.sqrt(1.0 / 6.0 + float(np.mean(effects**2)))


def reachable_blocks(truth: Truth) -> Blocks:
    """The interventions as the states predict them best: the reachable risks."""
    return {"intervention_conformity": {"proba": truth.reachable_risk["test"],
                                        "interventions": dict(truth.reachable_counterfactual)}}


def _random_ate_mae(truth: Truth) -> float:
    sd = _delta_sd(truth)
    return float(np.mean([_expected_abs_normal(-float(np.mean(e)), sd)
                          for e in _true_effects(truth).values()]))


METRICS = (
    Metric("prior_conformity", True, "Share of interventions whose delta has the structural "
           "prior's sign (a zero or missing delta fails).", 0.5, 1.0, ranked=False),
    Metric("prior_conformity_tolerant", True, "As prior_conformity, but |delta| <= 1e-3 also "
           "passes (the seed reference's convention).",
           lambda t: 0.5 + 0.5 * _p_abs_below(TOLERANT_ZERO, _delta_sd(t)), 1.0,
           "1/2 + 1/2 P(|delta| <= 1e-3), delta ~ N(0, 1/(6n))", ranked=False),
    Metric("dgp_conformity", True, "Share of interventions whose delta has the DGP's true "
           "sign.", 0.5, 1.0, ranked=False, cohort_level=True),
    Metric("responsive_dgp_conformity", True, "Share of interventions whose delta has the "
           "DGP's sign and |delta| >= responsive_threshold.",
           lambda t: 0.5 * (1.0 - _p_abs_below(RESPONSIVE_THRESHOLD, _delta_sd(t))), 1.0,
           "1/2 P(|delta| >= threshold), delta ~ N(0, 1/(6n))", ranked=False,
           cohort_level=True),
    Metric("pehe", False, "Root mean squared error between predicted and true individual "
           "risk changes, over subjects and interventions (a missing intervention predicts "
           "no change).", _random_pehe, 0.0,
           "sqrt(1/6 + m2), m2 = mean over test subjects i and interventions j of e_ij^2, "
           "e_ij = counterfactual risk - true risk (1/6: the variance of the difference of "
           "two independent uniform probabilities)", cohort_level=True),
    Metric("ate_mae", False, "Mean over interventions of |predicted - true average risk "
           "change|.", _random_ate_mae, 0.0,
           "mean over interventions of E|N(-true delta, 1/(6n))|", cohort_level=True),
    *(Metric(f"delta__{n}", None, f"Mean predicted risk change under {n}.")
      for n in intervention_names()),
    *(Metric(f"ate_error__{n}", None, f"Predicted minus true average risk change under {n}.",
             cohort_level=True) for n in intervention_names()),
)


METRICS_BY_NAME = {metric.name: metric for metric in METRICS}


def score(blocks: Blocks, truth: Truth) -> TaskResult:
    block = blocks["intervention_conformity"]
    threshold = float(block.get("responsive_threshold", RESPONSIVE_THRESHOLD))
    base = block["proba"]
    submitted = block["interventions"]
    true = _true_effects(truth)
    metrics: dict[str, float | None] = {}
    details: dict[str, dict[str, object]] = {}
    prior_ok = tolerant_ok = dgp_ok = responsive_ok = 0
    squared, abs_errors = [], []
    for name in intervention_names():
        prior, dgp = truth.prior_direction[name], truth.dgp_direction[name]
        true_delta = float(np.mean(true[name]))
        if name in submitted:
            effect = submitted[name] - base
            delta = average_change(effect)
        else:
            effect = np.zeros_like(true[name])
            delta = None
        sign = 0 if delta is None else delta_sign(delta)
        p_ok = delta is not None and sign == prior
        t_ok = delta is not None and (sign == prior or abs(delta) <= TOLERANT_ZERO)
        d_ok = delta is not None and sign == dgp
        r_ok = d_ok and abs(delta) >= threshold
        prior_ok += p_ok
        tolerant_ok += t_ok
        dgp_ok += d_ok
        responsive_ok += r_ok
        squared.append((effect - true[name]) ** 2)
        error = (0.0 if delta is None else delta) - true_delta
        abs_errors.append(abs(error))
        metrics[f"delta__{name}"] = delta
        metrics[f"ate_error__{name}"] = error
        details[name] = {"delta": delta, "true_delta": true_delta, "prior_direction": prior,
                         "dgp_direction": dgp, "prior_conforms": p_ok, "dgp_conforms": d_ok,
                         "responsive": r_ok, "submitted": name in submitted,
                         "pehe": finite_or_none(math.sqrt(float(np.mean(squared[-1]))))}
    k = len(intervention_names())
    metrics.update({
        "prior_conformity": prior_ok / k,
        "prior_conformity_tolerant": tolerant_ok / k,
        "dgp_conformity": dgp_ok / k,
        "responsive_dgp_conformity": responsive_ok / k,
        "pehe": math.sqrt(float(np.mean(np.concatenate(squared)))),
        "ate_mae": float(np.mean(abs_errors)),
    })
    return TaskResult(metrics, {"responsive_threshold": threshold,
                                "tolerant_zero": TOLERANT_ZERO, "zero_delta": ZERO_DELTA,
                                "interventions": details})


TASK = Task(
    name="intervention_conformity",
    order=30,
    description="Direction and size of the predicted risk change under each do_* "
    "intervention, against the structural prior and the DGP's true effects.",
    blocks=("intervention_conformity",),
    truth_tables=("test_outcomes", "counterfactual_risks", "intervention_effects",
                  "reachable_risks", "model_free_scores"),
    block_schema={
        "type": "object", "additionalProperties": False,
        "required": ["subject_id", "proba", "interventions"],
        "description": "Predicted risk of every test subject without (proba) and under "
        "each intervention; a missing intervention counts as non-conforming.",
        "properties": {
            "subject_id": IDS,
            "proba": PROBABILITIES,
            "interventions": {
                "type": "object", "minProperties": 1, "additionalProperties": False,
                "properties": {n: PROBABILITIES for n in intervention_names()},
            },
        },
    },
    metrics=METRICS,
    headline=("prior_conformity", "prior_conformity_tolerant", "dgp_conformity",
              "responsive_dgp_conformity", "pehe", "ate_mae"),
    score=score,
    category="intervention",
    normalized=(Normalized("pehe"), Normalized("ate_mae")),
    reachable=reachable_blocks,
    rank_by="pehe",
    cohort_level_details=("true_delta", "dgp_direction", "dgp_conforms", "responsive"),
)
