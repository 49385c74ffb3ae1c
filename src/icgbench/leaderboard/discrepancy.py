"""One thing on a board that does not hold: what every board check reports."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Discrepancy:
    """One thing on the board that does not hold: what was recorded, what was found."""

    entry: str
    field: str
    recorded: Any
    recomputed: Any

    def __str__(self) -> str:
        from icgbench.io.untrusted import printable

        return printable(f"{self.entry}: {self.field} recorded {self.recorded!r}, "
                         f"recomputed {self.recomputed!r}")
