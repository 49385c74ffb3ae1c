"""How a model's structure K* is chosen on the calibration cohort (light: the CLI reads it)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Criterion:
    """How K* is read from a sensitivity curve: the curve's column and its better extreme."""

    column: str
    best: Callable[[list[float]], float]
    description: str


CALIBRATE_BY = {
    "f1": Criterion("directed_f1", max, "the highest directed F1"),
    "shd": Criterion("shd", min, "the lowest SHD (ties to the smallest K)"),
}
DEFAULT_CALIBRATE_BY = "f1"
