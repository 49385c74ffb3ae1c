"""Per-variant constants solved on a fixed reference population.

latent_risk standardises each state by its end-of-follow-up mean and sd, and the hazard
intercept is solved so the source domain's mean event probability equals the variant's
``target_prevalence``. The prior's risk equation (:mod:`.prior`) shares that
standardisation and intercept, and its hazard scale is solved on the same population.
All are computed once per (variant, months) on a reference population drawn from its own
stream, so they never depend on a cohort's seed or size.
"""

from __future__ import annotations

import functools

import numpy as np
from scipy.optimize import brentq

from icgbench.generator.dynamics import (
    RiskScale,
    Trajectories,
    event_probability,
    simulate_dynamics,
)
from icgbench.generator.mechanism import risk_coefficients
from icgbench.generator.population import Population, sample_population
from icgbench.generator.prior import PriorEquation, prior_signs, prior_weights
from icgbench.generator.variants import Variant
from icgbench.vocabulary import STATES

REFERENCE_SIZE = 4000
REFERENCE_SEED = 0
REFERENCE_SPLIT = "reference"


def _reference_run(variant: Variant, months: int, scale: RiskScale | None) -> Trajectories:
    """The reference population's factual run (cached population, own stream)."""
    pop = _reference_population(variant)
    beta = risk_coefficients(variant.flipped_signs)
    factual = np.ones((1, len(STATES)))
    return simulate_dynamics(variant, REFERENCE_SEED, pop, months, (months,), factual, scale,
                             beta)


@functools.lru_cache(maxsize=64)
def _reference_population(variant: Variant) -> Population:
    return sample_population(variant, REFERENCE_SEED, REFERENCE_SPLIT, REFERENCE_SIZE)


@functools.lru_cache(maxsize=64)
def _reference_end_states(variant: Variant, months: int) -> np.ndarray:
    """End-of-follow-up states (S, n) of the reference population."""
    return _reference_run(variant, months, None).states[-1]


@functools.lru_cache(maxsize=64)
def reference_scale(variant: Variant, months: int) -> RiskScale:
    """Standardisation and intercept of latent_risk for one variant and follow-up."""
    end = _reference_end_states(variant, months)
    mean, sd = end.mean(axis=1), end.std(axis=1)
    sd = np.where(sd > 0, sd, 1.0)
    unit = RiskScale(mean=mean, sd=sd, intercept=0.0)
    hazard = _reference_run(variant, months, unit).hazard_sum[0]

    def gap(b0: float) -> float:
        return float(event_probability(hazard, b0).mean()) - variant.target_prevalence

    intercept = brentq(gap, -30.0, 30.0, xtol=1e-12)
    return RiskScale(mean=mean, sd=sd, intercept=float(intercept))


@functools.lru_cache(maxsize=64)
def prior_equation(variant: Variant, months: int) -> PriorEquation:
    """The prior's risk equation for one variant and follow-up (see :mod:`.prior`)."""
    scale = reference_scale(variant, months)
    end = _reference_end_states(variant, months).T

    def equation(hazard_scale: float) -> PriorEquation:
        return PriorEquation(signs=prior_signs(), weights=prior_weights(), mean=scale.mean,
                             sd=scale.sd, intercept=scale.intercept,
                             hazard_scale=hazard_scale, months=months)

    def gap(log_scale: float) -> float:
        return float(equation(np.exp(log_scale)).risk(end).mean()) - variant.target_prevalence

    return equation(float(np.exp(brentq(gap, -30.0, 30.0, xtol=1e-12))))
