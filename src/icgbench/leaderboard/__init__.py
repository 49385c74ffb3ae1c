"""The leaderboard: entries, the append-only store, verification, ranking, the web page."""

from __future__ import annotations

from icgbench._lazy import exports

_EXPORTS = {
    "LeaderboardEntry": "entry",
    "entry_from_report": "entry",
    "migrate_leaderboard_entries": "migrations",
    "append_entry": "store",
    "read_entries": "store",
}

__getattr__, __dir__ = exports(__name__, _EXPORTS)

__all__ = sorted(_EXPORTS)
