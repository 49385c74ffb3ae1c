"""The structural prior's risk equation: the prior's signs with nominal weights, calibrated
on the train split's public tables.

The prior a mechanism-aware modeller brings is more than a sign per state: ICg-CaST labels
its intervention-augmented training rows with a frozen reference risk equation. The
release publishes the prior's signs and nominal weights (table ``structural_prior``); the
equation built from them is a documented function of the cohort's *public* tables, never
of the DGP's own constants (which would hand out what the DGP's risk is centred on)::

    z_s  = (x_s - mean_s) / sd_s
    eta  = intercept + sum_s prior_sign_s * prior_weight_s * z_s
    risk = 1 - exp(-exp(eta))

where ``x_s`` is state ``s`` at the end of follow-up, ``mean_s`` and ``sd_s`` are its mean
and population standard deviation (ddof 0) over the train split's subjects
(``train_states`` at the largest month), and ``intercept`` is the root of "the equation's
mean risk over the train subjects equals their event rate" (``train_outcomes``). On a
well-specified variant the equation has the DGP's signs, not its weights (a cohort draws
its own around the nominal ones); on a misspecified one it is wrong at the reversed states,
and a model that trusts it inherits the error.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from icgbench.contract.vocabulary import STATES
from icgbench.generator import mechanism as mech


@dataclass(frozen=True)
class PriorEquation:
    """The prior's risk equation for one cohort (arrays in STATES order)."""

    signs: np.ndarray  # (S,) +1 / -1
    weights: np.ndarray  # (S,) nominal magnitudes
    mean: np.ndarray  # (S,)
    sd: np.ndarray  # (S,)
    intercept: float

    def linear_predictor(self, states: np.ndarray) -> np.ndarray:
        """eta for end-of-follow-up states (n, S) on their natural scale."""
        z = (np.asarray(states, dtype=np.float64) - self.mean) / self.sd
        w = self.signs * self.weights
        eta = np.full(z.shape[0], self.intercept)
        for j in range(z.shape[1]):  # a fixed order of additions, not BLAS: the same bits
            eta += z[:, j] * w[j]   # on every CPU
        return eta

    def risk(self, states: np.ndarray) -> np.ndarray:
        """The equation's event probability for end-of-follow-up states (n, S)."""
        return -np.expm1(-np.exp(self.linear_predictor(states)))

    def with_signs(self, signs: np.ndarray) -> PriorEquation:
        """The same equation with other signs (a guess at which states are reversed)."""
        return PriorEquation(np.asarray(signs, dtype=np.int64), self.weights, self.mean,
                             self.sd, self.intercept)

    @classmethod
    def calibrated(cls, states: np.ndarray, events: np.ndarray,
                   signs: np.ndarray | None = None) -> PriorEquation:
        """The equation calibrated on train subjects' end-of-follow-up states (n, S) and
        events (n,), as the module defines it."""
        x = np.asarray(states, dtype=np.float64)
        mean = np.array([math.fsum(col) / len(col) for col in x.T])
        sd = np.array([math.sqrt(math.fsum((col - m) ** 2) / len(col))
                       for col, m in zip(x.T, mean, strict=True)])
        sd = np.where(sd > 0, sd, 1.0)
        base = cls(prior_signs() if signs is None else np.asarray(signs, dtype=np.int64),
                   prior_weights(), mean, sd, 0.0)
        eta = base.linear_predictor(x)
        rate = math.fsum(np.asarray(events, dtype=np.float64)) / len(x)
        return cls(base.signs, base.weights, mean, sd, _intercept(eta, rate))


#: How far numpy's mean risk must be from the event rate to decide a bisection step alone.
#: Its error is below 1e-14 (a few ulps per term, summed pairwise), so a step it decides
#: goes the way the correctly rounded mean would send it.
SCREEN = 1e-12


def _intercept(eta: np.ndarray, rate: float) -> float:
    """The b with mean(1 - exp(-exp(b + eta))) = rate (bisection on a monotone function,
    each step decided by a correctly rounded mean: the same bits on every CPU).

    numpy's mean decides the steps far from the root; the correctly rounded one (a Python
    sum, much slower) only those within :data:`SCREEN` of the rate, where the two could
    disagree. Both send every step the same way, so the root is the same bits."""
    if not 0.0 < rate < 1.0:
        return math.log(-math.log1p(-min(max(rate, 1e-6), 1 - 1e-6)))
    array = np.asarray(eta, dtype=np.float64)
    values = array.tolist()

    def exact_mean_risk(b: float) -> float:
        return math.fsum(-math.expm1(-math.exp(min(b + e, 700.0))) for e in values) / len(
            values)

    def below(b: float) -> bool:
        near = float(np.mean(-np.expm1(-np.exp(np.minimum(b + array, 700.0)))))
        if abs(near - rate) > SCREEN:  # False for a NaN: decided exactly
            return near < rate
        return exact_mean_risk(b) < rate

    low, high = -50.0, 50.0
    for _ in range(200):
        mid = 0.5 * (low + high)
        if mid in (low, high):
            break
        if below(mid):
            low = mid
        else:
            high = mid
    return 0.5 * (low + high)


def prior_signs() -> np.ndarray:
    """The prior's sign per state (STATES order)."""
    return np.array([mech.PRIOR_SIGNS[s] for s in STATES], dtype=np.int64)


def prior_weights() -> np.ndarray:
    """The prior's nominal weight per state (STATES order)."""
    return np.array([mech.PRIOR_WEIGHTS[s] for s in STATES], dtype=np.float64)
