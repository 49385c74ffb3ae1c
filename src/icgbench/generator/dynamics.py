"""The monthly qAOP recurrence, vectorised over subjects and over intervention runs.

All runs (the factual one and one per intervention) share the same random numbers and are
simulated together as arrays of shape (runs, subjects). An intervention multiplies a
state's value, as every other state and the hazard see it, by a constant for the whole
follow-up; the state's own recurrence keeps running on its natural value, so an end state
under ``do(x * s)`` is exactly ``s`` times the natural one. A run whose scales are all 1.0
reproduces the factual run bit for bit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icgbench.contract.vocabulary import KCCS, STATES
from icgbench.generator import mechanism as mech
from icgbench.generator.family import Mechanism
from icgbench.generator.population import Population
from icgbench.generator.streams import Seed, stream
from icgbench.generator.variants import Variant

_S = {name: i for i, name in enumerate(STATES)}
_K = {name: i for i, name in enumerate(KCCS)}
#: Which mutational process a parent of mutation_rate is (adduct-driven, ROS-driven,
#: the rest): the signatures attribute the burden by it.
_PROCESS = {"DNA_adducts": 0, "ROS": 1}


@dataclass(frozen=True)
class RiskScale:
    """Standardisation of states inside latent_risk, and the hazard intercept."""

    mean: np.ndarray  # (S,)
    sd: np.ndarray  # (S,)
    intercept: float


@dataclass(frozen=True)
class Trajectories:
    """What one simulation returns.

    ``states`` and ``mutation_parts`` are those of the first run (the factual one) at the
    recorded months; ``hazard_sum`` is, per run, the sum over months of
    exp(latent_risk + frailty): a subject's frailty is a constant log-hazard offset that acts
    on the outcome only, through no state, so no observation reveals it (the part of the
    risk only the truth knows).
    """

    months: tuple[int, ...]
    states: np.ndarray  # (T, S, n)
    latent_risk: np.ndarray | None  # (T, n), None without a RiskScale
    mutation_parts: np.ndarray  # (T, 3, n) cumulative adduct-, ROS- and proliferation-driven
    hazard_sum: np.ndarray | None  # (runs, n)
    frailty: np.ndarray  # (n,) log-hazard offset no observation reveals
    state_hazard: np.ndarray | None = None  # (runs, n) hazard_sum without the frailty


def _coupling(variant: Variant, u: np.ndarray) -> np.ndarray:
    if variant.coupling == "linear":
        return u
    u2 = u * u
    return mech.HILL_MAX * u2 / (mech.HILL_K**2 + u2)


def _kcc_inputs(variant: Variant, pop: Population, mechanism: Mechanism
                ) -> dict[str, np.ndarray]:
    """Dose-independent KCC drive of each exposure-driven state, shape (n,); zero for a
    state the cohort's mechanism gives no KCC input."""
    act = pop.activation
    sex = np.where(pop.female, mech.RECEPTOR_SEX_FACTOR[True], mech.RECEPTOR_SEX_FACTOR[False])
    out = {}
    for state in mech.EXPOSURE_DRIVEN:
        u = np.zeros(pop.n)
        for kcc, w in mechanism.inputs(state).items():
            term = w * act[:, _K[kcc]]
            u = u + (term * sex if kcc == "receptor_mediated" else term)
        out[state] = _coupling(variant, u)
    return out


