"""mbcnet_sign_constrained_augmented: the sign-constrained model, trained also on the prior.

Seed 000's third MB-CNet (short name ``sign_constrained_augmented``). Stage 2 is
mbcnet_sign_constrained's, fitted on the train subjects plus synthetic rows: for every
intervention and every train subject, the subject's predicted end-of-follow-up states
(stage 1's out-of-bag prediction) with the intervention applied, labelled by the
structural prior's risk equation (the ``structural_prior`` table's signs and weights,
calibrated on the public train tables as docs/dgp.md defines it). As ICg-CaST
does, each synthetic row gets a Bernoulli label drawn from the equation's risk
(``SAMPLES_PER_INTERVENTION`` draws per intervention and subject, from the model's own
seeded stream) and the weight ``1 / (samples x interventions)``, so all synthetic rows
together weigh as much as one copy of the train subjects, each of which weighs 1. Unlike
ICg-CaST, stage 2 has no class weighting (as in the other two bottleneck models) and the
equation gives the risk over the whole follow-up directly. Where the prior is wrong (the
misspecified_signs variants) the synthetic rows teach stage 2 the wrong sign with
confidence: that is what those variants exist to show.
"""

from __future__ import annotations

import numpy as np

from icgbench.generator.interventions import scaled
from icgbench.models.base import CohortData
from icgbench.models.mbcnet_sign_constrained import MBCNetSignConstrained
from icgbench.models.seeding import model_rng

SAMPLES_PER_INTERVENTION = 2


def augmented_rows(states: np.ndarray, scales: dict[str, dict[str, float]], risk,
                   rng: np.random.Generator,
                   samples: int = SAMPLES_PER_INTERVENTION) -> tuple[np.ndarray, np.ndarray,
                                                                     np.ndarray]:
    """Synthetic (states, label, weight) rows: ``samples`` per intervention per subject.

    ``states`` are natural-scale end states (n, S); ``risk`` maps such states to an event
    probability (the prior's equation).
    """
    parts, labels = [], []
    for unit in scales.values():
        moved = scaled(states, unit)
        p = risk(moved)
        for _ in range(samples):
            parts.append(moved)
            labels.append((rng.random(len(p)) < p).astype(np.float64))
    rows = np.vstack(parts)
    weight = np.full(len(rows), 1.0 / (samples * max(len(scales), 1)))
    return rows, np.concatenate(labels), weight


class MBCNetSignConstrainedAugmented(MBCNetSignConstrained):
    name = "mbcnet_sign_constrained_augmented"
    aliases = ("sign_constrained_augmented",)
    description = ("Sign-constrained two-stage mechanism bottleneck whose stage 2 also trains "
                   "on intervened copies of the train subjects labelled by the structural "
                   "prior's risk equation.")

    def stage2_rows(self, data: CohortData) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        equation = data.prior_equation()
        states = self.z_train * self.sd + self.mean
        rng = model_rng(self.name, data.variant, data.seed)
        rows, labels, weight = augmented_rows(states, data.intervention_scales(),
                                              equation.risk, rng)
        z = np.vstack([self.z_train, (rows - self.mean) / self.sd])
        y = np.concatenate([self.y_train, labels])
        w = np.concatenate([np.ones(len(self.y_train)), weight])
        return z, y, w


MODEL = MBCNetSignConstrainedAugmented
