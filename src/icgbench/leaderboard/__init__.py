"""The leaderboard: entries, the append-only store, verification, ranking, the web page."""

from icgbench.leaderboard.entry import LeaderboardEntry, entry_from_report
from icgbench.leaderboard.migrations import migrate_leaderboard_entries
from icgbench.leaderboard.store import append_entry, read_entries

__all__ = ["LeaderboardEntry", "append_entry", "entry_from_report",
           "migrate_leaderboard_entries", "read_entries"]
