"""The stored board: full-history ``leaderboard.json`` and append-only ``leaderboard.csv``.

``leaderboard.json`` holds every entry; ``leaderboard.csv`` is rendered from it, one row
per entry with the scores as compact JSON, so its columns never change and a new row only
ever appends. Writers hold an exclusive lock (``.leaderboard.lock``) for the whole
read-append-write, write each file to a temporary file in the same folder and rename it,
and refuse to touch a CSV whose earlier rows no longer match the JSON. Readers and writers
accept only schema version "0.1", through the registered migrations.
"""

from __future__ import annotations

import contextlib
import csv
import fcntl
import io
import json
from collections.abc import Iterator
from pathlib import Path

from icgbench.atomic import ensure_writable_dir, write_text
from icgbench.errors import InvalidInputError
from icgbench.leaderboard.entry import SCHEMA_VERSION, LeaderboardEntry
from icgbench.leaderboard.migrations import MIGRATIONS, migrate_leaderboard_entries

JSON_NAME = "leaderboard.json"
CSV_NAME = "leaderboard.csv"
LOCK_NAME = ".leaderboard.lock"
CSV_COLUMNS = ["schema_version", "submitted_at", "variant_name", "variant_hash", "seed",
               "model_name", "package_version", "data_version", "release_fingerprint",
               "submission_path", "submission_sha256", "notes", "scores"]


@contextlib.contextmanager
def locked(folder: Path) -> Iterator[None]:
    """Hold the board's exclusive lock (other writers wait)."""
    ensure_writable_dir(folder)
    with open(folder / LOCK_NAME, "a+") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def read_entries(folder: Path) -> list[LeaderboardEntry]:
    """Every entry of the board in ``folder`` (an empty list when there is none yet)."""
    path = Path(folder) / JSON_NAME
    if not path.exists():
        return []
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InvalidInputError(f"cannot read {path}: {exc}") from None
    if not isinstance(document, dict) or not isinstance(document.get("entries"), list):
        raise InvalidInputError(f"{path} is not a leaderboard (no 'entries' list)")
    version = document.get("schema_version")
    if version != SCHEMA_VERSION and version not in MIGRATIONS:
        raise InvalidInputError(f"{path} has schema_version {version!r}; this icgbench reads "
                                f"{SCHEMA_VERSION!r} and has no migration from it")
    raw = migrate_leaderboard_entries(document["entries"])
    return [LeaderboardEntry.from_dict(e) for e in raw]


def csv_text(entries: list[LeaderboardEntry]) -> str:
    """The CSV rendering of ``entries`` (deterministic: a row depends only on its entry)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for e in entries:
        d = e.as_dict()
        d["scores"] = json.dumps(e.scores, sort_keys=True, separators=(",", ":"),
                                 allow_nan=False)
        writer.writerow([d[c] for c in CSV_COLUMNS])
    return buffer.getvalue()


def json_text(entries: list[LeaderboardEntry]) -> str:
    return json.dumps({"schema_version": SCHEMA_VERSION,
                       "entries": [e.as_dict() for e in entries]},
                      indent=1, allow_nan=False) + "\n"


def check_csv(folder: Path, entries: list[LeaderboardEntry]) -> None:
    """Fail closed when leaderboard.csv's rows are not the JSON's (a prefix is allowed)."""
    path = Path(folder) / CSV_NAME
    if not path.exists():
        return
    expected = csv_text(entries)
    actual = path.read_text(encoding="utf-8")
    if not expected.startswith(actual):
        raise InvalidInputError(f"{path} differs from {JSON_NAME} in earlier rows (edited by "
                                "hand?); refusing to append")


def append_entry(entry: LeaderboardEntry, folder: Path) -> None:
    """Append ``entry`` to the board in ``folder`` (atomically, under the lock)."""
    folder = Path(folder)
    with locked(folder):
        entries = read_entries(folder)
        check_csv(folder, entries)
        if any(e.key == entry.key for e in entries):
            raise InvalidInputError(f"the board already has {entry.label}")
        entries.append(entry)
        write_text(folder / JSON_NAME, json_text(entries))
        write_text(folder / CSV_NAME, csv_text(entries))
