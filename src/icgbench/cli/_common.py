"""Helpers shared by the command modules: argument types and output."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from icgbench.errors import UsageError
from icgbench.generator import UnknownVariantError, Variant, get_variant


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


def variant_arg(name: str) -> Variant:
    """The registered variant ``name``, or a usage error (exit 2) listing the names."""
    try:
        return get_variant(name)
    except UnknownVariantError as exc:
        raise UsageError(str(exc)) from None


def release_files(tier: str, root: Path | None = None) -> list[Path]:
    """The descriptor and every file of ``tier`` (inputs an output must not replace); none
    when the tier cannot be found (then nothing of it is read either)."""
    from icgbench.data import tier_descriptor
    from icgbench.errors import UserError

    try:
        d = tier_descriptor(tier, root)
    except UserError:
        return []
    return [d.path, *(d.base / r.path for r in d.resources)]
