"""Subjects before follow-up: covariates, host susceptibility and exposures.

Draws are subject-major, one stream per purpose and block (see :mod:`.streams`), so the
first k subjects of a block do not depend on how many are drawn.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icgbench.contract.vocabulary import ARCHETYPES, HOST_TRAITS, KCCS, PROXIED_TRAITS, SPLIT_DOMAIN
from icgbench.generator import mechanism as mech
from icgbench.generator.site import recalibrated
from icgbench.generator.streams import Seed, stream
from icgbench.generator.variants import Variant


@dataclass(frozen=True)
class Population:
    """One split's subjects; every array has the subjects on its first axis."""

    split: str
    age: np.ndarray  # (n,)
    female: np.ndarray  # (n,) bool
    host: np.ndarray  # (n, len(HOST_TRAITS))
    proxies: np.ndarray  # (n, len(PROXIED_TRAITS))
    mixture: np.ndarray  # (n, len(ARCHETYPES)); one-hot in the discrete mode
    dose: np.ndarray  # (n,)
    assay: np.ndarray  # (n, len(KCCS)) observed KCC screening readout
    activation: np.ndarray  # (n, len(KCCS)) true, host-modulated KCC activation

    @property
    def n(self) -> int:
        return int(self.age.shape[0])

    @property
    def archetype_index(self) -> np.ndarray:
        """The dominant archetype of each subject's exposure."""
        return np.argmax(self.mixture, axis=1)

    def trait(self, name: str) -> np.ndarray:
        return self.host[:, HOST_TRAITS.index(name)]


def sample_host(variant: Variant, rng: np.random.Generator, n: int, spread: float = 1.0
                ) -> np.ndarray:
    """Host susceptibility traits (n, 5), drawn around the traits' means with ``spread``
    times the variant's spread (clipped to each trait's range).

    The target domain's hosts spread wider (``spread`` > 1, solved per cohort, see
    :func:`.reference.target_spread`): many lie outside the support a source-trained
    model saw.
    """
    z = rng.standard_normal((n, len(HOST_TRAITS)))
    out = np.empty_like(z)
    spread = variant.host_sd_multiplier * spread
    for j, trait in enumerate(HOST_TRAITS):
        mean, sd, lo, hi = mech.HOST[trait]
        value = mean + sd * spread * z[:, j]
        out[:, j] = np.clip(value, lo, hi)
    j = HOST_TRAITS.index("detox_balance")
    out[:, j] = np.exp(out[:, j])
    return out


def sample_mixture(variant: Variant, rng: np.random.Generator, n: int,
                   target: bool = False) -> np.ndarray:
    """Exposure composition over archetypes (n, 8): one-hot or a Dirichlet mixture.

    The target domain has its own mode and concentration (exposures outside the source's
    support, e.g. mixtures where the source saw single agents).
    """
    k = len(ARCHETYPES)
    mode = variant.target_archetype_mode if target else variant.archetype_mode
    concentration = (variant.target_mixture_concentration if target
                     else variant.mixture_concentration)
    if mode == "discrete":
        u = rng.random((n, 1))
        index = np.searchsorted(np.cumsum(mech.ARCHETYPE_PRIOR), u[:, 0], side="right")
        index = np.minimum(index, k - 1)
        return np.eye(k)[index]
    return rng.dirichlet(np.full(k, concentration), size=n)


def sample_population(variant: Variant, seed: Seed, split: str, n: int, block: int = 0,
                      target_spread: float = 1.0, domain: str | None = None) -> Population:
    """Draw ``n`` subjects of one block of a split; a target-domain split's hosts spread
    ``target_spread`` times wider. ``domain`` overrides the split's (a reference
    population)."""
    vh = variant.variant_hash
    target = (domain or SPLIT_DOMAIN.get(split, "source")) == "target"

    def rng(purpose: str) -> np.random.Generator:
        return stream(vh, seed, split, purpose, block)

    covariates = rng("covariates").random((n, 2))
    age = np.round(mech.AGE_RANGE[0] + (mech.AGE_RANGE[1] - mech.AGE_RANGE[0]) * covariates[:, 0])
    female = covariates[:, 1] < 0.5

    host = sample_host(variant, rng("host"), n, target_spread if target else 1.0)
    proxy_noise = rng("proxies").standard_normal((n, len(PROXIED_TRAITS)))
    proxies = np.stack(
        [host[:, HOST_TRAITS.index(t)] for t in PROXIED_TRAITS], axis=1
    ) + mech.PROXY_NOISE_SD * proxy_noise
    if target:
        # the proxies are baseline lab measurements: the target site's lab reads them on its
        # own calibration (one draw per cohort, as the assays)
        proxies = recalibrated(proxies, stream(vh, seed, split, "site_proxies"),
                               variant.target_proxy_gain_log_sd,
                               variant.target_proxy_offset_sd)
        proxies = proxies + variant.target_lab_noise_sd * rng("lab_noise_proxies").standard_normal(
            proxies.shape)

    mixture = sample_mixture(variant, rng("mixture"), n, target)
    dose = np.exp(mech.DOSE_LOG_SD * rng("dose").standard_normal(n))
    profile = mixture @ mech.ARCHETYPE_PROFILES
    assay = profile + mech.ASSAY_NOISE_SD * rng("assay").standard_normal((n, len(KCCS)))
    if target:
        # the site's calibration is one draw per cohort: block 0's stream for every block
        assay = recalibrated(assay, stream(vh, seed, split, "site_assay"),
                             variant.target_assay_gain_log_sd, variant.target_assay_offset_sd)
        assay = assay + variant.target_lab_noise_sd * rng("lab_noise_assay").standard_normal(
            assay.shape)
    assay = np.clip(assay, 0.0, 1.0)
    spread = mech.ACTIVATION_LOG_SD * variant.host_sd_multiplier
    modulation = np.exp(spread * rng("activation").standard_normal((n, len(KCCS))))
    detox = host[:, HOST_TRAITS.index("detox_balance")]
    metabolic = np.ones((n, len(KCCS)))
    metabolic[:, 0] = detox
    metabolic[:, 1] = detox
    activation = np.clip(profile * modulation * metabolic, 0.0, 1.0)
    return Population(split, age, female, host, proxies, mixture, dose, assay, activation)
