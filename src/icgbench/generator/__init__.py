"""The DGP: variant registry and the vectorised simulator.

Names load on first use (PEP 562), so reading the variant registry (what the CLI's
``--help`` does) does not import numpy, pyarrow or scipy.
"""

from __future__ import annotations

from icgbench._lazy import exports

_EXPORTS = {
    "INTERVENTIONS": "interventions",
    "intervention_names": "interventions",
    "prior_direction": "interventions",
    "Cohort": "simulator",
    "simulate": "simulator",
    "UnknownVariantError": "variants",
    "Variant": "variants",
    "all_variants": "variants",
    "get_variant": "variants",
    "variant_names": "variants",
}

__getattr__, __dir__ = exports(__name__, _EXPORTS)


__all__ = sorted(_EXPORTS)
