"""The reference-model registry: every module here defining ``MODEL`` is a model.

Each model fits on the public tables of the train split and writes a real submission that
is validated and scored like anybody's; ``oracle`` alone reads the truth.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from icgbench._lazy import module_names
from icgbench.errors import UnknownNameError

if TYPE_CHECKING:
    from icgbench.models.base import CohortData, ReferenceModel

#: The order listings show; models not named here follow, by name.
ORDER = ("random", "logistic_direct", "mbcnet_v0_1", "mbcnet_sign_constrained",
         "mbcnet_sign_constrained_augmented", "mbcnet_boosted", "correlation",
         "panel_regression", "pc", "ges", "direct_lingam", "pcmci_plus", "ceiling", "oracle")

#: The class attributes read without importing the model, with their base-class defaults.
DECLARED = {"name": None, "aliases": (), "oracle": False, "requires": (), "extra": None}


@dataclass(frozen=True)
class Declaration:
    """What a model module declares about its model, read from its source: importing a
    model imports pandas and scikit-learn, which the CLI's ``--help`` must not wait for."""

    name: str
    module: str
    aliases: tuple[str, ...]
    oracle: bool
    requires: tuple[str, ...]
    extra: str | None


def _class_literals(tree: ast.Module) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            bases = [b.id for b in node.bases if isinstance(b, ast.Name)]
            values = {t.id: ast.literal_eval(stmt.value) for stmt in node.body
                      if isinstance(stmt, ast.Assign) for t in stmt.targets
                      if isinstance(t, ast.Name) and t.id in DECLARED}
            out[node.name] = {"__bases__": bases, **values}
    return out


def _declaration(module: str, source: str) -> Declaration | None:
    tree = ast.parse(source)
    classes = _class_literals(tree)
    target = next((stmt.value.id for stmt in tree.body if isinstance(stmt, ast.Assign)
                   and any(isinstance(t, ast.Name) and t.id == "MODEL" for t in stmt.targets)
                   and isinstance(stmt.value, ast.Name)), None)
    if target is None:
        return None
    values: dict[str, Any] = {}
    cls: str | None = target
    while cls in classes:  # a base class defined in the same module contributes its values
        values = {**classes[cls], **values}
        cls = next(iter(classes[cls]["__bases__"]), None)
    values = {k: values.get(k, DECLARED[k]) for k in DECLARED}
    if values["name"] is None:
        raise RuntimeError(f"model module {module} must set `name` as a literal on its class")
    return Declaration(module=module, **values)


def _declarations() -> dict[str, Declaration]:
    found = {}
    for name in module_names(__path__):
        source = (Path(__path__[0]) / f"{name}.py").read_text(encoding="utf-8")
        if "MODEL" not in source:  # a helper module, not a model: not worth parsing
            continue
        d = _declaration(f"{__name__}.{name}", source)
        if d is not None:
            found[d.name] = d
    return {name: found[name] for name in sorted(found, key=lambda n: (
        ORDER.index(n) if n in ORDER else len(ORDER), n))}


#: Every reference model, by name, as its module declares it (no model is imported).
DECLARATIONS: dict[str, Declaration] = _declarations()


def _aliases() -> dict[str, str]:
    out: dict[str, str] = {}
    for name, model in DECLARATIONS.items():
        for alias in model.aliases:
            if alias in DECLARATIONS or alias in out:
                raise RuntimeError(f"model alias {alias!r} of {name} is already taken")
            out[alias] = name
    return out


#: Short names the CLI accepts (the seed's ``v0_1``, ``sign_constrained``, ...) -> model.
ALIASES: dict[str, str] = _aliases()


def model_class(name: str) -> type[ReferenceModel]:
    """The class of the registered model ``name`` (imports its module)."""
    if name not in DECLARATIONS:
        raise UnknownNameError("model", name, DECLARATIONS)
    return importlib.import_module(DECLARATIONS[name].module).MODEL


def __getattr__(name: str) -> Any:
    if name == "MODELS":  # every model class, by name: imports every model
        return {n: model_class(n) for n in DECLARATIONS}
    if name in ("CohortData", "ReferenceModel"):
        from icgbench.models import base

        return getattr(base, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def resolve(name: str) -> str:
    """The registered model ``name`` or an alias of one names; an UnknownNameError otherwise."""
    if name in DECLARATIONS:
        return name
    if name in ALIASES:
        return ALIASES[name]
    aliases = ", ".join(f"{a} = {m}" for a, m in ALIASES.items())
    raise UnknownNameError("model", name, DECLARATIONS, f" (aliases: {aliases})")


def get_model(name: str) -> ReferenceModel:
    """A fresh instance of the model called ``name`` (or one of its aliases)."""
    return model_class(resolve(name))()


def missing_requirement(name: str) -> str | None:
    """Why model ``name`` cannot run here (a one-line install hint), or None if it can."""
    model = DECLARATIONS[name]
    for module in model.requires:
        if importlib.util.find_spec(module) is None:
            return (f"{name} needs the {module} module: pip install "
                    f"'icgbench[{model.extra}]'")
    return None


def competitors() -> list[str]:
    """The reference models of the board (the default of sweeps): every model that fits
    data, the generic causal-discovery baselines included, whose honest place is below the
    model-free floor."""
    return [n for n, m in DECLARATIONS.items() if not m.oracle]


__all__ = ["ALIASES", "DECLARATIONS", "MODELS", "CohortData", "Declaration", "ReferenceModel",
           "competitors", "get_model", "missing_requirement", "model_class", "resolve"]
