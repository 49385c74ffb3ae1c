"""What the floor's choice may read of an answer on a cohort's train split.

An answer's ``selection`` in ``model_free_scores`` is its score on the train split where
the truth of that split is public: risk and transfer, the train events; latent, the train
end states. The answer chosen on each cohort's own train split
(:func:`icgbench.model_free.panel.chosen_on_train`) is chosen by it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from icgbench.contract.vocabulary import STATES
from icgbench.model_free.answers import Prediction
from icgbench.model_free.inputs import PanelInputs

#: What the floor's choice reads on the train split, per category: (the chance level's
#: value, the criterion), the criterion None where an answer says nothing of it.
Criterion = Callable[[PanelInputs, Prediction], float | None]


def train_auroc(inputs: PanelInputs, p: Prediction) -> float | None:
    """The AUROC of the answer's train risk against the public train events."""
    from icgbench.tasks.metrics import auroc

    if p.risk is None or "train" not in p.risk:
        return None
    return auroc(inputs.train_event, np.asarray(p.risk["train"], dtype=np.float64))


def train_r2_mean(inputs: PanelInputs, p: Prediction) -> float | None:
    """The mean R^2 of the answer's train states against the public train end states."""
    from icgbench.tasks.metrics import mean, r2

    if p.states is None or "train" not in p.states:
        return None
    return mean([r2(inputs.train_end[:, j], p.states["train"][:, j]) or 0.0
                 for j in range(len(STATES))])


TRAIN_CRITERIA: dict[str, tuple[float, Criterion]] = {
    "risk": (0.5, train_auroc),
    "latent": (0.0, train_r2_mean),
    "transfer": (0.5, train_auroc),
}
