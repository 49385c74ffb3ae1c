"""The registry of DGP variants: frozen dataclasses with a stable content hash.

A variant fixes every knob of the data-generating process except the seed and the cohort
size. Its ``variant_hash`` (first 12 hex characters of SHA-256 over the canonical JSON of
all fields) is recorded on every table, submission and leaderboard row, so a number can
always be traced to the exact process that produced its data.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, fields
from typing import Any, Literal

from icgbench.contract.vocabulary import STATES
from icgbench.errors import UnknownNameError

Coupling = Literal["linear", "nonlinear"]
ArchetypeMode = Literal["discrete", "continuous_mixture"]
Heterogeneity = Literal["low", "high"]
Observability = Literal["full", "partial"]
ObservationOperator = Literal["linear", "nonlinear"]


class UnknownVariantError(UnknownNameError):
    """Raised for a variant name that is not registered; the message lists the names."""

    def __init__(self, name: str) -> None:
        super().__init__("variant", name, _REGISTRY)


@dataclass(frozen=True)
class Variant:
    """One named configuration of the simulator.

    Sizes are defaults; ``simulate`` accepts others. Every field enters the hash.
    """

    name: str
    description: str
    coupling: Coupling
    archetype_mode: ArchetypeMode
    mixture_concentration: float
    host_heterogeneity: Heterogeneity
    host_sd_multiplier: float
    target_host_sd_bounds: tuple[float, float]
    target_site_offset_sd: float
    target_site_gain_log_sd: float
    target_site_noise_sd: float
    target_assay_gain_log_sd: float
    target_assay_offset_sd: float
    target_proxy_gain_log_sd: float
    target_proxy_offset_sd: float
    target_lab_noise_sd: float
    target_archetype_mode: ArchetypeMode
    target_mixture_concentration: float
    observability: Observability
    masking_rate: float
    masked_modalities: tuple[str, ...]
    visit_dropout_rate: float
    observation_operator: ObservationOperator
    observation_noise_sd: float
    module_offset_sd: float
    module_gain_log_sd: float
    flip_candidates: tuple[str, ...]
    n_flips: int
    confound_candidates: tuple[str, ...]
    n_confounded: int
    frailty_sd: float
    target_prevalence: float
    months: int
    visit_months: tuple[int, ...]
    n_train: int
    n_test: int
    n_target: int

    def canonical_json(self) -> str:
        """The variant's fields as canonical JSON (sorted keys, no whitespace). A field added
        after release 7.0 (:data:`ADDED_LATER`) enters only where it differs from its
        neutral value, so every earlier variant keeps its hash, its streams and its bytes."""
        fields_ = {k: v for k, v in asdict(self).items()
                   if k not in ADDED_LATER or v != ADDED_LATER[k]}
        return json.dumps(fields_, sort_keys=True, separators=(",", ":"))

    @property
    def variant_hash(self) -> str:
        """First 12 hex characters of SHA-256 over :meth:`canonical_json`."""
        return hashlib.sha256(self.canonical_json().encode("utf-8")).hexdigest()[:12]

    def as_dict(self) -> dict[str, Any]:
        """All fields plus the hash, JSON-ready (tuples become lists)."""
        out = json.loads(json.dumps(asdict(self)))
        out["variant_hash"] = self.variant_hash
        return {k: out[k] for k in [f.name for f in fields(self)] + ["variant_hash"]}


#: Fields added after release 7.0, with their neutral value (the value every variant had
#: before the field existed).
ADDED_LATER: dict[str, Any] = {"confound_candidates": (), "n_confounded": 0}

_BASE = dict(
    coupling="linear",
    archetype_mode="discrete",
    mixture_concentration=0.35,
    host_heterogeneity="low",
    host_sd_multiplier=1.0,
    target_host_sd_bounds=(0.5, 8.0),
    target_archetype_mode="continuous_mixture",
    target_mixture_concentration=0.5,
    target_site_offset_sd=1.0,
    target_site_gain_log_sd=0.5,
    target_site_noise_sd=2.0,
    target_assay_gain_log_sd=0.6,
    target_assay_offset_sd=0.2,
    target_proxy_gain_log_sd=0.5,
    target_proxy_offset_sd=0.15,
    target_lab_noise_sd=0.2,
    observability="full",
    masking_rate=0.0,
    masked_modalities=(),
    visit_dropout_rate=0.02,
    observation_operator="linear",
    observation_noise_sd=0.90,
    module_offset_sd=0.40,
    module_gain_log_sd=0.10,
    flip_candidates=(),
    n_flips=0,
    confound_candidates=(),
    n_confounded=0,
    frailty_sd=0.5,
    target_prevalence=0.30,
    months=24,
    visit_months=(0, 6, 12, 18, 24),
    n_train=1200,
    n_test=400,
    n_target=400,
)

_NONLINEAR_MIXHOST = dict(
    coupling="nonlinear",
    archetype_mode="continuous_mixture",
    host_heterogeneity="high",
    host_sd_multiplier=2.5,
    module_offset_sd=0.80,
    module_gain_log_sd=0.40,
)


#: The states whose outcome sign a misspecified variant may flip (each cohort draws which),
#: and the states a hidden confounder may act on (the same four: the mirror design).
FLIP_CANDIDATES = ("DNA_adducts", "immune_clearance", "epigenetic_age", "proliferation")


def _variant(name: str, description: str, **overrides: Any) -> Variant:
    return Variant(name=name, description=description, **{**_BASE, **overrides})


_REGISTRY: dict[str, Variant] = {
    v.name: v
    for v in (
        _variant(
            "linear_lowhet",
            "Linear KCC->state coupling, low host heterogeneity, discrete archetypes, "
            "full multi-omics observability. The easy baseline.",
        ),
        _variant(
            "nonlinear_mixhost",
            "Non-linear coupling, continuous KCC mixtures, high host heterogeneity. "
            "Stresses latent recovery.",
            **_NONLINEAR_MIXHOST,
        ),
        _variant(
            "partial_observability",
            "Non-linear coupling with random per-subject masking of each omics modality "
            "(transcriptomic, epigenomic, mutational; 60% each, independently). Stresses "
            "robustness to missing modalities.",
            **_NONLINEAR_MIXHOST,
            observability="partial",
            masking_rate=0.60,
            masked_modalities=("transcriptomic", "epigenomic", "mutational"),
        ),
        _variant(
            "nonlinear_obs",
            "Linear KCC->state coupling with a non-linear, multiplicatively interacting "
            "observation operator. Stresses stage-1 latent recovery while keeping stage 2 "
            "simple.",
            observation_operator="nonlinear",
        ),
        _variant(
            "misspecified_signs",
            "linear_lowhet base with one outcome sign in the latent_risk DGP flipped relative "
            "to the structural prior; which one each cohort draws from the candidates (a "
            "truth table only). Falsification cohort for sign-constrained models.",
            flip_candidates=FLIP_CANDIDATES,
            n_flips=1,
        ),
        _variant(
            "misspecified_signs_v2",
            "Two simultaneous sign flips, drawn per cohort from the candidates. Stress test "
            "for whether unconstrained recovery survives multiple prior errors.",
            flip_candidates=FLIP_CANDIDATES,
            n_flips=2,
        ),
        _variant(
            "hidden_confounding",
            "linear_lowhet base where the prior is right and the data mislead: an unobserved "
            "host factor, drawn per subject and never published, raises one bottleneck "
            "state and lowers the hazard through no state, strongly enough that the state's "
            "association with the event has the opposite sign to its causal effect; which "
            "state and how strongly each cohort draws from the candidates (a truth table "
            "only). The mirror of misspecified_signs: models that learn effects from "
            "associations alone get that intervention's sign wrong.",
            confound_candidates=FLIP_CANDIDATES,
            n_confounded=1,
        ),
    )
}


def variant_names() -> list[str]:
    """Registered variant names, in registry order."""
    return list(_REGISTRY)


def get_variant(name: str) -> Variant:
    """The registered variant called ``name``; unknown names raise UnknownVariantError."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise UnknownVariantError(name) from None