def simulate_dynamics(
    variant: Variant,
    seed: Seed,
    pop: Population,
    months: int,
    record_months: tuple[int, ...],
    scales: np.ndarray,
    risk_scale: RiskScale | None,
    mechanism: Mechanism,
    block: int = 0,
    clone_centre: float = 0.0,
) -> Trajectories:
    """Run the recurrence for ``months`` months for every run in ``scales`` (runs, S).

    Each state's own update (retention, baseline, host terms, exposure drive) is the
    skeleton's (:mod:`.mechanism`); its parents and their weights are the cohort's
    ``mechanism``'s, and so are the latent_risk coefficients. Clone selection reads its
    parents as deviations from their typical levels: ``clone_centre`` is the sum of each
    parent's weight times its average over the reference population's follow-up
    (:func:`.reference.clone_centre`).
    """
    n, runs = pop.n, scales.shape[0]
    vh = variant.variant_hash

    def rng(purpose: str) -> np.random.Generator:
        return stream(vh, seed, pop.split, purpose, block)

    sigma = mech.DOSE_PULSE_LOG_SD
    pulses = np.exp(sigma * rng("dose_pulses").standard_normal((n, months)) - sigma**2 / 2)
    phase = rng("dose_phase").random(n)
    noise = rng("process_noise").standard_normal((n, months, len(STATES)))
    noise *= np.array([mech.PROCESS_NOISE_SD[s] for s in STATES])
    frailty = variant.frailty_sd * rng("frailty").standard_normal(n)
    confounder = (rng("confounder").standard_normal(n) if mechanism.confounded
                  else np.zeros(n))
    # a confounded state's monthly push, in its risk-raising direction, and the factor's
    # log-hazard term, which acts through no state
    push = {s: step * mech.PRIOR_SIGNS[s] * confounder for s, step, _ in mechanism.confounded}
    hidden = sum((c * confounder for _, _, c in mechanism.confounded), np.zeros(n))
    clone0 = mech.CLONE_INITIAL * np.exp(
        mech.CLONE_INITIAL_LOG_SD * rng("clone_initial").standard_normal(n)
    )

    u = _kcc_inputs(variant, pop, mechanism)
    act = pop.activation
    repair_kcc = act[:, _K[mech.REPAIR_INHIBITION[0]]]
    repair_capacity = pop.trait("repair_capacity")
    repair = repair_capacity * (1.0 - mechanism.route("repair_adducts") * repair_kcc)
    repair_mut = repair_capacity * (1.0 - mechanism.route("repair_mutation") * repair_kcc)
    immune = pop.trait("immune_surveillance") * (
        1.0 - mechanism.route("immune_inhibition") * act[:, _K[mech.IMMUNE_INHIBITION[0]]])
    antiox = pop.trait("antioxidant_capacity")
    base_prolif = pop.trait("baseline_proliferation")
    immortal = act[:, _K[mech.IMMORTALIZATION]]
    immortal_drivers = (mechanism.route("immortal_drivers") * mech.IMMORTAL_DRIVER_RATE
                        * immortal)
    immortal_selection = mechanism.route("immortal_selection") * immortal
    ret = mech.RETENTION
    parents = {s: mechanism.parents(s) for s in STATES}

    # (runs, 1) scale per state; None where no run scales the state, to skip the product
    sc = {
        s: None if np.all(scales[:, i] == 1.0) else scales[:, i : i + 1]
        for i, s in enumerate(STATES)
    }
    ones = np.ones((runs, n))
    x = {s: np.zeros((runs, n)) for s in STATES}  # natural values

    def seen(s: str) -> np.ndarray:
        return x[s] if sc[s] is None else x[s] * sc[s]

    def terms(child: str) -> dict[str, np.ndarray]:
        """Each parent's contribution to ``child`` this month (the adduct -> mutation
        term is scaled by the repair gap)."""
        out = {}
        for parent, w in parents[child].items():
            term = w * seen(parent)
            if child == "mutation_rate" and parent == "DNA_adducts":
                term = term * (mech.MUTATION_REPAIR_CEILING - repair_mut)
            out[parent] = term
        return out

    def inflow(child: str) -> np.ndarray | float:
        return sum(terms(child).values(), 0.0)

    # month 0: the unexposed steady state of each level state given its parents
    x["ROS"] = ones * ((mech.ROS_BASELINE + inflow("ROS")) / (1.0 - ret["ROS"]))
    x["immune_clearance"] = (mech.IMMUNE_GAIN * immune + inflow("immune_clearance")) / (
        1.0 - ret["immune_clearance"]) * ones
    x["inflammation"] = np.maximum(
        (mech.INFLAMMATION_BASELINE + inflow("inflammation")) / (1.0 - ret["inflammation"]),
        0.0) * ones
    x["proliferation"] = np.maximum(
        (mech.PROLIFERATION_BASELINE_GAIN * base_prolif + inflow("proliferation"))
        / (1.0 - ret["proliferation"]), 0.0) * ones
    x["mutation_rate"] = np.maximum(inflow("mutation_rate") / (1.0 - ret["mutation_rate"]),
                                    0.0) * ones
    x["clone_fraction"] = ones * clone0

    record = set(record_months)
    rec_states: list[np.ndarray] = []
    rec_parts: list[np.ndarray] = []
    rec_months: list[int] = []
    parts = np.zeros((3, n))

    def snapshot(t: int) -> None:
        if t in record:
            rec_months.append(t)
            rec_states.append(np.stack([seen(s)[0] for s in STATES]))
            rec_parts.append(parts.copy())

    risk_beta = np.asarray(mechanism.risk_beta, dtype=np.float64)
    if risk_scale is not None:
        beta_std = risk_beta / risk_scale.sd
        offset = float(np.dot(beta_std, risk_scale.mean))
        hazard_sum = np.zeros((runs, n))
    snapshot(0)
    for t in range(1, months + 1):
        e = noise[:, t - 1, :]
        if push:
            e = e.copy()
            for s_, p_ in push.items():
                e[:, _S[s_]] += p_
        season = 1.0 + mech.DOSE_SEASONAL_AMPLITUDE * np.sin(2.0 * np.pi * (t / 12.0 + phase))
        d = pop.dose * season * pulses[:, t - 1]

        a = (ret["DNA_adducts"] - mech.ADDUCT_REPAIR * repair) * x["DNA_adducts"]
        a = a + d * u["DNA_adducts"] + inflow("DNA_adducts")
        x["DNA_adducts"] = np.maximum(a + e[:, _S["DNA_adducts"]], 0.0)

        r = (ret["ROS"] * x["ROS"] + d * u["ROS"] * (mech.ANTIOXIDANT_CEILING - antiox)
             + mech.ROS_BASELINE + inflow("ROS"))
        x["ROS"] = np.maximum(r + e[:, _S["ROS"]], 0.0)

        c = (ret["immune_clearance"] * x["immune_clearance"] + mech.IMMUNE_GAIN * immune
             + inflow("immune_clearance"))
        x["immune_clearance"] = np.maximum(c + e[:, _S["immune_clearance"]], 0.0)

        i = (ret["inflammation"] * x["inflammation"] + mech.INFLAMMATION_BASELINE
             + d * u["inflammation"] + inflow("inflammation"))
        x["inflammation"] = np.maximum(i + e[:, _S["inflammation"]], 0.0)

        g = (x["epigenetic_age"] + mech.EPIGENETIC_DRIFT
             + mech.EPIGENETIC_DOSE_GAIN * d * u["epigenetic_age"] + inflow("epigenetic_age"))
        x["epigenetic_age"] = np.maximum(g + e[:, _S["epigenetic_age"]], 0.0)

        p = (ret["proliferation"] * x["proliferation"]
             + mech.PROLIFERATION_BASELINE_GAIN * base_prolif
             + mech.PROLIFERATION_DOSE_GAIN * d * u["proliferation"] + inflow("proliferation"))
        x["proliferation"] = np.maximum(p + e[:, _S["proliferation"]], 0.0)

        into_mutation = terms("mutation_rate")
        m = ret["mutation_rate"] * x["mutation_rate"] + sum(into_mutation.values(), 0.0)
        x["mutation_rate"] = np.maximum(m + e[:, _S["mutation_rate"]], 0.0)
        for parent, term in into_mutation.items():  # the burden each process leaves
            parts[_PROCESS.get(parent, 2)] += np.maximum(term[0], 0.0)

        dr = x["driver_count_proxy"] + immortal_drivers + inflow("driver_count_proxy")
        x["driver_count_proxy"] = np.maximum(dr + e[:, _S["driver_count_proxy"]], 0.0)

        selection = (inflow("clone_fraction") - clone_centre + immortal_selection
                     + mech.CLONE_SELECTION_BASE + e[:, _S["clone_fraction"]])
        k = x["clone_fraction"]
        k = k + mech.CLONE_GROWTH * k * (1.0 - k) * selection
        x["clone_fraction"] = np.clip(k, *mech.CLONE_BOUNDS)

        if risk_scale is not None:
            lr = sum(beta_std[j] * seen(s) for j, s in enumerate(STATES) if beta_std[j]) - offset
            hazard_sum += np.exp(lr + hidden) if push else np.exp(lr)
        snapshot(t)

    states = np.stack(rec_states)
    latent = None
    if risk_scale is not None:
        latent = np.tensordot(risk_beta / risk_scale.sd, states, axes=([0], [1])) - offset
    return Trajectories(
        months=tuple(rec_months),
        states=states,
        latent_risk=latent,
        mutation_parts=np.stack(rec_parts),
        hazard_sum=hazard_sum * np.exp(frailty) if risk_scale is not None else None,
        frailty=frailty,
        state_hazard=hazard_sum if risk_scale is not None else None,
    )


