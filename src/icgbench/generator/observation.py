"""The observation operator: omics measured at visits as noisy functions of the states.

Transcriptomic and epigenomic modules load on the standardised states, linearly or (for
``nonlinear_obs``) through a saturating, multiplicatively interacting map; the loadings,
noise and age drift are the cohort's own draw (:mod:`.measurement`). Mutational
signature activities and the total mutation count read the cumulative mutation burden,
attributed to processes by the exposure. Masks switch off whole modalities: at a dropped
visit, or for every visit of a subject whose modality is masked.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icgbench.contract.vocabulary import (
    MODALITIES,
    SIGNATURES,
    SPLIT_DOMAIN,
)
from icgbench.generator import mechanism as mech
from icgbench.generator.dynamics import RiskScale, Trajectories
from icgbench.generator.measurement import Measurement, cohort_measurement
from icgbench.generator.population import Population
from icgbench.generator.site import recalibrated
from icgbench.generator.streams import Seed, stream
from icgbench.generator.variants import Variant


@dataclass(frozen=True)
class Observations:
    """Features at visits, subject-major: values (n, V, F) and observed (n, V, modality)."""

    visit_months: tuple[int, ...]
    transcriptomic: np.ndarray  # (n, V, 18)
    epigenomic: np.ndarray  # (n, V, 8)
    signatures: np.ndarray  # (n, V, 5)
    mutation_count: np.ndarray  # (n, V) int64
    observed: np.ndarray  # (n, V, len(MODALITIES)) bool


def _omics(
    variant: Variant, z: np.ndarray, measurement: Measurement, rows: slice,
    rng: np.random.Generator,
) -> np.ndarray:
    """Readouts (n, V, m) of the modules ``rows`` of the cohort's measurement model from
    standardised states z (n, V, S).

    Each subject has its own persistent offset and gain per module (individual baseline
    expression and responsiveness), and each measurement its own noise.
    """
    w = measurement.loadings[rows]
    n, nv, m = z.shape[0], z.shape[1], w.shape[0]
    draws = rng.standard_normal((n, 2 * m + nv * m))
    offset = measurement.offset_sd[rows] * draws[:, :m]
    gain = np.exp(measurement.gain_log_sd[rows] * draws[:, m : 2 * m])
    noise = draws[:, 2 * m :].reshape(n, nv, m)
    lin = np.zeros((n, nv, m))
    for j in range(w.shape[1]):  # a fixed order of additions, not BLAS: the same bits
        lin += z[:, :, j : j + 1] * w[:, j]  # on every CPU
    if variant.observation_operator == "nonlinear":
        partner = measurement.partner[rows]
        lin = mech.NL_GAIN * np.tanh(mech.NL_SLOPE * lin) * np.exp(
            mech.NL_INTERACTION * np.tanh(z[:, :, partner])
        )
    return gain[:, None, :] * lin + offset[:, None, :] + (
        measurement.noise_sd[rows] * noise)


def _site_shift(
    variant: Variant, calibration: np.random.Generator, noise: np.random.Generator,
    tx: np.ndarray, epi: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """The target site's omics: every module recalibrated (:mod:`.site`; the draws of the
    cohort's site, from ``calibration``), plus extra noise per reading (from ``noise``) that
    only a model's weighting of the omics can absorb. In block 0 both are one stream: the
    calibration draws come first."""
    k = tx.shape[2]
    values = recalibrated(np.concatenate([tx, epi], axis=2), calibration,
                          variant.target_site_gain_log_sd, variant.target_site_offset_sd)
    values = values + variant.target_site_noise_sd * noise.standard_normal(values.shape)
    return values[:, :, :k], values[:, :, k:]


def observe(
    variant: Variant,
    seed: Seed,
    pop: Population,
    traj: Trajectories,
    risk_scale: RiskScale,
    visit_months: tuple[int, ...],
    block: int = 0,
) -> Observations:
    """Measure every modality at ``visit_months`` and draw the masks."""
    n = pop.n
    vh = variant.variant_hash

    def rng(purpose: str) -> np.random.Generator:
        return stream(vh, seed, pop.split, purpose, block)

    rows = [traj.months.index(m) for m in visit_months]
    states = traj.states[rows]  # (V, S, n)
    z = (states - risk_scale.mean[None, :, None]) / risk_scale.sd[None, :, None]
    z = np.transpose(z, (2, 0, 1))  # (n, V, S)
    nv = len(visit_months)

    measurement = cohort_measurement(variant, seed)
    tx = _omics(variant, z, measurement, measurement.transcriptomic(),
                rng("noise_transcriptomic"))
    epi = _omics(variant, z, measurement, measurement.epigenomic(),
                 rng("noise_epigenomic"))
    if SPLIT_DOMAIN.get(pop.split) == "target":
        calibration = stream(vh, seed, pop.split, "site_shift")  # one draw per cohort
        noise = calibration if block == 0 else rng("site_shift")
        tx, epi = _site_shift(variant, calibration, noise, tx, epi)
    decades = (pop.age - mech.AGE_CENTER) / 10.0
    epi += measurement.age_slope * decades[:, None, None]

    parts = np.transpose(traj.mutation_parts[rows], (2, 0, 1))  # (n, V, 3)
    shares = pop.mixture @ mech.ADDUCT_SIGNATURE_SHARES  # (n, 3)
    years = np.asarray(visit_months, dtype=float) / 12.0
    aging = parts[:, :, 2] + mech.AGING_PER_DECADE_YEAR * (pop.age / 10.0)[:, None] * years
    burden = np.stack(
        [
            aging,
            parts[:, :, 0] * shares[:, None, 0],
            parts[:, :, 0] * shares[:, None, 1],
            parts[:, :, 0] * shares[:, None, 2],
            parts[:, :, 1],
        ],
        axis=2,
    )
    assert burden.shape[2] == len(SIGNATURES)
    sig_noise = rng("noise_signatures").standard_normal((n, nv, len(SIGNATURES)))
    signatures = np.log1p(mech.SIGNATURE_SCALE * burden) + mech.SIGNATURE_NOISE_SD * sig_noise
    lam = mech.MUTATION_COUNT_BASE + mech.MUTATION_COUNT_PER_BURDEN * burden.sum(axis=2)
    counts = rng("mutation_counts").poisson(lam).astype(np.int64)

    dropped = rng("visit_dropout").random((n, nv)) < variant.visit_dropout_rate
    dropped[:, [i for i, m in enumerate(visit_months) if m == 0]] = False
    modality_masked = rng("modality_mask").random((n, len(MODALITIES))) < variant.masking_rate
    maskable = np.array([m in variant.masked_modalities for m in MODALITIES])
    modality_masked &= maskable[None, :]
    observed = ~(dropped[:, :, None] | modality_masked[:, None, :])

    decimals = mech.OBSERVATION_DECIMALS
    return Observations(
        visit_months=tuple(visit_months),
        transcriptomic=np.round(tx, decimals),
        epigenomic=np.round(epi, decimals),
        signatures=np.round(signatures, decimals),
        mutation_count=counts,
        observed=observed,
    )
