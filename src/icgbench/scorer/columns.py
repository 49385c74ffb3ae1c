"""Each submitted array converted once (to numpy or Arrow) and shared by every check.

Keyed by the identity of the parsed list, so it is only valid while that document lives
and is not modified; ``validate`` creates one per submission.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from icgbench.io.arrow import strings


class Columns:
    """A cache of array conversions for one parsed submission."""

    def __init__(self) -> None:
        self._store: dict[tuple[Any, ...], Any] = {}
        self._keep: list[Any] = []  # holds the sources so their ids stay unique

    def _get(self, values: list[Any], kind: str, make) -> Any:
        key = (id(values), kind)
        if key not in self._store:
            self._store[key] = make(values)
            self._keep.append(values)
        return self._store[key]

    def numbers(self, values: list[Any]) -> np.ndarray:
        """``values`` as float64; an integer too large for a double becomes an infinity."""
        return self._get(values, "f8", _float64)

    def strings(self, values: list[Any]) -> pa.Array:
        """``values`` (all str) as an Arrow string array."""
        return self._get(values, "str", strings)

    def derived(self, source: Any, key: tuple[Any, ...], make) -> Any:
        """A value computed from ``source`` (an array this cache made), computed once."""
        full = (id(source), *key)
        if full not in self._store:
            self._store[full] = make(source)
            self._keep.append(source)
        return self._store[full]


def _as_double(value: Any) -> float:
    try:
        return float(value)
    except OverflowError:
        return float("inf") if value > 0 else float("-inf")


def _float64(values: list[Any]) -> np.ndarray:
    """float64 array of JSON numbers (ValueError/TypeError for other types, like numpy)."""
    try:
        return np.asarray(values, dtype=np.float64)
    except OverflowError:
        return np.fromiter((_as_double(v) for v in values), dtype=np.float64,
                           count=len(values))
