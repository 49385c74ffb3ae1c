"""The DGP: variant registry and the vectorised simulator."""

from icgbench.generator.interventions import INTERVENTIONS, intervention_names, prior_direction
from icgbench.generator.simulate import Cohort, simulate
from icgbench.generator.variants import (
    UnknownVariantError,
    Variant,
    all_variants,
    get_variant,
    variant_names,
)

__all__ = [
    "INTERVENTIONS",
    "Cohort",
    "UnknownVariantError",
    "Variant",
    "all_variants",
    "get_variant",
    "intervention_names",
    "prior_direction",
    "simulate",
    "variant_names",
]
