"""One-line human summaries of cohorts."""

from __future__ import annotations

import pyarrow.compute as pc

from icgbench.contract.vocabulary import MODALITIES
from icgbench.generator import Cohort


def cohort_stats(cohort: Cohort) -> dict[str, float | int]:
    """Subjects, train event rate and the fraction of (subject, visit, modality) masked."""
    masks = cohort.tables["masks"]
    observed = [pc.mean(pc.cast(masks[m], "float64")).as_py() for m in MODALITIES]
    events = cohort.tables["train_outcomes"]["event"]
    return {
        "subjects": sum(cohort.sizes.values()),
        "event_rate": pc.mean(events).as_py(),
        "masked_fraction": 1.0 - sum(observed) / len(observed),
    }


def cohort_summary(cohort: Cohort) -> str:
    """``variant (hash) seed S: N subjects (...), event rate r, masked fraction m``."""
    s = cohort_stats(cohort)
    sizes = ", ".join(f"{k} {v}" for k, v in cohort.sizes.items())
    return (
        f"{cohort.variant.name} ({cohort.variant.variant_hash}) seed {cohort.seed}: "
        f"{s['subjects']} subjects ({sizes}), train event rate {s['event_rate']:.3f}, "
        f"masked fraction {s['masked_fraction']:.3f}"
    )
