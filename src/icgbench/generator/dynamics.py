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

from icgbench.generator import mechanism as mech
from icgbench.generator.population import Population
from icgbench.generator.streams import Seed, stream
from icgbench.generator.variants import Variant
from icgbench.vocabulary import KCCS, STATES

_S = {name: i for i, name in enumerate(STATES)}
_K = {name: i for i, name in enumerate(KCCS)}


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


def _coupling(variant: Variant, u: np.ndarray) -> np.ndarray:
    if variant.coupling == "linear":
        return u
    u2 = u * u
    return mech.HILL_MAX * u2 / (mech.HILL_K**2 + u2)


def _kcc_inputs(variant: Variant, pop: Population) -> dict[str, np.ndarray]:
    """Dose-independent KCC drive of each state that has a KCC input, shape (n,)."""
    act = pop.activation
    out = {}
    for state, weights in mech.KCC_INPUT.items():
        u = np.zeros(pop.n)
        for kcc, w in weights.items():
            term = w * act[:, _K[kcc]]
            if kcc == "receptor_mediated":
                term = term * np.where(
                    pop.female, mech.RECEPTOR_SEX_FACTOR[True], mech.RECEPTOR_SEX_FACTOR[False]
                )
            u = u + term
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
    risk_beta: np.ndarray,
    block: int = 0,
) -> Trajectories:
    """Run the recurrence for ``months`` months for every run in ``scales`` (runs, S)."""
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
    clone0 = mech.CLONE_INITIAL * np.exp(
        mech.CLONE_INITIAL_LOG_SD * rng("clone_initial").standard_normal(n)
    )

    u = _kcc_inputs(variant, pop)
    act = pop.activation
    repair_kcc, repair_w = mech.REPAIR_INHIBITION
    immune_kcc, immune_w = mech.IMMUNE_INHIBITION
    repair = pop.trait("repair_capacity") * (1.0 - repair_w * act[:, _K[repair_kcc]])
    immune = pop.trait("immune_surveillance") * (1.0 - immune_w * act[:, _K[immune_kcc]])
    antiox = pop.trait("antioxidant_capacity")
    base_prolif = pop.trait("baseline_proliferation")
    immortal = act[:, _K[mech.IMMORTALIZATION]]
    ret = mech.RETENTION
    par = mech.STATE_PARENTS

    # (runs, 1) scale per state; None where no run scales the state, to skip the product
    sc = {
        s: None if np.all(scales[:, i] == 1.0) else scales[:, i : i + 1]
        for i, s in enumerate(STATES)
    }
    ones = np.ones((runs, n))
    x = {s: np.zeros((runs, n)) for s in STATES}  # natural values
    x["ROS"] = ones * (mech.ROS_BASELINE / (1.0 - ret["ROS"]))
    x["immune_clearance"] = ones * immune

    def seen(s: str) -> np.ndarray:
        return x[s] if sc[s] is None else x[s] * sc[s]

    inflam0 = (
        par["inflammation"]["ROS"] * seen("ROS")
        + par["inflammation"]["immune_clearance"] * seen("immune_clearance")
        + mech.INFLAMMATION_BASELINE
    ) / (1.0 - ret["inflammation"])
    x["inflammation"] = np.maximum(inflam0, 0.0)
    x["proliferation"] = (
        mech.PROLIFERATION_BASELINE_GAIN * base_prolif
        + par["proliferation"]["inflammation"] * seen("inflammation")
    ) / (1.0 - ret["proliferation"])
    x["mutation_rate"] = (
        par["mutation_rate"]["ROS"] * seen("ROS")
        + par["mutation_rate"]["proliferation"] * seen("proliferation")
    ) / (1.0 - ret["mutation_rate"])
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

    if risk_scale is not None:
        beta_std = risk_beta / risk_scale.sd
        offset = float(np.dot(beta_std, risk_scale.mean))
        hazard_sum = np.zeros((runs, n))
    snapshot(0)
    for t in range(1, months + 1):
        e = noise[:, t - 1, :]
        season = 1.0 + mech.DOSE_SEASONAL_AMPLITUDE * np.sin(2.0 * np.pi * (t / 12.0 + phase))
        d = pop.dose * season * pulses[:, t - 1]

        a = x["DNA_adducts"]
        a = (ret["DNA_adducts"] - mech.ADDUCT_REPAIR * repair) * a + d * u["DNA_adducts"]
        x["DNA_adducts"] = np.maximum(a + e[:, _S["DNA_adducts"]], 0.0)

        r = ret["ROS"] * x["ROS"] + d * u["ROS"] * (mech.ANTIOXIDANT_CEILING - antiox)
        x["ROS"] = np.maximum(r + mech.ROS_BASELINE + e[:, _S["ROS"]], 0.0)

        c = ret["immune_clearance"] * x["immune_clearance"] + mech.IMMUNE_GAIN * immune
        x["immune_clearance"] = np.maximum(c + e[:, _S["immune_clearance"]], 0.0)

        i = (
            ret["inflammation"] * x["inflammation"]
            + par["inflammation"]["ROS"] * seen("ROS")
            + par["inflammation"]["immune_clearance"] * seen("immune_clearance")
            + mech.INFLAMMATION_BASELINE
            + d * u["inflammation"]
        )
        x["inflammation"] = np.maximum(i + e[:, _S["inflammation"]], 0.0)

        g = (
            x["epigenetic_age"]
            + mech.EPIGENETIC_DRIFT
            + mech.EPIGENETIC_DOSE_GAIN * d * u["epigenetic_age"]
            + par["epigenetic_age"]["ROS"] * seen("ROS")
        )
        x["epigenetic_age"] = np.maximum(g + e[:, _S["epigenetic_age"]], 0.0)

        p = (
            ret["proliferation"] * x["proliferation"]
            + mech.PROLIFERATION_BASELINE_GAIN * base_prolif
            + par["proliferation"]["inflammation"] * seen("inflammation")
            + par["proliferation"]["epigenetic_age"] * seen("epigenetic_age")
            + mech.PROLIFERATION_DOSE_GAIN * d * u["proliferation"]
        )
        x["proliferation"] = np.maximum(p + e[:, _S["proliferation"]], 0.0)

        from_adducts = (
            par["mutation_rate"]["DNA_adducts"]
            * seen("DNA_adducts")
            * (mech.MUTATION_REPAIR_CEILING - repair)
        )
        from_ros = par["mutation_rate"]["ROS"] * seen("ROS")
        from_prolif = par["mutation_rate"]["proliferation"] * seen("proliferation")
        m = ret["mutation_rate"] * x["mutation_rate"] + from_adducts + from_ros + from_prolif
        x["mutation_rate"] = np.maximum(m + e[:, _S["mutation_rate"]], 0.0)
        parts[0] += from_adducts[0]
        parts[1] += from_ros[0]
        parts[2] += from_prolif[0]

        dr = (
            x["driver_count_proxy"]
            + par["driver_count_proxy"]["mutation_rate"]
            * seen("mutation_rate")
            * (1.0 + mech.IMMORTALIZATION_DRIVER_GAIN * immortal)
            + par["driver_count_proxy"]["proliferation"] * seen("proliferation")
        )
        x["driver_count_proxy"] = np.maximum(dr + e[:, _S["driver_count_proxy"]], 0.0)

        cp = par["clone_fraction"]
        selection = (
            cp["proliferation"] * seen("proliferation")
            + cp["driver_count_proxy"] * seen("driver_count_proxy")
            + cp["inflammation"] * seen("inflammation")
            + cp["immune_clearance"] * seen("immune_clearance")
            + mech.IMMORTALIZATION_SELECTION * immortal
            + mech.CLONE_SELECTION_OFFSET
            + e[:, _S["clone_fraction"]]
        )
        k = x["clone_fraction"]
        k = k + mech.CLONE_GROWTH * k * (1.0 - k) * selection
        x["clone_fraction"] = np.clip(k, *mech.CLONE_BOUNDS)

        if risk_scale is not None:
            lr = sum(beta_std[j] * seen(s) for j, s in enumerate(STATES)) - offset
            hazard_sum += np.exp(lr)
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
    )


def event_probability(hazard_sum: np.ndarray, intercept: float) -> np.ndarray:
    """P(event by end of follow-up) = 1 - exp(-exp(intercept) * sum_t exp(latent_risk_t))."""
    return -np.expm1(-np.exp(intercept) * hazard_sum)
