"""The target site's calibration: one gain and offset per measured column (a batch effect).

Another site's lab reads the same quantity on its own scale. Every target subject's reading
of a column is rescaled and shifted the same way, so the mechanism is unchanged and
standardising each column within a site removes the shift.
"""

from __future__ import annotations

import numpy as np


def recalibrated(
    values: np.ndarray, rng: np.random.Generator, gain_log_sd: float, offset_sd: float
) -> np.ndarray:
    """``gain_c * values + offset_c`` per column ``c`` (the last axis).

    ``log gain_c ~ N(0, gain_log_sd^2)`` and ``offset_c ~ N(0, offset_sd^2)``, drawn as one
    (2, columns) block from ``rng``.
    """
    draws = rng.standard_normal((2, values.shape[-1]))
    return np.exp(gain_log_sd * draws[0]) * values + offset_sd * draws[1]
