"""panel_regression: the documented family, tested against the train split's visits.

A structure baseline that uses what the documentation says and lets the data decide the
rest. The family (docs/dgp.md) says every state acts on the event, and which edges a
cohort's graph may hold: KCCs act on the exposure-driven states (and the host routes), a
state acts on states after it in the AOP's order. The outcome edges are scored first;
every other candidate is scored by the evidence for it in the train subjects' visits.

For each state, one regression pooled over consecutive visits (months 0-6, 6-12, ...):
the state at a visit on its own value at the visit before, the states before it in the
AOP's order at the same visit, every KCC assay readout, and every readout times the dose
(the exposure drive is dose x f(KCCs)). A candidate's score is the absolute partial
correlation of its term (a KCC's: the larger of its two terms), t / sqrt(t^2 + df), which
puts regressions of different sizes on one scale. Edges outside the family are not
scored. Submits structure_recovery only.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from icgbench.contract.vocabulary import KCCS, OUTCOME_NODE, STATES, kcc_assay_column
from icgbench.generator.family import candidates
from icgbench.models.base import CohortData, ReferenceModel, rounded

#: The score of an outcome edge: above every partial correlation (at most 1).
OUTCOME_SCORE = 2.0


def _standardised(x: np.ndarray) -> np.ndarray:
    sd = x.std(axis=0)
    return (x - x.mean(axis=0)) / np.where(sd > 0, sd, 1.0)


def partial_correlations(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """|t| / sqrt(t^2 + df) of each column of ``x`` in the least-squares fit of ``y`` on
    ``x`` and an intercept."""
    design = np.column_stack([np.ones(len(y)), _standardised(x)])
    target = _standardised(y[:, None])[:, 0]
    coef, *_ = np.linalg.lstsq(design, target, rcond=None)
    residual = target - design @ coef
    df = len(y) - design.shape[1]
    sigma2 = float(residual @ residual) / df
    cov = sigma2 * np.linalg.pinv(design.T @ design)
    t = coef / np.sqrt(np.maximum(np.diag(cov), 1e-300))
    return (np.abs(t) / np.sqrt(t * t + df))[1:]


class PanelRegression(ReferenceModel):
    name = "panel_regression"
    description = ("The documented family's candidate edges, the outcome edges first and the "
                   "rest by partial correlations in regressions pooled over the train "
                   "split's visits.")
    blocks = ("structure_recovery",)

    def fit(self, data: CohortData) -> None:
        ids = data.train_outcomes.subject_id.to_numpy()
        subjects = data.subjects.set_index("subject_id").loc[ids]
        kcc = subjects[[kcc_assay_column(k) for k in KCCS]].to_numpy(dtype=np.float64)
        dose = subjects["dose"].to_numpy(dtype=np.float64)
        states = data.train_states
        months = sorted(int(m) for m in states.month.unique())
        at = {m: states[states.month == m].set_index("subject_id").loc[ids, list(STATES)]
              .to_numpy(dtype=np.float64) for m in months}
        self.scores: dict[tuple[str, str], float] = {}
        for j, child in enumerate(STATES):
            rows = [np.column_stack([at[a][:, j], at[b][:, :j], kcc, kcc * dose[:, None]])
                    for a, b in itertools.pairwise(months)]
            y = np.concatenate([at[b][:, j] for b in months[1:]])
            r = partial_correlations(y, np.vstack(rows))
            for i, parent in enumerate(STATES[:j]):
                self.scores[(parent, child)] = float(r[1 + i])
            for i, k in enumerate(KCCS):
                self.scores[(kcc_assay_column(k), child)] = float(max(
                    r[1 + j + i], r[1 + j + len(KCCS) + i]))

    def predict(self, data: CohortData) -> dict[str, Any]:
        source, target, score = [], [], []
        for c in candidates():
            source.append(c.node)
            target.append(c.target)
            score.append(OUTCOME_SCORE if c.target == OUTCOME_NODE
                         else self.scores[(c.node, c.target)])
        return {"structure_recovery": {"source": source, "target": target,
                                       "score": rounded(np.asarray(score))}}


MODEL = PanelRegression
