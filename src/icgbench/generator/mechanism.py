"""Every coefficient of the DGP, in one place: the qAOP skeleton and its functional forms.

The causal graph of a cohort is drawn around the skeleton below (:mod:`.family`); the
dynamics (:mod:`.dynamics`) read these constants and the cohort's drawn mechanism and
nothing else, and the graph published as ground truth is the drawn mechanism's, so it is
the structure the simulator actually ran. A test checks this empirically: perturbing a
node changes exactly its descendants.
"""

from __future__ import annotations

import numpy as np

from icgbench.contract.vocabulary import ARCHETYPES, KCCS, OUTCOME_NODE, STATES, kcc_assay_column

# --- exposures --------------------------------------------------------------------------

#: KCC profile of each archetype (rows: ARCHETYPES, columns: KCCS), values in [0, 1].
ARCHETYPE_PROFILES = np.array(
    [
        [0.03, 0.03, 0.03, 0.03, 0.03, 0.03, 0.03, 0.03, 0.03, 0.03],  # inert_control
        [0.85, 0.75, 0.30, 0.25, 0.45, 0.40, 0.10, 0.15, 0.10, 0.25],  # pah_tobacco_like
        [0.90, 0.85, 0.35, 0.20, 0.35, 0.30, 0.10, 0.05, 0.10, 0.20],  # aflatoxin_like
        [0.60, 0.90, 0.55, 0.15, 0.20, 0.25, 0.05, 0.05, 0.10, 0.15],  # aristolochic_like
        [0.35, 0.25, 0.15, 0.25, 0.90, 0.60, 0.10, 0.10, 0.05, 0.30],  # cyp2e1_ros_like
        [0.15, 0.30, 0.60, 0.85, 0.55, 0.30, 0.15, 0.10, 0.20, 0.20],  # metal_epigenetic_like
        [0.05, 0.05, 0.05, 0.35, 0.15, 0.20, 0.05, 0.90, 0.30, 0.75],  # endocrine_receptor_like
        [0.05, 0.10, 0.10, 0.10, 0.20, 0.45, 0.90, 0.10, 0.25, 0.30],  # immune_suppression_like
    ]
)
assert ARCHETYPE_PROFILES.shape == (len(ARCHETYPES), len(KCCS))

#: Sampling probability of each archetype in the discrete mode.
ARCHETYPE_PRIOR = np.array([0.2] + [0.8 / 7] * 7)

DOSE_LOG_SD = 0.5
ASSAY_NOISE_SD = 0.08
#: Subject-level spread of true KCC activation around the exposure's profile (x host sd).
ACTIVATION_LOG_SD = 0.12
DOSE_SEASONAL_AMPLITUDE = 0.25
DOSE_PULSE_LOG_SD = 0.3

# --- host susceptibility ------------------------------------------------------------------

#: (mean, sd at multiplier 1, min, max) per trait; detox is log-normal around 1 with these
#: on the log scale.
HOST = {
    "repair_capacity": (0.80, 0.08, 0.20, 1.40),
    "antioxidant_capacity": (0.80, 0.08, 0.20, 1.40),
    "immune_surveillance": (0.80, 0.08, 0.20, 1.40),
    "baseline_proliferation": (0.30, 0.05, 0.05, 0.80),
    "detox_balance": (0.00, 0.10, np.log(0.4), np.log(2.5)),
}
PROXY_NOISE_SD = 0.06
AGE_RANGE = (35.0, 70.0)

# --- qAOP dynamics --------------------------------------------------------------------------

#: The skeleton's KCC -> state input weights; the state's input is dose x f(sum of weight x
#: KCC).
KCC_INPUT = {
    "DNA_adducts": {"electrophilic_or_metabolically_activated": 0.6, "genotoxic": 0.6},
    "ROS": {"oxidative_stress": 0.8, "electrophilic_or_metabolically_activated": 0.3},
    "inflammation": {"chronic_inflammation": 0.8},
    "epigenetic_age": {"epigenetic_alteration": 0.8},
    "proliferation": {"receptor_mediated": 0.6, "proliferation_death_nutrient_supply": 0.6},
}
#: The states with an exposure drive (dose x f(KCCs)); a KCC may act on any of them.
EXPOSURE_DRIVEN = ("DNA_adducts", "ROS", "inflammation", "epigenetic_age", "proliferation")
assert set(KCC_INPUT) == set(EXPOSURE_DRIVEN)
#: KCCs that act through host capacity rather than as a dose input.
REPAIR_INHIBITION = ("DNA_repair_or_genomic_instability", 0.5)  # repair x (1 - w k)
IMMUNE_INHIBITION = ("immunosuppression", 0.6)  # immune x (1 - w k)
IMMORTALIZATION = "immortalization"
IMMORTALIZATION_DRIVER_GAIN = 1.0  # drivers accrue w x IMMORTAL_DRIVER_RATE x k a month
IMMORTAL_DRIVER_RATE = 0.05
IMMORTALIZATION_SELECTION = 0.4  # clone selection + w k

