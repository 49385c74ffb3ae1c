"""What a reference model is, and the public data it is fitted on.

A reference model goes through exactly the path an outside user takes: it is fitted on the
public tables of the train split (``CohortData`` loads nothing else), predicts the blocks
it attempts, and its submission is validated and scored like anybody's. Only a model
marked ``oracle`` reads the truth, on purpose, as a ceiling.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from icgbench import __version__
from icgbench.api.tables import default_seed, load_table, tier_descriptor
from icgbench.api.template import header
from icgbench.contract.vocabulary import STATES
from icgbench.generator.prior import PriorEquation

DECIMALS = 6  # predictions are written to 6 decimals (smaller files, no loss that matters)


@dataclass(frozen=True)
class CohortData:
    """The public tables of one cohort (never a truth table)."""

    variant: str
    seed: int
    tier: str
    data_version: str
    subjects: pd.DataFrame
    observations: pd.DataFrame
    train_outcomes: pd.DataFrame
    train_states: pd.DataFrame
    interventions: pd.DataFrame
    structural_prior: pd.DataFrame
    root: Path | None = None

    @classmethod
    def load(cls, variant: str, seed: int | None = None, tier: str = "small",
             root: Path | None = None) -> CohortData:
        d = tier_descriptor(tier, root)
        seed = default_seed(d, variant) if seed is None else seed

        def public(table: str) -> pd.DataFrame:
            return load_table(variant, table, seed, tier, role="public", root=root)

        return cls(variant, seed, tier, d.version, public("subjects"), public("observations"),
                   public("train_outcomes"), public("train_states"), public("interventions"),
                   public("structural_prior"), root)

    def ids(self, split: str) -> list[str]:
        return self.subjects.loc[self.subjects.split == split, "subject_id"].tolist()

    def end_states(self) -> pd.DataFrame:
        """Train subjects' states at the end of follow-up, indexed by subject_id."""
        end = self.train_states[self.train_states.month == self.train_states.month.max()]
        return end.set_index("subject_id")

    def prior_signs(self) -> dict[str, int]:
        return dict(zip(self.structural_prior.state, self.structural_prior.prior_sign,
                        strict=True))

    def prior_equation(self) -> PriorEquation:
        """The structural prior's risk equation, calibrated on the public train tables as
        the release documents it (:mod:`icgbench.generator.prior`)."""
        table = self.structural_prior.set_index("state").loc[list(STATES)]
        end = self.end_states()
        events = self.train_outcomes.set_index("subject_id").event.loc[end.index]
        return PriorEquation.calibrated(end[list(STATES)].to_numpy(dtype=np.float64),
                                        events.to_numpy(dtype=np.float64),
                                        table.prior_sign.to_numpy(dtype=np.int64))

    def intervention_scales(self) -> dict[str, dict[str, float]]:
        out: dict[str, dict[str, float]] = {}
        for row in self.interventions.itertuples():
            out.setdefault(row.intervention, {})[row.state] = float(row.scale)
        return out


def rounded(values: np.ndarray) -> list[float]:
    """Predictions as a JSON-ready list at the published precision."""
    return np.round(np.asarray(values, dtype=np.float64), DECIMALS).tolist()


class ReferenceModel:
    """Base class: subclasses set the class attributes and implement fit and predict."""

    name: ClassVar[str]
    description: ClassVar[str]
    blocks: ClassVar[tuple[str, ...]]
    oracle: ClassVar[bool] = False
    #: Other names the CLI accepts for the model (the seed's short names, e.g. ``v0_1``).
    aliases: ClassVar[tuple[str, ...]] = ()
    #: Importable modules the model needs beyond the base install, and the extra that
    #: provides them (``pip install 'icgbench[EXTRA]'``).
    requires: ClassVar[tuple[str, ...]] = ()
    extra: ClassVar[str | None] = None

    def fit(self, data: CohortData) -> None:
        raise NotImplementedError

    def predict(self, data: CohortData) -> dict[str, Any]:
        """The submission's task blocks."""
        raise NotImplementedError

    def submission(self, data: CohortData) -> dict[str, Any]:
        """A complete submission document for ``data``'s cohort."""
        model = {"name": self.name, "version": __version__, "language": "Python",
                 "description": self.description}
        if self.oracle:
            model["oracle"] = True
        return {**header(data.variant, data.seed, data.tier, data.data_version, model),
                **self.predict(data)}