def event_probability(hazard_sum: np.ndarray, intercept: float) -> np.ndarray:
    """P(event by end of follow-up) = 1 - exp(-exp(intercept) * sum_t exp(latent_risk_t))."""
    return -np.expm1(-np.exp(intercept) * hazard_sum)


#: Gauss-Hermite nodes for integrating the frailty out (exact to far below the published
#: precision for this smooth integrand).
FRAILTY_NODES = 48


def expected_event_probability(state_hazard: np.ndarray, intercept: float,
                               frailty_sd: float) -> np.ndarray:
    """E over the frailty of the event probability, given the states' hazard path.

    ``state_hazard`` is sum_t exp(latent_risk_t) without the frailty; the frailty is
    N(0, frailty_sd^2). This is the best prediction any function of the subject's states can
    make (the frailty acts through no state), so it is the risk a model can reach at most.
    """
    nodes, weights = np.polynomial.hermite.hermgauss(FRAILTY_NODES)
    base = np.exp(intercept) * np.asarray(state_hazard, dtype=np.float64)
    out = np.zeros_like(base)
    for x, w in zip(nodes, weights, strict=True):
        out += w * -np.expm1(-base * np.exp(np.sqrt(2.0) * frailty_sd * x))
    return out / np.sqrt(np.pi)
