"""Per-variant constants solved on a fixed reference population.

latent_risk standardises each state by its end-of-follow-up mean and sd, and the hazard
intercept is solved so the source domain's mean event probability equals the variant's
``target_prevalence``. The prior's risk equation (:mod:`.prior`) shares that
standardisation and intercept, and its hazard scale is solved on the same population.
All are computed once per (variant, months) on a reference population drawn from its own
stream, so they never depend on a cohort's seed or size.

Every average here is a correctly rounded sum (``math.fsum``), not numpy's reduction: the
order in which numpy adds depends on the CPU's vector width, and a last-bit difference in
these constants is a different published file. The prior's equation is published to
``PUBLISHED_DECIMALS`` like every other number of the release, and its hazard scale is
solved for the rounded equation.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy.optimize import brentq

from icgbench.generator.dynamics import (
    RiskScale,
    Trajectories,
    event_probability,
    simulate_dynamics,
)
from icgbench.generator.mechanism import PUBLISHED_DECIMALS, risk_coefficients
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


def exact_mean(rows: np.ndarray) -> np.ndarray:
    """Mean of each row of a 2-D array from a correctly rounded sum: the same bits on any CPU."""
    rows = np.asarray(rows, dtype=np.float64)
    return np.array([math.fsum(row) for row in rows]) / rows.shape[1]


def exact_sd(rows: np.ndarray) -> np.ndarray:
    """Population sd (ddof=0) of each row of a 2-D array, as CPU-independent as exact_mean."""
    rows = np.asarray(rows, dtype=np.float64)
    centred = rows - exact_mean(rows)[:, None]
    return np.sqrt(exact_mean(centred * centred))


def _average(values: np.ndarray) -> float:
    return float(exact_mean(np.asarray(values, dtype=np.float64)[None, :])[0])


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
    mean, sd = exact_mean(end), exact_sd(end)
    sd = np.where(sd > 0, sd, 1.0)
    unit = RiskScale(mean=mean, sd=sd, intercept=0.0)
    hazard = _reference_run(variant, months, unit).hazard_sum[0]

    def gap(b0: float) -> float:
        return _average(event_probability(hazard, b0)) - variant.target_prevalence

    intercept = brentq(gap, -30.0, 30.0, xtol=1e-12)
    return RiskScale(mean=mean, sd=sd, intercept=float(intercept))


@functools.lru_cache(maxsize=64)
def prior_equation(variant: Variant, months: int) -> PriorEquation:
    """The prior's risk equation for one variant and follow-up (see :mod:`.prior`).

    Its constants are the DGP's, rounded to the release's published precision; the hazard
    scale is solved for that rounded equation, then rounded too.
    """
    scale = reference_scale(variant, months)
    end = _reference_end_states(variant, months).T

    def published(x: np.ndarray | float) -> np.ndarray:
        return np.round(np.asarray(x, dtype=np.float64), PUBLISHED_DECIMALS)

    def equation(hazard_scale: float) -> PriorEquation:
        return PriorEquation(signs=prior_signs(), weights=prior_weights(),
                             mean=published(scale.mean), sd=published(scale.sd),
                             intercept=float(published(scale.intercept)),
                             hazard_scale=hazard_scale, months=months)

    def gap(log_scale: float) -> float:
        return _average(equation(math.exp(log_scale)).risk(end)) - variant.target_prevalence

    solved = math.exp(brentq(gap, -30.0, 30.0, xtol=1e-12))
    return equation(float(published(solved)))