#: Non-linear coupling: f(u) = HILL_MAX u^2 / (HILL_K^2 + u^2) instead of f(u) = u.
HILL_MAX = 1.6
HILL_K = 0.6

#: The skeleton's contemporaneous state -> state couplings (child: {parent: weight}): the
#: AOP edges. A child sees its parents' values of the same month.
STATE_PARENTS: dict[str, dict[str, float]] = {
    "DNA_adducts": {},
    "ROS": {},
    "immune_clearance": {},
    "inflammation": {"ROS": 0.30, "immune_clearance": -0.15},
    "epigenetic_age": {"ROS": 0.02},
    "proliferation": {"inflammation": 0.14, "epigenetic_age": 0.05},
    "mutation_rate": {"DNA_adducts": 0.25, "ROS": 0.15, "proliferation": 0.20},
    "driver_count_proxy": {"mutation_rate": 0.05, "proliferation": 0.01},
    "clone_fraction": {
        "proliferation": 0.8,
        "driver_count_proxy": 0.6,
        "inflammation": 0.3,
        "immune_clearance": -0.9,
    },
}
assert tuple(STATE_PARENTS) == STATES

#: Month-to-month retention of each state's own value (1.0 = accumulates).
RETENTION = {
    "DNA_adducts": 0.85,  # minus ADDUCT_REPAIR x effective repair capacity
    "ROS": 0.55,
    "immune_clearance": 0.80,
    "inflammation": 0.65,
    "epigenetic_age": 1.0,
    "proliferation": 0.60,
    "mutation_rate": 0.50,
    "driver_count_proxy": 1.0,
    "clone_fraction": 1.0,
}
ADDUCT_REPAIR = 0.35
ROS_BASELINE = 0.05
ANTIOXIDANT_CEILING = 1.6  # ROS input x (ceiling - antioxidant capacity)
INFLAMMATION_BASELINE = 0.12
IMMUNE_GAIN = 0.20  # immune_clearance relaxes towards effective immune surveillance
EPIGENETIC_DRIFT = 0.01
EPIGENETIC_DOSE_GAIN = 0.05
PROLIFERATION_BASELINE_GAIN = 0.40
PROLIFERATION_DOSE_GAIN = 0.20
RECEPTOR_SEX_FACTOR = {True: 1.2, False: 0.8}  # receptor-mediated input, female vs male
MUTATION_REPAIR_CEILING = 1.5  # adduct -> mutation x (ceiling - repair)
#: Clone selection when its parents are at their typical levels (as in the skeleton, about
#: 0.65 a month): selection reads its parents as deviations from their averages over the
#: reference population's follow-up, so a cohort whose clone has other parents than the
#: skeleton's still grows at a typical rate instead of dying out or taking over.
CLONE_SELECTION_BASE = 0.65
CLONE_INITIAL = 0.02
CLONE_INITIAL_LOG_SD = 0.3
CLONE_GROWTH = 0.25
CLONE_BOUNDS = (1e-4, 0.999)

#: Monthly process-noise sd per state (additive, on the state's own scale). Release 5.0
#: raised them 2.5-fold: a state then departs from what its exposure and host predict by
#: more than the omics' measurement error, so the omics carry the risk the exposures do not
#: (before, models reached the reachable ceiling's risk AUROC from exposures alone).
PROCESS_NOISE_SD = {
    "DNA_adducts": 0.30,
    "ROS": 0.25,
    "immune_clearance": 0.10,
    "inflammation": 0.25,
    "epigenetic_age": 0.05,
    "proliferation": 0.15,
    "mutation_rate": 0.25,
    "driver_count_proxy": 0.025,
    "clone_fraction": 0.375,  # enters the selection term
}

# --- outcome ----------------------------------------------------------------------------------

#: The structural prior: expected sign of each state's effect on risk.
PRIOR_SIGNS = {
    "DNA_adducts": +1,
    "ROS": +1,
    "immune_clearance": -1,
    "inflammation": +1,
    "epigenetic_age": +1,
    "proliferation": +1,
    "mutation_rate": +1,
    "driver_count_proxy": +1,
    "clone_fraction": +1,
}
#: The sd of latent_risk at the end of follow-up on the reference population: a cohort's
#: drawn outcome weights are rescaled to it (:func:`.reference.cohort_mechanism`).
LATENT_RISK_SD = 2.0
#: The prior's nominal |coefficient| of each standardised state in latent_risk (a cohort
#: draws its own around it, see :mod:`.family`).
PRIOR_WEIGHTS = {
    "DNA_adducts": 0.20,
    "ROS": 0.10,
    "immune_clearance": 0.45,
    "inflammation": 0.15,
    "epigenetic_age": 0.45,
    "proliferation": 0.20,
    "mutation_rate": 0.20,
    "driver_count_proxy": 0.25,
    "clone_fraction": 0.35,
}

