"""Random streams of the reference models, keyed like the generator's (no global state)."""

from __future__ import annotations

import numpy as np

from icgbench.generator import get_variant
from icgbench.generator.streams import stream


def model_rng(model: str, variant: str, seed: int) -> np.random.Generator:
    """A generator for one (model, cohort)."""
    return stream(get_variant(variant).variant_hash, seed, "model", model)


def model_seed(model: str, variant: str, seed: int) -> int:
    """A 31-bit integer seed for libraries that take one (scikit-learn)."""
    return int(model_rng(model, variant, seed).integers(0, 2**31 - 1))
