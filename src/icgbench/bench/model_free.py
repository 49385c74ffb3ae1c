"""The model-free panel as submissions, and its published scores.

The panel (:mod:`icgbench.model_free`) is graded when a cohort is generated and its scores
ship as the truth table ``model_free_scores``. Here each answer is wrapped as a model, so
that it is written to a file and graded by ``icgbench score`` like anybody's submission
(the tests do this, to check that the published floors are what the answers really
score), and :func:`published` reads the table back for ``docs/baselines.md``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from icgbench.api.tables import load_table, tier_descriptor
from icgbench.generator import get_variant
from icgbench.model_free.answers import ANSWERS, READS_TRUTH, applies
from icgbench.model_free.inputs import PanelInputs
from icgbench.models.base import CohortData, ReferenceModel

PUBLIC = ("subjects", "observations", "train_outcomes", "train_states", "interventions",
          "structural_prior", "prior_graph", "nodes")


def panel_inputs(data: CohortData) -> PanelInputs:
    """What the panel's answers read of ``data``'s cohort (its public tables)."""
    tables = {t: load_table(data.variant, t, data.seed, data.tier, role="public",
                            root=data.root) for t in PUBLIC}
    return PanelInputs.from_tables(get_variant(data.variant), tables)


class ModelFree(ReferenceModel):
    """One answer of the panel wrapped as a model (a guess: its ``guess``-th submission)."""

    blocks = ("risk_prediction", "latent_recovery", "intervention_conformity",
              "cross_host_generalization", "structure_recovery")

    def __init__(self, answer: str, guess: int = 0) -> None:
        self.name = f"model_free_{answer}".replace(".", "_")
        self.description = " ".join((ANSWERS[answer].__doc__ or answer).split())
        self.answer, self.guess = answer, guess
        self.oracle = answer in READS_TRUTH

    def fit(self, data: CohortData) -> None:
        pass

    def predict(self, data: CohortData) -> dict[str, Any]:
        from icgbench.generator.simulator import published_effects
        from icgbench.model_free.panel import donors
        from icgbench.scorer.truth import load_truth

        inputs = panel_inputs(data)
        if not applies(self.answer, inputs):
            raise ValueError(f"{self.answer} does not apply to {data.variant}")
        truth = (load_truth(tier_descriptor(data.tier, data.root), data.variant,
                            data.seed).truth if self.answer in READS_TRUTH else None)
        made = ANSWERS[self.answer](inputs, truth, donors(get_variant(data.variant),
                                                          data.seed, published_effects))
        return made[self.guess] if isinstance(made, list) else made


def published(cohorts: list[tuple[str, int]], tier: str, root: Path | None = None
              ) -> pd.DataFrame:
    """The ``model_free_scores`` tables of ``cohorts``: one row per (cohort, answer, task,
    metric) with its value."""
    frames = []
    for variant, seed in cohorts:
        table = load_table(variant, "model_free_scores", seed, tier, role="truth", root=root)
        frames.append(table.assign(cohort=variant, seed=seed))
    return pd.concat(frames, ignore_index=True)
