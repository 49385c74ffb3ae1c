"""The reference-model registry: every module here defining ``MODEL`` is a model.

Each model fits on the public tables of the train split and writes a real submission that
is validated and scored like anybody's; ``oracle`` alone reads the truth.
"""

from __future__ import annotations

import importlib
import importlib.util
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
             "mbcnet_sign_constrained_augmented", "correlation", "pc", "ges", "direct_lingam",
             "pcmci_plus", "oracle"]
    return {name: found[name] for name in sorted(found, key=lambda n: (
        order.index(n) if n in order else len(order), n))}


MODELS: dict[str, type[ReferenceModel]] = _discover()


def _aliases() -> dict[str, str]:
    out: dict[str, str] = {}
    for name, model in MODELS.items():
        for alias in model.aliases:
            if alias in MODELS or alias in out:
                raise RuntimeError(f"model alias {alias!r} of {name} is already taken")
            out[alias] = name
    return out


#: Short names the CLI accepts (the seed's ``v0_1``, ``sign_constrained``, ...) -> model.
ALIASES: dict[str, str] = _aliases()


def resolve(name: str) -> str:
    """The registered model ``name`` or an alias of one names; a UsageError otherwise."""
    if name in MODELS:
        return name
    if name in ALIASES:
        return ALIASES[name]
    aliases = ", ".join(f"{a} = {m}" for a, m in ALIASES.items())
    raise UsageError(f"unknown model {name!r}; models: {', '.join(MODELS)} "
                     f"(aliases: {aliases})")


def get_model(name: str) -> ReferenceModel:
    """A fresh instance of the model called ``name`` (or one of its aliases)."""
    return MODELS[resolve(name)]()


def missing_requirement(name: str) -> str | None:
    """Why model ``name`` cannot run here (a one-line install hint), or None if it can."""
    model = MODELS[name]
    for module in model.requires:
        if importlib.util.find_spec(module) is None:
            return (f"{name} needs the {module} module: pip install "
                    f"'icgbench[{model.extra}]'")
    return None


def competitors() -> list[str]:
    """Every model except the oracle (the default of sweeps and the leaderboard)."""
    return [n for n, m in MODELS.items() if not m.oracle]


__all__ = ["ALIASES", "MODELS", "CohortData", "ReferenceModel", "competitors", "get_model",
           "missing_requirement", "resolve"]
