"""The ``do_*`` registry: which bottleneck states each intervention scales, and by how much.

The structural prior's expected direction of each intervention's effect on risk is the
product of the state's prior sign and the direction of the scaling; the DGP's true
direction is measured by simulating the intervention (see :mod:`.simulate`).
"""

from __future__ import annotations

import numpy as np

from icgbench.contract.vocabulary import STATES
from icgbench.generator.mechanism import PRIOR_SIGNS

INTERVENTIONS: dict[str, dict[str, float]] = {
    "do_DNA_repair_rescue": {"DNA_adducts": 0.55},
    "do_ROS_inflammation_blockade": {"ROS": 0.50, "inflammation": 0.50},
    "do_epigenetic_memory_reset": {"epigenetic_age": 0.45},
    "do_proliferation_suppression": {"proliferation": 0.50},
    "do_immune_surveillance_restore": {"immune_clearance": 1.50},
    "do_repair_inhibition": {"DNA_adducts": 1.80},
    "do_artificial_proliferation": {"proliferation": 1.80},
}


def intervention_names() -> list[str]:
    """Registered intervention names, in registry order."""
    return list(INTERVENTIONS)


def prior_direction(name: str) -> int:
    """Expected sign of the risk change under the structural prior (+1, -1 or 0)."""
    directions = {
        PRIOR_SIGNS[state] * int(np.sign(scale - 1.0))
        for state, scale in INTERVENTIONS[name].items()
    }
    directions.discard(0)
    return directions.pop() if len(directions) == 1 else 0


def scaled(states: np.ndarray, unit: dict[str, float]) -> np.ndarray:
    """A copy of natural-scale states (n, S) with each named state multiplied by its scale."""
    out = np.array(states, dtype=np.float64)
    for state, scale in unit.items():
        out[:, STATES.index(state)] *= scale
    return out


def scale_matrix(names: list[str]) -> np.ndarray:
    """Scales per run (factual first, then one row per intervention) x STATES."""
    scales = np.ones((1 + len(names), len(STATES)))
    for row, name in enumerate(names, start=1):
        for state, scale in INTERVENTIONS[name].items():
            scales[row, STATES.index(state)] = scale
    return scales
