"""Explicit migrations of stored leaderboard entries; unknown versions fail closed.

``MIGRATIONS`` maps a stored ``schema_version`` to a function that upgrades one entry to
the next version. ``migrate_leaderboard_entries`` applies them until every entry is at the
current version, and refuses any version it has no path for, rather than reinterpreting a
row it does not understand. Version "0.1" is current; no migration is registered yet.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from icgbench.errors import InvalidInputError
from icgbench.leaderboard.entry import SCHEMA_VERSION

Migration = Callable[[dict[str, Any]], dict[str, Any]]
MIGRATIONS: dict[str, Migration] = {}


def migrate_leaderboard_entries(entries: list[dict[str, Any]],
                                migrations: dict[str, Migration] | None = None
                                ) -> list[dict[str, Any]]:
    """Every entry upgraded to the current schema version, or an InvalidInputError."""
    table = MIGRATIONS if migrations is None else migrations
    out = []
    for i, entry in enumerate(entries):
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
