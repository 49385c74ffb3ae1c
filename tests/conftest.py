"""Shared fixtures: cohorts are simulated once per session and reused."""

from __future__ import annotations

import functools

from icgbench.generator import Cohort, simulate


@functools.lru_cache(maxsize=32)
def cohort(variant: str, seed: int = 0, n_subjects: int | None = None) -> Cohort:
    """A cached simulated cohort (tables are immutable Arrow tables)."""
    return simulate(variant, seed, n_subjects=n_subjects)


def require_tool(command: str, install_hint: str) -> str:
    """The path of ``command``; when missing, skip (or fail under CI=true) saying what to do."""
    import os
    import shutil

    import pytest

    path = shutil.which(command)
    if path:
        return path
    message = f"{command} not found: {install_hint} (make system-deps installs it)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message)
    pytest.skip(message)
