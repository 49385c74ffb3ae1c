"""Package attributes that load on first use (PEP 562).

A package's ``__init__`` lists which submodule defines each public name; the submodule is
imported when the name is first read. This keeps the CLI's start-up (``--help``, argument
parsing) free of numpy, pyarrow, jsonschema and scikit-learn until a command needs them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any


def module_names(path: Iterable[str]) -> list[str]:
    """The modules of a package (its ``__path__``), by name: what ``pkgutil.iter_modules``
    lists for a folder of plain modules, without importing pkgutil at start-up."""
    return sorted(p.stem for folder in path for p in Path(folder).glob("*.py")
                  if p.stem != "__init__" and p.stem.isidentifier())


def exports(package: str, names: Mapping[str, str]
            ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``, whose ``names`` map to submodules."""

    def getattr_(name: str) -> Any:
        if name not in names:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{names[name]}"), name)

    def dir_() -> list[str]:
        return sorted({*vars(importlib.import_module(package)), *names})

    return getattr_, dir_
