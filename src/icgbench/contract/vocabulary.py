"""The benchmark's names: KCCs, archetypes, host traits, qAOP states, omics modules.

These tuples fix the order of every vector the generator builds and of every column the
release publishes. The names follow ICg-CaST (``kazilab/ICg-CaST``) so its users feel at
home. Column prefixes use a double underscore (``tx__p53_checkpoint``) so a name can be
split back into (kind, name) without ambiguity.
"""

from __future__ import annotations

KCCS: tuple[str, ...] = (
    "electrophilic_or_metabolically_activated",
    "genotoxic",
    "DNA_repair_or_genomic_instability",
    "epigenetic_alteration",
    "oxidative_stress",
    "chronic_inflammation",
    "immunosuppression",
    "receptor_mediated",
    "immortalization",
    "proliferation_death_nutrient_supply",
)

ARCHETYPES: tuple[str, ...] = (
    "inert_control",
    "pah_tobacco_like",
    "aflatoxin_like",
    "aristolochic_like",
    "cyp2e1_ros_like",
    "metal_epigenetic_like",
    "endocrine_receptor_like",
    "immune_suppression_like",
)

HOST_TRAITS: tuple[str, ...] = (
    "repair_capacity",
    "antioxidant_capacity",
    "immune_surveillance",
    "baseline_proliferation",
    "detox_balance",
)

#: The host's frailty: a log-hazard offset that acts on the outcome through no state and has
#: no proxy (published with the host latents, a truth table).
FRAILTY = "frailty"

#: Host traits that have an observed noisy proxy (a genotype score or a baseline lab).
PROXIED_TRAITS: tuple[str, ...] = (
    "repair_capacity",
    "antioxidant_capacity",
    "immune_surveillance",
)

#: The nine bottleneck states, in the AOP's causal (topological) order within a month.
STATES: tuple[str, ...] = (
    "DNA_adducts",
    "ROS",
    "immune_clearance",
    "inflammation",
    "epigenetic_age",
    "proliferation",
    "mutation_rate",
    "driver_count_proxy",
    "clone_fraction",
)

#: The derived state the hazard is computed from; published beside the nine states.
RISK_STATE = "latent_risk"

TRANSCRIPTOMIC_MODULES: tuple[str, ...] = (
    "DNA_adduct_response",
    "p53_checkpoint",
    "base_excision_repair",
    "nucleotide_excision_repair",
    "xenobiotic_metabolism_CYP",
    "oxidative_stress_response",
    "mitochondrial_dysfunction",
    "inflammatory_cytokines",
    "NFkB_activation",
    "cell_cycle_E2F",
    "replicative_DNA_synthesis",
    "apoptosis_escape",
    "ECM_fibrosis",
    "angiogenesis_nutrient_supply",
    "immune_evasion",
    "nuclear_receptor_program",
    "stemness_PRC2",
    "senescence_SASP",
)

EPIGENOMIC_MODULES: tuple[str, ...] = (
    "epigenetic_age_acceleration",
    "PRC2_mitotic_clock",
    "global_hypomethylation",
    "tumor_suppressor_hypermethylation",
    "enhancer_reprogramming",
    "histone_activation_loss",
    "histone_repression_gain",
    "chromatin_accessibility_shift",
)

SIGNATURES: tuple[str, ...] = (
    "aging",
    "SBS4_like",
    "SBS24_like",
    "SBS22_like",
    "oxidative_like",
)

#: Observation modalities; a mask switches a whole modality off for a (subject, visit).
MODALITIES: tuple[str, ...] = ("transcriptomic", "epigenomic", "mutational")

SPLITS: tuple[str, ...] = ("train", "test", "target_test")
SPLIT_DOMAIN: dict[str, str] = {"train": "source", "test": "source", "target_test": "target"}
SPLIT_ID_PREFIX: dict[str, str] = {"train": "TR", "test": "TE", "target_test": "TG"}

OUTCOME_NODE = "event"



def kcc_assay_column(kcc: str) -> str:
    """Column of ``subjects`` holding the screening-assay readout of one KCC."""
    return f"kcc_assay__{kcc}"


def mixture_column(archetype: str) -> str:
    """Column of ``subjects`` holding one archetype's weight in the exposure mixture."""
    return f"mix__{archetype}"


def proxy_column(trait: str) -> str:
    """Column of ``subjects`` holding the observed noisy proxy of one host trait."""
    return f"proxy__{trait}"


def feature_columns() -> dict[str, tuple[str, ...]]:
    """Observation feature columns per modality, in table order."""
    return {
        "transcriptomic": tuple(f"tx__{m}" for m in TRANSCRIPTOMIC_MODULES),
        "epigenomic": tuple(f"epi__{m}" for m in EPIGENOMIC_MODULES),
        "mutational": (*(f"sig__{s}" for s in SIGNATURES), "mut_total_count"),
    }
