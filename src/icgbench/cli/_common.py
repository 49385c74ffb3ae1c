"""Helpers shared by the command modules: argument types and output."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from icgbench.errors import UsageError
from icgbench.generator import Variant, get_variant


def non_negative_int(text: str) -> int:
    """argparse type: an integer >= 0."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, got {value}")
    return value


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    value = non_negative_int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def non_negative_float(text: str) -> float:
    """argparse type: a finite number >= 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a non-negative, finite number, got {text!r}")
    return value


def positive_float(text: str) -> float:
    """argparse type: a finite number > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive, finite number, got {text!r}")
    return value


def print_json(obj: Any) -> None:
    """Print ``obj`` as indented JSON on stdout."""
    json.dump(obj, sys.stdout, indent=2, allow_nan=False)
    sys.stdout.write("\n")


def say(message: str) -> None:
    """A human-facing progress or result line (stderr when stdout carries JSON)."""
    print(message, file=sys.stdout)


def say_err(message: str) -> None:
    """A human-facing line on stderr (stdout carries JSON or a table)."""
    print(message, file=sys.stderr)


class _OldSpelling(argparse.Action):
    """An option's old spelling, kept for one release: it works, hidden from the help, and
    says on stderr what replaced it (docs/cli.md lists the vocabulary)."""

    def __init__(self, option_strings: list[str], dest: str, new: str, **kwargs: Any) -> None:
        self.new = new
        kwargs["help"] = argparse.SUPPRESS
        kwargs.setdefault("default", argparse.SUPPRESS)
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        say_err(f"icgbench: warning: {option_string} is deprecated and goes in the next "
                f"release; use {self.new}")
        setattr(namespace, self.dest, values)


def old_spelling(p: Any, old: str, new: str, dest: str, **kwargs: Any) -> None:
    """Register ``old`` as a deprecated spelling of the option ``new`` (same ``dest``)."""
    p.add_argument(old, dest=dest, action=_OldSpelling, new=new, **kwargs)


def required(value: Any, option: str) -> Any:
    """``value``, or a usage error naming ``option`` (for an option with an old spelling,
    which argparse cannot mark required)."""
    if value is None:
        raise UsageError(f"the option {option} is required")
    return value


def variant_arg(name: str) -> Variant:
    """The registered variant ``name``, or a usage error (exit 2) listing the names."""
    return get_variant(name)


def release_files(tier: str, root: Path | None = None) -> list[Path]:
    """The descriptor and every file of ``tier`` (inputs an output must not replace); none
    when the tier cannot be found (then nothing of it is read either)."""
    from icgbench.api.tables import tier_descriptor
    from icgbench.errors import UserError

    try:
        d = tier_descriptor(tier, root)
    except UserError:
        return []
    return [d.path, *(d.base / r.path for r in d.resources)]


#: The optional extras (``pip install "icgbench[<extra>]"``) -> the modules each installs;
#: the core scores and validates without them.
EXTRAS = {"plots": ("matplotlib",), "page": ("jinja2", "markupsafe", "matplotlib")}


def require_extra(extra: str, what: str) -> None:
    """A one-line UsageError when a module of ``extra`` does not import, saying ``what``
    needs it and how to install it."""
    import importlib

    missing = []
    for module in EXTRAS[extra]:
        try:
            importlib.import_module(module)
        except ImportError:
            missing.append(module)
    if missing:
        raise UsageError(f"{what} needs {', '.join(missing)}, which is not installed: "
                         f'pip install "icgbench[{extra}]"')
