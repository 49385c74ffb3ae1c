"""The bottleneck's mechanism layer: how an intervention on one state moves the later ones.

An intervention in the DGP holds a state at ``scale`` times its natural value, and every
state it drives responds (adducts drive mutation, mutation drives clones, ...). A model that
scales one predicted state and holds the others fixed sees only the direct part of the
effect. The layer is a linear regression of each end-of-follow-up state on the states
before it in the AOP's order (public: ``vocabulary.STATES``), fitted on the train split's
public states; under an intervention each later state moves by its fitted response to the
changes before it. It is what a modeller builds from the concept labels, not the truth.
"""

from __future__ import annotations

import numpy as np

from icgbench.contract.vocabulary import STATES


class StateMechanism:
    """Linear responses of each state to the states before it (fitted, natural scale)."""

    def fit(self, states: np.ndarray) -> StateMechanism:
        """Fit on end-of-follow-up states (subjects x STATES, natural scale)."""
        n, k = states.shape
        self.coef = np.zeros((k, k))
        for j in range(1, k):
            design = np.column_stack([np.ones(n), states[:, :j]])
            self.coef[:j, j] = np.linalg.lstsq(design, states[:, j], rcond=None)[0][1:]
        return self

    def intervene(self, states: np.ndarray, units: dict[str, float]) -> np.ndarray:
        """``states`` (natural scale) under the interventions ``units`` (state -> scale):
        each later state moves by its response to the changes before it, and a scaled state
        is ``scale`` times its moved value; states stay non-negative."""
        delta = np.zeros_like(states, dtype=np.float64)
        for j, state in enumerate(STATES):
            moved = states[:, j] + delta[:, :j] @ self.coef[:j, j]
            if state in units:
                moved = moved * units[state]
            delta[:, j] = moved - states[:, j]
        return np.maximum(states + delta, 0.0)
