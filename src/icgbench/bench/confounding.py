"""What the hidden confounder does to the data: each confounded state's causal sign on the
event beside its observational association, on every cohort of a tier.

The causal sign is the cohort's truth (table ``hidden_confounders``, the sign of the state's
coefficient on the hazard); the association is the Pearson correlation, over the train
subjects, of the state at the last visit with the event (tables ``train_states`` and
``train_outcomes``, which a model reads). On a confounded variant they disagree: that is
the variant (docs/dgp.md, *Hidden confounding*).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from icgbench.generator import get_variant


@dataclass(frozen=True)
class ConfoundedSign:
    """One confounded state of one cohort."""

    variant: str
    seed: int
    state: str
    causal_sign: int
    association: float

    @property
    def reversed(self) -> bool:
        """Whether the data point the other way from the effect."""
        return bool(np.sign(self.association) == -self.causal_sign)


def signs(tier: str, root: Path | None = None) -> list[ConfoundedSign]:
    """Every confounded state of every cohort of ``tier`` whose variant has a confounder."""
    from icgbench.api.tables import load_table, tier_descriptor

    out = []
    for c in tier_descriptor(tier, root).cohorts():
        variant, seed = c["variant"], c["seed"]
        if not get_variant(variant).n_confounded:
            continue
        hidden = load_table(variant, "hidden_confounders", seed, tier, "truth", root)
        states = load_table(variant, "train_states", seed, tier, root=root)
        last = states[states["month"] == states["month"].max()].set_index("subject_id")
        event = load_table(variant, "train_outcomes", seed, tier, root=root).set_index(
            "subject_id")["event"].reindex(last.index)
        for row in hidden.itertuples():
            association = float(np.corrcoef(last[row.state], event)[0, 1])
            out.append(ConfoundedSign(variant, seed, row.state, int(row.causal_sign),
                                      association))
    return out


def summary_markdown(rows: list[ConfoundedSign]) -> str:
    """Per variant and confounded state: cohorts, how many point the other way, and the
    range of the association."""
    groups: dict[tuple[str, str], list[ConfoundedSign]] = {}
    for r in rows:
        groups.setdefault((r.variant, r.state), []).append(r)
    out = ["| variant | confounded state | causal sign | cohorts | association reversed | "
           "association (min to max) |", "| --- | --- | --- | --- | --- | --- |"]
    for (variant, state), g in sorted(groups.items()):
        signs_ = {r.causal_sign for r in g}
        shown = ", ".join(f"{s:+d}" for s in sorted(signs_))
        out.append(f"| `{variant}` | `{state}` | {shown} | {len(g)} | "
                   f"{sum(r.reversed for r in g)} of {len(g)} | "
                   f"{min(r.association for r in g):+.3f} to "
                   f"{max(r.association for r in g):+.3f} |")
    return "\n".join(out)


def cohort_markdown(rows: list[ConfoundedSign]) -> str:
    """One row per cohort and confounded state."""
    out = ["| variant | seed | confounded state | causal sign | association with the event |",
           "| --- | --- | --- | --- | --- |"]
    out += [f"| `{r.variant}` | {r.seed} | `{r.state}` | {r.causal_sign:+d} | "
            f"{r.association:+.3f} |" for r in rows]
    return "\n".join(out)
