"""mbcnet_sign_constrained: stage-2 coefficient signs bounded to the structural prior.

Stage 2 is an L2-regularised logistic regression (the same penalty as mbcnet_v0_1's,
C = 1) fitted with scipy's L-BFGS-B, each state's coefficient bounded to its prior sign:
``[1e-4, inf)`` for a positive prior, ``(-inf, -1e-4]`` for a negative one. A coefficient
of exactly zero has no sign, so the bound sits just off zero; a coefficient pinned there is
the "technically correct sign without any intervention response" that
``responsive_dgp_conformity`` exposes. On the misspecified_signs variants the prior is
wrong, and this is the model whose prior fragility the DGP conformity metrics show.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit

from icgbench.contract.vocabulary import STATES
from icgbench.models.base import CohortData
from icgbench.models.bottleneck import BottleneckModel, Stage2

C = 1.0
SIGN_FLOOR = 1e-4


class SignConstrainedLogistic(Stage2):
    def __init__(self, signs: list[int], relaxed: frozenset[str] = frozenset()) -> None:
        self.signs = signs
        self.relaxed = relaxed

    def bounds(self) -> list[tuple[float | None, float | None]]:
        out: list[tuple[float | None, float | None]] = [(None, None)]  # intercept
        for state, sign in zip(STATES, self.signs, strict=True):
            if state in self.relaxed:
                out.append((None, None))
            else:
                out.append((SIGN_FLOOR, None) if sign > 0 else (None, -SIGN_FLOOR))
        return out

    def fit(self, z: np.ndarray, y: np.ndarray,
            weight: np.ndarray | None = None) -> SignConstrainedLogistic:
        n = len(y)
        x = np.hstack([np.ones((n, 1)), z])
        weight = np.ones(n) if weight is None else np.asarray(weight, dtype=np.float64)
        total = float(weight.sum())
        penalty = 1.0 / (C * total)

        def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
            eta = x @ w
            nll = float(weight @ (np.logaddexp(0.0, eta) - y * eta)) / total
            grad = x.T @ (weight * (expit(eta) - y)) / total
            reg = w.copy()
            reg[0] = 0.0
            return nll + 0.5 * penalty * float(reg @ reg), grad + penalty * reg

        start = np.array([0.0] + [s * 2 * SIGN_FLOOR for s in self.signs])
        for j, state in enumerate(STATES, start=1):
            if state in self.relaxed:
                start[j] = 0.0
        result = minimize(loss, start, jac=True, method="L-BFGS-B", bounds=self.bounds(),
                          options={"maxiter": 5000, "gtol": 1e-10})
        self.w = result.x
        return self

    def proba(self, z: np.ndarray) -> np.ndarray:
        return expit(self.w[0] + z @ self.w[1:])

    def coefficients(self) -> np.ndarray:
        return self.w[1:].copy()


class MBCNetSignConstrained(BottleneckModel):
    name = "mbcnet_sign_constrained"
    aliases = ("sign_constrained",)
    description = ("Two-stage mechanism bottleneck whose stage-2 logistic coefficients are "
                   "bounded to the structural prior's signs (L-BFGS-B).")
    relaxed: frozenset[str] = frozenset()

    def make_stage2(self, data: CohortData) -> Stage2:
        signs = [data.prior_signs()[s] for s in STATES]
        return SignConstrainedLogistic(signs, self.relaxed)


MODEL = MBCNetSignConstrained
