"""The stage-2 sign audit of a bottleneck model.

For each state: the fitted stage-2 coefficient and its sign beside the structural prior's
sign and the DGP's true sign (from the truth graph: this is an analysis of the model, not
part of it). For a sign-constrained model, each constraint is then relaxed in turn (stage 1
kept, stage 2 refitted) to show what that one constraint costs or buys in AUROC and
conformity.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from icgbench.api.tables import load_table
from icgbench.contract.vocabulary import OUTCOME_NODE, STATES
from icgbench.errors import UsageError
from icgbench.models import CohortData, get_model
from icgbench.models.bottleneck import BottleneckModel
from icgbench.models.mbcnet_sign_constrained import SignConstrainedLogistic
from icgbench.release.tiers import UNFROZEN_NAME
from icgbench.scorer import score


@dataclass(frozen=True)
class AuditResult:
    model: str
    cohort: str
    seed: int
    frozen: bool
    base: dict[str, float | None]
    rows: list[dict[str, Any]]


def _headline(report) -> dict[str, float | None]:
    ic = report.metrics("intervention_conformity")
    return {"auroc": report.summary["auroc"], "prior_conformity": ic["prior_conformity"],
            "dgp_conformity": ic["dgp_conformity"],
            "responsive_dgp_conformity": ic["responsive_dgp_conformity"]}


def _sign(x: float) -> int:
    return int(np.sign(x))


def audit(model_name: str, cohort: str, seed: int | None = None, tier: str = "small",
          root: Path | None = None) -> AuditResult:
    """Fit ``model_name`` on the cohort and audit its stage-2 signs."""
    model = get_model(model_name)
    model_name = model.name
    if not isinstance(model, BottleneckModel):
        raise UsageError(f"the sign audit applies to bottleneck models (mbcnet_*), not "
                         f"{model_name!r}")
    data = CohortData.load(cohort, seed, tier, root)
    model.fit(data)
    base = _headline(score(model.submission(data), root=root))
    graph = load_table(cohort, "graph", data.seed, tier, role="truth", root=root)
    dgp = {r.source: int(r.sign) for r in graph.itertuples() if r.target == OUTCOME_NODE}
    prior = data.prior_signs()
    coefficients = model.stage2.coefficients()
    constrained = isinstance(model.stage2, SignConstrainedLogistic)
    fitted = model.stage2
    rows = []
    for j, state in enumerate(STATES):
        row: dict[str, Any] = {
            "state": state, "coefficient": float(coefficients[j]),
            "fitted_sign": _sign(coefficients[j]), "prior_sign": prior[state],
            "dgp_sign": dgp[state],
        }
        if constrained:
            signs = [prior[s] for s in STATES]
            model.stage2 = SignConstrainedLogistic(signs, frozenset({state})).fit(
                model.z_train, model.y_train)
            relaxed = _headline(score(model.submission(data), root=root))
            row["relaxed_coefficient"] = float(model.stage2.coefficients()[j])
            for key, value in relaxed.items():
                row[f"relaxed_{key}"] = value
                row[f"change_{key}"] = (None if value is None or base[key] is None
                                        else value - base[key])
            model.stage2 = fitted
        rows.append(row)
    return AuditResult(model_name, cohort, data.seed, tier != UNFROZEN_NAME, base, rows)