def graph_nodes() -> list[tuple[str, str]]:
    """The public node list: (node, kind)."""
    return (
        [(kcc_assay_column(k), "kcc_assay") for k in KCCS]
        + [(s, "state") for s in STATES]
        + [(OUTCOME_NODE, "outcome")]
    )

# --- observation operator ------------------------------------------------------------------

#: Loadings of each omics module on the standardised states (module: {state: loading}).
TRANSCRIPTOMIC_LOADINGS: dict[str, dict[str, float]] = {
    "DNA_adduct_response": {"DNA_adducts": 1.0},
    "p53_checkpoint": {"DNA_adducts": 0.6, "mutation_rate": 0.5},
    "base_excision_repair": {"DNA_adducts": 0.5, "ROS": 0.4},
    "nucleotide_excision_repair": {"DNA_adducts": 0.8},
    "xenobiotic_metabolism_CYP": {"DNA_adducts": 0.5, "ROS": 0.3},
    "oxidative_stress_response": {"ROS": 1.0},
    "mitochondrial_dysfunction": {"ROS": 0.7, "inflammation": 0.3},
    "inflammatory_cytokines": {"inflammation": 1.0},
    "NFkB_activation": {"inflammation": 0.7, "ROS": 0.3},
    "cell_cycle_E2F": {"proliferation": 1.0},
    "replicative_DNA_synthesis": {"proliferation": 0.7, "mutation_rate": 0.3},
    "apoptosis_escape": {"clone_fraction": 0.7, "driver_count_proxy": 0.4},
    "ECM_fibrosis": {"inflammation": 0.6, "clone_fraction": 0.3},
    "angiogenesis_nutrient_supply": {"proliferation": 0.5, "clone_fraction": 0.5},
    "immune_evasion": {"immune_clearance": -0.9, "clone_fraction": 0.3},
    "nuclear_receptor_program": {"proliferation": 0.6, "epigenetic_age": 0.2},
    "stemness_PRC2": {"epigenetic_age": 0.6, "clone_fraction": 0.4},
    "senescence_SASP": {"inflammation": 0.5, "epigenetic_age": 0.4},
}
EPIGENOMIC_LOADINGS: dict[str, dict[str, float]] = {
    "epigenetic_age_acceleration": {"epigenetic_age": 1.0},
    "PRC2_mitotic_clock": {"epigenetic_age": 0.6, "proliferation": 0.4},
    "global_hypomethylation": {"epigenetic_age": 0.7, "ROS": 0.2},
    "tumor_suppressor_hypermethylation": {"epigenetic_age": 0.6, "clone_fraction": 0.3},
    "enhancer_reprogramming": {"epigenetic_age": 0.5, "inflammation": 0.3},
    "histone_activation_loss": {"epigenetic_age": 0.6, "immune_clearance": -0.2},
    "histone_repression_gain": {"epigenetic_age": 0.5, "driver_count_proxy": 0.3},
    "chromatin_accessibility_shift": {"epigenetic_age": 0.4, "inflammation": 0.4},
}
#: Epigenomic clock modules also drift with chronological age (per decade from 52.5 years).
AGE_CLOCK_MODULES = {"epigenetic_age_acceleration": 0.3, "PRC2_mitotic_clock": 0.15}
AGE_CENTER = 52.5
#: Non-linear operator: y = NL_GAIN tanh(NL_SLOPE lin) exp(NL_INTERACTION tanh(z_partner)), where
#: the partner is the state NL_PARTNER_OFFSET places after the module's main state.
NL_GAIN = 1.5
NL_SLOPE = 0.7
NL_INTERACTION = 0.70
NL_PARTNER_OFFSET = 4

#: Which adduct-driven signature each archetype leaves (SBS4, SBS24, SBS22 shares).
ADDUCT_SIGNATURE_SHARES = np.array(
    [
        [1 / 3, 1 / 3, 1 / 3],  # inert_control
        [0.80, 0.10, 0.10],  # pah_tobacco_like
        [0.10, 0.80, 0.10],  # aflatoxin_like
        [0.10, 0.10, 0.80],  # aristolochic_like
        [1 / 3, 1 / 3, 1 / 3],
        [1 / 3, 1 / 3, 1 / 3],
        [1 / 3, 1 / 3, 1 / 3],
        [1 / 3, 1 / 3, 1 / 3],
    ]
)
SIGNATURE_SCALE = 20.0  # activity = log1p(SIGNATURE_SCALE x attributed burden) + noise
SIGNATURE_NOISE_SD = 0.30
AGING_PER_DECADE_YEAR = 0.02  # aging burden per (decade of age x year of follow-up)
MUTATION_COUNT_BASE = 5.0
MUTATION_COUNT_PER_BURDEN = 40.0
OBSERVATION_DECIMALS = 3  # omics, assay readouts and proxies
PUBLISHED_DECIMALS = 6  # every other published number (states, risks, doses, weights)
