"""The seed's claims about its models still show on the committed board.

Seed 000 says: a model can hit a high AUROC without recovering the latent state
(``logistic_direct``); the misspecified variants are the falsification cohorts of the
sign-constrained and intervention-augmented MB-CNets, which follow the prior where the DGP
contradicts it; ``misspecified_signs_v2`` asks whether unconstrained recovery
(``mbcnet_v0_1``) survives several prior errors; and ``responsive_dgp_conformity`` exposes a
sign constraint that drives a coefficient to zero (a technically right sign with no
response). Each claim is checked on the board's means over the full tier's sixty seeds.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from functools import lru_cache

from conftest import ROOT
from icgbench.leaderboard.store import load_board

V01, SIGN, AUG = "mbcnet_v0_1", "mbcnet_sign_constrained", "mbcnet_sign_constrained_augmented"
MISSPECIFIED = ("misspecified_signs", "misspecified_signs_v2")
WELL_SPECIFIED = ("linear_lowhet", "nonlinear_mixhost", "partial_observability",
                  "nonlinear_obs")


@lru_cache(maxsize=1)
def _values() -> dict[tuple[str, str, str, str], list[float]]:
    out: dict[tuple[str, str, str, str], list[float]] = defaultdict(list)
    for e in load_board(ROOT / "leaderboard", new_tier=None).entries:
        for task, metrics in e.scores.items():
            for metric, value in metrics.items():
                if value is not None:
                    out[(e.model_name, e.variant_name, task, metric)].append(value)
    return out


def mean(model: str, variant: str, task: str, metric: str) -> float:
    values = _values()[(model, variant, task, metric)]
    assert len(values) == 60, (model, variant, task, metric, len(values))
    return statistics.fmean(values)


def conformity(model: str, variant: str, kind: str) -> float:
    return mean(model, variant, "intervention_conformity", kind)


def test_a_high_auroc_needs_no_recovered_state():
    for variant in (*WELL_SPECIFIED, *MISSPECIFIED):
        direct = mean("logistic_direct", variant, "risk_prediction", "auroc")
        assert direct > mean(V01, variant, "risk_prediction", "auroc") - 0.05, variant
        assert ("logistic_direct", variant, "latent_recovery", "r2_mean") not in _values()


def test_the_misspecified_variants_falsify_the_prior_following_models():
    """Where the DGP reverses states, the models that follow the prior conform to the prior
    and miss the DGP; the unconstrained model does the opposite."""
    for variant in MISSPECIFIED:
        for model in (SIGN, AUG):
            assert conformity(model, variant, "prior_conformity") > conformity(
                model, variant, "dgp_conformity"), (model, variant)
            assert conformity(model, variant, "dgp_conformity") < conformity(
                V01, variant, "dgp_conformity"), (model, variant)
        assert conformity(V01, variant, "dgp_conformity") > conformity(
            V01, variant, "prior_conformity"), variant


def test_unconstrained_recovery_survives_two_prior_errors():
    dgp = conformity(V01, "misspecified_signs_v2", "dgp_conformity")
    assert dgp >= conformity(V01, "misspecified_signs", "dgp_conformity") - 0.15
    assert dgp > max(conformity(SIGN, "misspecified_signs_v2", "dgp_conformity"),
                     conformity(AUG, "misspecified_signs_v2", "dgp_conformity"))


def test_responsive_conformity_exposes_a_sign_pinned_at_zero():
    """The sign-constrained stage 2 pins a coefficient at its bound: its sign counts for
    DGP conformity but its response is below the threshold, somewhere on the board."""
    gaps = [conformity(SIGN, v, "dgp_conformity") - conformity(SIGN, v, "responsive_dgp_"
                                                                "conformity")
            for v in (*WELL_SPECIFIED, *MISSPECIFIED)]
    assert max(gaps) > 0


def test_on_well_specified_variants_the_constraint_costs_little_risk():
    for variant in WELL_SPECIFIED:
        assert abs(mean(SIGN, variant, "risk_prediction", "auroc")
                   - mean(V01, variant, "risk_prediction", "auroc")) < 0.02, variant