def all_variants() -> list[Variant]:
    """Every registered variant, in registry order."""
    return list(_REGISTRY.values())


def validate_variant(variant: Variant) -> None:
    """Raise ValueError when a variant's fields are inconsistent."""
    unknown = [s for s in variant.flip_candidates if s not in STATES]
    if unknown:
        raise ValueError(f"variant {variant.name!r}: flip_candidates names unknown states "
                         f"{unknown}")
    if not 0 <= variant.n_flips <= len(variant.flip_candidates):
        raise ValueError(f"variant {variant.name!r}: n_flips must be between 0 and the number "
                         "of flip candidates")
    unknown = [s for s in variant.confound_candidates if s not in STATES]
    if unknown or not 0 <= variant.n_confounded <= len(variant.confound_candidates):
        raise ValueError(f"variant {variant.name!r}: confound_candidates must name states and "
                         "n_confounded be between 0 and their number")
    if not 0.0 <= variant.masking_rate < 1.0:
        raise ValueError(f"variant {variant.name!r}: masking_rate must be in [0, 1)")
    if not 0.0 < variant.target_prevalence < 1.0:
        raise ValueError(f"variant {variant.name!r}: target_prevalence must be in (0, 1)")
    if list(variant.visit_months) != sorted(set(variant.visit_months)):
        raise ValueError(f"variant {variant.name!r}: visit_months must increase strictly")


for _v in _REGISTRY.values():
    validate_variant(_v)
