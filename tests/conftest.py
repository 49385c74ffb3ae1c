"""Shared fixtures: cohorts are simulated once per session and reused."""

from __future__ import annotations

import functools

from icgbench.generator import Cohort, simulate


@functools.lru_cache(maxsize=32)
def cohort(variant: str, seed: int = 0, n_subjects: int | None = None) -> Cohort:
    """A cached simulated cohort (tables are immutable Arrow tables)."""
    return simulate(variant, seed, n_subjects=n_subjects)


def require(present: bool, what: str, install_hint: str) -> None:
    """Skip (fail under CI=true) when a system component the test drives is missing."""
    import os

    import pytest

    if present:
        return
    message = f"{what} not found: {install_hint} (make system-deps installs it)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message)
    pytest.skip(message)


def require_tool(command: str, install_hint: str) -> str:
    """The path of ``command``, or skip (fail under CI=true) saying what to install."""
    import shutil

    path = shutil.which(command)
    require(path is not None, command, install_hint)
    return path
