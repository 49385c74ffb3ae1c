"""Per-variant constants solved on a fixed reference population.

latent_risk standardises each state by its end-of-follow-up mean and sd, and the hazard
intercept is solved so the source domain's mean event probability equals the variant's
``target_prevalence``. Both are computed once per (variant, months) on a reference
population drawn from its own stream, so they never depend on a cohort's seed or size.
"""

from __future__ import annotations

import functools

import numpy as np
from scipy.optimize import brentq

from icgbench.generator.dynamics import RiskScale, event_probability, simulate_dynamics
from icgbench.generator.mechanism import risk_coefficients
from icgbench.generator.population import sample_population
from icgbench.generator.variants import Variant
from icgbench.vocabulary import STATES

REFERENCE_SIZE = 4000
REFERENCE_SEED = 0
REFERENCE_SPLIT = "reference"


@functools.lru_cache(maxsize=64)
def reference_scale(variant: Variant, months: int) -> RiskScale:
    """Standardisation and intercept of latent_risk for one variant and follow-up."""
    pop = sample_population(variant, REFERENCE_SEED, REFERENCE_SPLIT, REFERENCE_SIZE)
    beta = risk_coefficients(variant.flipped_signs)
    factual = np.ones((1, len(STATES)))
    first = simulate_dynamics(variant, REFERENCE_SEED, pop, months, (months,), factual, None, beta)
    end = first.states[-1]
    mean, sd = end.mean(axis=1), end.std(axis=1)
    sd = np.where(sd > 0, sd, 1.0)
    unit = RiskScale(mean=mean, sd=sd, intercept=0.0)
    second = simulate_dynamics(variant, REFERENCE_SEED, pop, months, (months,), factual, unit, beta)
    hazard = second.hazard_sum[0]

    def gap(b0: float) -> float:
        return float(event_probability(hazard, b0).mean()) - variant.target_prevalence

    intercept = brentq(gap, -30.0, 30.0, xtol=1e-12)
    return RiskScale(mean=mean, sd=sd, intercept=float(intercept))
