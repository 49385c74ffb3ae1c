"""The model-free panel as submissions, and its published scores.

The panel (:mod:`icgbench.model_free`) is graded when a tier is frozen and its scores ship
as the truth table ``model_free_scores``. Here each answer is wrapped as a model, so
that it is written to a file and graded by ``icgbench score`` like anybody's submission
(the tests do this, to check that the published floors are what the answers really
score), and :func:`published` reads the table back for ``docs/baselines.md``.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pandas as pd

from icgbench.api.tables import load_table
from icgbench.contract.json_schemas import NAME_LENGTH
from icgbench.generator import get_variant
from icgbench.model_free.answers import blocks, describe, made
from icgbench.model_free.inputs import PanelInputs
from icgbench.models.base import CohortData, ReferenceModel
from icgbench.tasks import BLOCKS

PUBLIC = ("subjects", "observations", "train_outcomes", "train_states", "interventions",
          "structural_prior", "prior_graph", "nodes")


def panel_inputs(data: CohortData) -> PanelInputs:
    """What the panel's answers read of ``data``'s cohort (its public tables)."""
    tables = {t: load_table(data.variant, t, data.seed, data.tier, role="public",
                            root=data.root) for t in PUBLIC}
    return PanelInputs.from_tables(get_variant(data.variant), tables)


def model_name(answer: str) -> str:
    """The submission's model name of an answer: ``model_free_<answer>``, a long one (a rank
    ensemble of many answers) cut and told apart by a digest of the whole."""
    name = f"model_free_{answer}".replace(".", "_")
    if len(name) <= NAME_LENGTH:
        return name
    digest = hashlib.sha256(answer.encode()).hexdigest()[:8]
    return f"{name[:NAME_LENGTH - len(digest) - 1]}_{digest}"


class ModelFree(ReferenceModel):
    """One answer of the panel wrapped as a model (a guess: its ``guess``-th submission;
    ``k``: the structure block's K, the answer's K* on the calibration cohort)."""

    blocks = BLOCKS  # every task's block (the task registry's)

    def __init__(self, answer: str, guess: int = 0, k: int | None = None) -> None:
        self.name = model_name(answer)
        self.description = describe(answer)
        self.answer, self.guess, self.k = answer, guess, k

    def fit(self, data: CohortData) -> None:
        pass

    def predict(self, data: CohortData) -> dict[str, Any]:
        from icgbench.model_free.donors import donors

        inputs = panel_inputs(data)
        answers = made(inputs, donors(get_variant(data.variant), data.seed))
        if self.answer not in answers:
            raise ValueError(f"{self.answer} does not apply to {data.variant}")
        prediction = answers[self.answer]
        one = prediction[self.guess] if isinstance(prediction, list) else prediction
        return blocks(inputs, one, self.k)


def published(cohorts: list[tuple[str, int]], tier: str, root: Path | None = None
              ) -> pd.DataFrame:
    """The ``model_free_scores`` tables of ``cohorts``: one row per (cohort, answer, task,
    metric) with its value."""
    frames = []
    for variant, seed in cohorts:
        table = load_table(variant, "model_free_scores", seed, tier, role="truth", root=root)
        frames.append(table.assign(cohort=variant, seed=seed))
    return pd.concat(frames, ignore_index=True)
