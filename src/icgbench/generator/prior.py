"""The structural prior's risk equation: the prior's signs with nominal weights.

The prior a mechanism-aware modeller brings is more than a sign per state: ICg-CaST labels
its intervention-augmented training rows with a frozen reference risk equation. The release
publishes that equation in the ``structural_prior`` table so any model can use it::

    eta  = intercept + sum_s prior_sign_s * prior_weight_s * z_s
    z_s  = (x_s - reference_mean_s) / reference_sd_s
    risk = 1 - exp(-hazard_scale * months * exp(eta))

where ``x_s`` is state ``s`` at the end of follow-up. ``reference_mean``/``reference_sd``
and ``intercept`` are the DGP's own standardisation and hazard intercept (from the
variant's reference population); ``hazard_scale`` is solved on that population so the
equation's mean risk equals the variant's target prevalence, which corrects for holding
the final state's hazard over every month. On a well-specified variant the equation has
the DGP's signs and magnitudes; on a misspecified one it is wrong exactly at the flipped
states, and a model that trusts it inherits the error.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icgbench.contract.vocabulary import STATES
from icgbench.generator import mechanism as mech


@dataclass(frozen=True)
class PriorEquation:
    """The prior's risk equation for one variant (arrays in STATES order)."""

    signs: np.ndarray  # (S,) +1 / -1
    weights: np.ndarray  # (S,) nominal magnitudes
    mean: np.ndarray  # (S,)
    sd: np.ndarray  # (S,)
    intercept: float
    hazard_scale: float
    months: int

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
        return -np.expm1(-self.hazard_scale * self.months * np.exp(self.linear_predictor(states)))


def prior_signs() -> np.ndarray:
    """The prior's sign per state (STATES order)."""
    return np.array([mech.PRIOR_SIGNS[s] for s in STATES], dtype=np.int64)


def prior_weights() -> np.ndarray:
    """The prior's nominal weight per state (STATES order)."""
    return np.array([mech.PRIOR_WEIGHTS[s] for s in STATES], dtype=np.float64)
