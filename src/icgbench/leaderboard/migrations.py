"""Explicit migrations of stored leaderboard entries; unknown versions fail closed.

``MIGRATIONS`` maps a stored ``schema_version`` to a function that upgrades one entry to
the next version. ``migrate_leaderboard_entries`` applies them until every entry is at the
current version, and refuses any version it has no path for, rather than reinterpreting a
row it does not understand.

- "0.1" -> "0.2": entries record their ``tier`` ("full": a 0.1 board was documented as
  full-tier only, and ``verify`` re-derives the tier from the stored submission, so a
  wrong claim cannot survive), and the submission is stored at the canonical path, which
  now includes the model version. Moving the files is ``icgbench leaderboard migrate``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from icgbench.errors import InvalidInputError
from icgbench.leaderboard.entry import SCHEMA_VERSION, canonical_path

Migration = Callable[[dict[str, Any]], dict[str, Any]]


def _from_0_1(entry: dict[str, Any]) -> dict[str, Any]:
    out = {"schema_version": "0.2", "submitted_at": entry.get("submitted_at"), "tier": "full"}
    out.update({k: v for k, v in entry.items() if k not in out})
    try:
        out["submission_path"] = canonical_path(entry["model_name"], entry["package_version"],
                                                entry["variant_name"], entry["seed"])
    except KeyError as exc:
        raise InvalidInputError(f"a 0.1 leaderboard entry lacks {exc}") from None
    return out


MIGRATIONS: dict[str, Migration] = {"0.1": _from_0_1}


def migrate_leaderboard_entries(entries: list[dict[str, Any]],
                                migrations: dict[str, Migration] | None = None
                                ) -> list[dict[str, Any]]:
    """Every entry upgraded to the current schema version, or an InvalidInputError."""
    table = MIGRATIONS if migrations is None else migrations
    out = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise InvalidInputError(f"leaderboard entry {i} is a {type(entry).__name__}, not "
                                    "an object")
        seen = set()
        while entry.get("schema_version") != SCHEMA_VERSION:
            version = entry.get("schema_version")
            if version not in table or version in seen:
                raise InvalidInputError(
                    f"leaderboard entry {i} has schema_version {version!r}; this icgbench "
                    f"reads {SCHEMA_VERSION!r} and has no migration from it (refusing to "
                    "reinterpret it)")
            seen.add(version)
            entry = table[version](dict(entry))
        out.append(entry)
    return out
