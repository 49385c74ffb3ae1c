"""The reference-model registry: every module here defining ``MODEL`` is a model.

Each model fits on the public tables of the train split and writes a real submission that
is validated and scored like anybody's; ``oracle`` alone reads the truth.
"""

from __future__ import annotations

import importlib
import pkgutil

from icgbench.errors import UsageError
from icgbench.models.base import CohortData, ReferenceModel


def _discover() -> dict[str, type[ReferenceModel]]:
    found = {}
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        model = getattr(module, "MODEL", None)
        if isinstance(model, type) and issubclass(model, ReferenceModel):
            found[model.name] = model
    order = ["random", "logistic_direct", "mbcnet_v0_1", "mbcnet_sign_constrained",
             "mbcnet_sign_constrained_augmented", "correlation", "pc", "oracle"]
    return {name: found[name] for name in sorted(found, key=lambda n: (
        order.index(n) if n in order else len(order), n))}


MODELS: dict[str, type[ReferenceModel]] = _discover()


def get_model(name: str) -> ReferenceModel:
    """A fresh instance of the model called ``name``."""
    try:
        return MODELS[name]()
    except KeyError:
        raise UsageError(f"unknown model {name!r}; models: {', '.join(MODELS)}") from None


def competitors() -> list[str]:
    """Every model except the oracle (the default of sweeps and the leaderboard)."""
    return [n for n, m in MODELS.items() if not m.oracle]


__all__ = ["MODELS", "CohortData", "ReferenceModel", "competitors", "get_model"]
