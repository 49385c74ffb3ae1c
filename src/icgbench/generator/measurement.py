"""The family of measurement models, and one cohort's draw from it.

The omics are noisy readouts of the states, but how strongly each module reads each state
is the cohort's own, as it would be for another assay platform, tissue or lab: the
loadings, the noise, the subjects' spread around them and the age drift of the epigenomic
clocks are drawn per cohort, from the cohort's own ``measurement`` stream, out of the
family below. The family is documented (this module is its definition; ``docs/dgp.md``
prints its tables from here); a realization is in no table. A model learns it from the
train split, whose states are public; an answer built from the family's means (the best a
reader of the code can do without the data) is one of the model-free panel's answers,
whose score is the floor of the normalized scores (:mod:`icgbench.tasks.model_free`).

A cohort's measurement model:

1. **Documented loadings.** Each module reads the states its table names
   (``mechanism.TRANSCRIPTOMIC_LOADINGS``, ``EPIGENOMIC_LOADINGS``), with the listed sign;
   each magnitude is the listed one times a log-uniform draw from ``LOADING_SPREAD``.
2. **Cross loadings.** Every other (module, state) pair is read with probability
   ``CROSS_LOADING_P``, with a magnitude uniform in ``CROSS_LOADING_RANGE`` and a sign + or
   - with equal probability (a module is never a pure readout of its named states).
3. **Noise.** Each module's measurement noise sd, the sd of the subjects' persistent
   offsets and the log-sd of their gains are the variant's values times log-uniform draws
   from ``NOISE_SPREAD``, per module.
4. **Age clocks.** Each epigenomic module drifts with chronological age by a slope per
   decade (from ``mechanism.AGE_CENTER``) uniform in ``AGE_SLOPE_RANGE``.
5. **The non-linear operator** (``nonlinear_obs``) multiplies a module's readout by a
   function of a partner state, drawn uniformly among the states the module's largest
   loading does not read.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from icgbench.contract.vocabulary import EPIGENOMIC_MODULES, STATES, TRANSCRIPTOMIC_MODULES
from icgbench.generator import mechanism as mech
from icgbench.generator.streams import Seed, stream
from icgbench.generator.variants import Variant

#: The log-uniform range a documented loading is multiplied by.
LOADING_SPREAD = (0.4, 2.5)
#: The probability that a module reads a state its table does not name, and the range of
#: such a loading's magnitude (its sign is + or - with equal probability).
CROSS_LOADING_P = 0.2
CROSS_LOADING_RANGE = (0.2, 0.7)
#: The log-uniform range the variant's noise sds are multiplied by, per module.
NOISE_SPREAD = (0.5, 2.0)
#: The range (uniform) of an epigenomic module's drift per decade of age.
AGE_SLOPE_RANGE = (0.0, 0.5)

MODULES = (*TRANSCRIPTOMIC_MODULES, *EPIGENOMIC_MODULES)


@dataclass(frozen=True)
class Measurement:
    """One cohort's measurement model: arrays over MODULES (transcriptomic first)."""

    loadings: np.ndarray  # (modules, states)
    noise_sd: np.ndarray  # (modules,) per-reading noise
    offset_sd: np.ndarray  # (modules,) subjects' persistent offsets
    gain_log_sd: np.ndarray  # (modules,) subjects' persistent gains, log scale
    age_slope: np.ndarray  # (epigenomic modules,) drift per decade of age
    partner: np.ndarray  # (modules,) index of the non-linear operator's partner state

    def transcriptomic(self) -> slice:
        return slice(0, len(TRANSCRIPTOMIC_MODULES))

    def epigenomic(self) -> slice:
        return slice(len(TRANSCRIPTOMIC_MODULES), len(MODULES))


def documented_loadings() -> np.ndarray:
    """The loading table the documentation lists (modules x states), zeros elsewhere."""
    tables = {**mech.TRANSCRIPTOMIC_LOADINGS, **mech.EPIGENOMIC_LOADINGS}
    w = np.zeros((len(MODULES), len(STATES)))
    for i, module in enumerate(MODULES):
        for state, value in tables[module].items():
            w[i, STATES.index(state)] = value
    return w


def _log_uniform(u: np.ndarray, bounds: tuple[float, float]) -> np.ndarray:
    low, high = np.log(bounds[0]), np.log(bounds[1])
    return np.exp(low + (high - low) * u)


def log_uniform_mean(bounds: tuple[float, float]) -> float:
    """E[X] for X log-uniform on ``bounds``: (b - a) / ln(b / a)."""
    a, b = bounds
    return (b - a) / float(np.log(b / a))


def _main_states(loadings: np.ndarray) -> np.ndarray:
    return np.argmax(np.abs(loadings), axis=1)


@lru_cache(maxsize=256)
def cohort_measurement(variant: Variant, seed: Seed) -> Measurement:
    """The measurement model of cohort (variant, seed), from its ``measurement`` stream (a
    fixed number of draws, whatever is chosen)."""
    rng = stream(variant.variant_hash, seed, "cohort", "measurement")
    m, s = len(MODULES), len(STATES)
    documented = documented_loadings()
    spread = _log_uniform(rng.random((m, s)), LOADING_SPREAD)
    cross_present = rng.random((m, s)) < CROSS_LOADING_P
    cross_size = rng.uniform(*CROSS_LOADING_RANGE, size=(m, s))
    cross_sign = np.where(rng.random((m, s)) < 0.5, -1.0, 1.0)
    loadings = np.where(documented != 0, documented * spread,
                        np.where(cross_present, cross_sign * cross_size, 0.0))
    noise = _log_uniform(rng.random((3, m)), NOISE_SPREAD)
    age = rng.uniform(*AGE_SLOPE_RANGE, size=len(EPIGENOMIC_MODULES))
    partner_u = rng.random(m)
    main = _main_states(loadings)
    partner = np.array([[j for j in range(s) if j != main[i]][int(partner_u[i] * (s - 1))]
                        for i in range(m)])
    return Measurement(
        loadings=np.round(loadings, mech.PUBLISHED_DECIMALS),
        noise_sd=variant.observation_noise_sd * noise[0],
        offset_sd=variant.module_offset_sd * noise[1],
        gain_log_sd=variant.module_gain_log_sd * noise[2],
        age_slope=age,
        partner=partner,
    )


def family_mean(variant: Variant) -> Measurement:
    """The family's mean measurement model: what the documentation tells about every
    cohort's (cross loadings average to 0; the partner is not known: -1)."""
    m = len(MODULES)
    noise = log_uniform_mean(NOISE_SPREAD)
    return Measurement(
        loadings=documented_loadings() * log_uniform_mean(LOADING_SPREAD),
        noise_sd=np.full(m, variant.observation_noise_sd * noise),
        offset_sd=np.full(m, variant.module_offset_sd * noise),
        gain_log_sd=np.full(m, variant.module_gain_log_sd * noise),
        age_slope=np.full(len(EPIGENOMIC_MODULES), sum(AGE_SLOPE_RANGE) / 2),
        partner=np.full(m, -1),
    )
