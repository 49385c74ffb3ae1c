"""Shared fixtures: cohorts are simulated once per session and reused."""

from __future__ import annotations

import functools

from icgbench.generator import Cohort, simulate


@functools.lru_cache(maxsize=32)
def cohort(variant: str, seed: int = 0, n_subjects: int | None = None) -> Cohort:
    """A cached simulated cohort (tables are immutable Arrow tables)."""
    return simulate(variant, seed, n_subjects=n_subjects)
