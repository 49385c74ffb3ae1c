"""The stored board: full-history ``leaderboard.json`` and append-only ``leaderboard.csv``.

``leaderboard.json`` holds the board's schema version, its tier (one tier per board; the
public board is full-tier) and every entry; ``leaderboard.csv`` is rendered from it, one
row per entry with the scores as compact JSON, so its columns never change and a new row
only ever appends. Every cell is quoted, and a cell that a spreadsheet would run as a
formula (starting with ``= + - @``, a tab or a line break) is prefixed with ``'``.

Writers hold an exclusive lock (``.leaderboard.lock``, never a symbolic link) for the
whole read-check-write, waiting at most a timeout; write each file to a temporary file in
the same folder and rename it (JSON first: it is the source of truth); and refuse a CSV
whose earlier rows no longer match the JSON. A writer killed between the two renames
leaves the CSV one row behind, which the next ``add`` or ``leaderboard repair`` renders
again. Readers parse strictly (no duplicate keys, no NaN) and accept only the current
schema version, or an older one through the registered migrations.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import math
import os
import stat
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from icgbench.errors import InvalidInputError, UsageError
from icgbench.io import failpoints, locks, untrusted
from icgbench.io.atomic import ensure_writable_dir, write_bytes, write_text
from icgbench.leaderboard.entry import SCHEMA_VERSION, LeaderboardEntry
from icgbench.leaderboard.gitrepo import committed_files
from icgbench.leaderboard.migrations import MIGRATIONS, migrate_leaderboard_entries

JSON_NAME = "leaderboard.json"
CSV_NAME = "leaderboard.csv"
LOCK_NAME = ".leaderboard.lock"
CSV_COLUMNS = ["schema_version", "submitted_at", "tier", "variant_name", "variant_hash",
               "seed", "model_name", "package_version", "data_version", "release_fingerprint",
               "submission_path", "submission_sha256", "notes", "scores"]
#: The public board's tier, and the default of every command that reads or writes a board.
PUBLIC_TIER = "full"
#: The tiers a board can hold: the public board's, the small tier's (for trying the tools
#: on the committed data) and the sealed track's.
BOARD_TIERS = ("small", "full", "sealed")
DEFAULT_LOCK_TIMEOUT = 120.0
MAX_BOARD_BYTES = 256 * 1024 * 1024
#: A spreadsheet runs a cell starting with one of these as a formula.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n")


@dataclass(frozen=True)
class Board:
    """A board as read from disk: its tier, entries, and the schema version on disk;
    ``source``: the bytes of ``leaderboard.json``; ``committed``: both files are HEAD's in
    git (the board was verified when it merged: its rows were not checked again)."""

    tier: str
    entries: list[LeaderboardEntry]
    stored_version: str = SCHEMA_VERSION
    source: bytes = b""
    committed: bool = False

    @property
    def current(self) -> bool:
        """True when the file on disk is at the current schema version (writable)."""
        return self.stored_version == SCHEMA_VERSION


@dataclass(frozen=True)
class RawBoard:
    """A board document after parsing and migration, entries not yet validated;
    ``entry_versions``: each entry's ``schema_version`` as stored, before migration;
    ``stored``: the entries as stored, before migration."""

    stored_version: str
    tier: str
    entries: list[dict[str, Any]]
    entry_versions: tuple[Any, ...] = ()
    stored: list[Any] = field(default_factory=list)


def _lock_fd(folder: Path) -> int:
    path = folder / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        if path.is_symlink():
            raise UsageError(f"{path} is a symbolic link; the board lock must be a regular "
                             "file (remove the link)") from None
        raise UsageError(f"cannot open the board lock {path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise UsageError(f"{path} is not a regular file; remove it")
    return fd


@contextlib.contextmanager
def locked(folder: Path, timeout: float = DEFAULT_LOCK_TIMEOUT) -> Iterator[None]:
    """Hold the board's exclusive lock; say so when waiting, give up after ``timeout`` s."""
    folder = Path(folder)
    ensure_writable_dir(folder)
    fd = _lock_fd(folder)
    try:
        deadline = time.monotonic() + timeout
        told = False
        while not locks.try_lock(fd):
            if time.monotonic() >= deadline:
                raise UsageError(
                    f"gave up after {timeout:g} s waiting for the board lock "
                    f"{folder / LOCK_NAME}: another writer holds it (a running `icgbench "
                    "leaderboard add`?); try again, or raise --lock-timeout") from None
            if not told:
                print(f"icgbench: waiting for the board lock {folder / LOCK_NAME} (another "
                      f"writer holds it; giving up after {timeout:g} s)", file=sys.stderr)
                told = True
            time.sleep(0.05)
        try:
            failpoints.reached("board.locked")
            yield
        finally:
            locks.unlock(fd)
    finally:
        os.close(fd)


def parse_board(data: bytes, where: str) -> RawBoard:
    """The board document in ``data`` (``where`` names it in errors), entries migrated."""
    try:
        document = untrusted.loads(data)
    except untrusted.InputProblem as exc:
        raise InvalidInputError(f"cannot read {where}: {exc}") from None
    if not isinstance(document, dict) or not isinstance(document.get("entries"), list):
        raise InvalidInputError(f"{where} is not a leaderboard (an object with an 'entries' "
                                "list)")
    unknown = sorted(set(document) - {"schema_version", "tier", "entries"})
    if unknown:
        raise InvalidInputError(f"{where} has unknown key(s) {', '.join(map(repr, unknown))}")
    version = document.get("schema_version")
    if version != SCHEMA_VERSION and version not in MIGRATIONS:
        raise InvalidInputError(f"{where} has schema_version {version!r}; this icgbench reads "
                                f"{SCHEMA_VERSION!r} and has no migration from it")
    for i, item in enumerate(document["entries"]):
        if isinstance(item, dict) and (found := non_finite(item)) is not None:
            field, value = found
            raise InvalidInputError(f"{where}: entry {i}: field {field} is {value!r}, a "
                                    "non-finite number (a board holds finite numbers only)")
    tier = document.get("tier", PUBLIC_TIER if version == "0.1" else None)
    if tier not in BOARD_TIERS:
        raise InvalidInputError(f"{where}: 'tier' must be one of {', '.join(BOARD_TIERS)}, "
                                f"not {tier!r}")
    try:
        entries = migrate_leaderboard_entries(document["entries"])
    except InvalidInputError as exc:
        raise InvalidInputError(f"{where}: {exc}") from None
    return RawBoard(version, tier, entries, tuple(e.get("schema_version") if isinstance(
        e, dict) else None for e in document["entries"]), document["entries"])


def non_finite(value: Any, path: str = "") -> tuple[str, float] | None:
    """(JSON path, value) of the first infinite or NaN number in ``value``, or None (the
    strict parser reads a literal too large for a double, such as 1e999, as infinity)."""
    return _first_non_finite(value, path) if not _all_finite(value) else None


def _all_finite(value: Any) -> bool:
    """Whether every number in ``value`` is finite (the fast pass: no paths built)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if type(item) is float:
            if not math.isfinite(item):
                return False
        elif type(item) is dict:
            stack.extend(item.values())
        elif type(item) is list:
            stack.extend(item)
    return True


def _first_non_finite(value: Any, path: str) -> tuple[str, float] | None:
    if isinstance(value, float) and not math.isfinite(value):
        return path or "(value)", value
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(
        value, list) else ()
    for key, item in items:
        found = _first_non_finite(item, f"{path}.{key}" if path else str(key))
        if found is not None:
            return found
    return None


def stored_paths(data: bytes) -> list[str | None]:
    """Each entry's ``submission_path`` exactly as stored (before a migration moved it)."""
    document = untrusted.loads(data)
    return [e.get("submission_path") if isinstance(e, dict) else None
            for e in document["entries"]]


def read_json_file(folder: Path) -> bytes | None:
    """The bytes of ``leaderboard.json`` (None when the folder has no board yet)."""
    path = Path(folder) / JSON_NAME
    try:
        return untrusted.read_regular(path, MAX_BOARD_BYTES, follow_symlinks=False)
    except FileNotFoundError:
        return None
    except untrusted.InputProblem as exc:
        raise InvalidInputError(str(exc)) from None


def entries_of(raw: RawBoard, where: str, verified: int = 0) -> list[LeaderboardEntry]:
    """Every entry of ``raw``, each validated against the entry schema except the first
    ``verified`` (rows known to be a verified board's, byte for byte)."""
    out = []
    for i, item in enumerate(raw.entries):
        try:
            out.append(LeaderboardEntry.verified(item) if i < verified
                       else LeaderboardEntry.from_dict(item))
        except InvalidInputError as exc:
            raise InvalidInputError(f"{where}: entry {i}: {exc}") from None
    return out


def load_board(folder: Path, new_tier: str | None = PUBLIC_TIER, trust_committed: bool = False
               ) -> Board:
    """The board in ``folder``; an empty board of ``new_tier`` when there is none yet.

    With ``new_tier=None`` a missing board is a usage error (commands that only read). With
    ``trust_committed``, a board whose two files are exactly HEAD's in git is not validated
    row by row: it was verified when it merged (``leaderboard verify`` re-checks every row a
    pull request changes), and re-validating 10,000 rows is what made ``add`` slow.
    """
    folder = Path(folder)
    data = read_json_file(folder)
    if data is None:
        if new_tier is None:
            what = "no such folder" if not folder.exists() else f"no {JSON_NAME} in it"
            raise UsageError(f"{folder} is not a leaderboard folder ({what})")
        return Board(new_tier, [])
    raw = parse_board(data, str(folder / JSON_NAME))
    committed = (trust_committed and raw.stored_version == SCHEMA_VERSION
                 and committed_files(folder, (JSON_NAME, CSV_NAME)))
    entries = entries_of(raw, str(folder / JSON_NAME), len(raw.entries) if committed else 0)
    return Board(raw.tier, entries, raw.stored_version, data, committed)


def read_entries(folder: Path) -> list[LeaderboardEntry]:
    """Every entry of the board in ``folder`` (an empty list when there is none yet)."""
    return load_board(folder).entries


def defused(text: str) -> str:
    """A CSV cell a spreadsheet shows as text: formula-like cells get a leading ``'``."""
    if text.startswith(FORMULA_START) or text.lstrip(" ").startswith(FORMULA_START[:4]):
        return "'" + text
    return text


def csv_text(entries: list[LeaderboardEntry]) -> str:
    """The CSV rendering of ``entries`` (deterministic: a row depends only on its entry)."""
    return csv_rows([], header=True) + csv_rows(entries)


def csv_rows(entries: list[LeaderboardEntry], header: bool = False) -> str:
    """The CSV rows of ``entries`` (with ``header``, the header row first)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n", quoting=csv.QUOTE_ALL)
    if header:
        writer.writerow(CSV_COLUMNS)
    for e in entries:
        scores = json.dumps(e.scores, sort_keys=True, separators=(",", ":"), allow_nan=False)
        writer.writerow([defused(scores if c == "scores" else str(getattr(e, c)))
                         for c in CSV_COLUMNS])
    return buffer.getvalue()


def json_text(tier: str, entries: list[LeaderboardEntry]) -> str:
    """The JSON document of a board (ASCII: every other character is escaped)."""
    return json.dumps({"schema_version": SCHEMA_VERSION, "tier": tier,
                       "entries": [e.as_dict() for e in entries]},
                      indent=1, allow_nan=False) + "\n"


def read_csv_bytes(folder: Path) -> bytes | None:
    """The bytes of ``leaderboard.csv`` exactly as stored (no newline translation)."""
    try:
        return untrusted.read_regular(Path(folder) / CSV_NAME, MAX_BOARD_BYTES,
                                      follow_symlinks=False)
    except FileNotFoundError:
        return None
    except untrusted.InputProblem as exc:
        raise InvalidInputError(str(exc)) from None


def csv_state(folder: Path, entries: list[LeaderboardEntry],
              known: tuple[int, bytes] | None = None) -> str:
    """``same``, ``behind`` (a strict prefix: a killed writer) or ``different``.

    ``known``: (n, the CSV of a verified board whose entries are the first n here), so only
    the rows after them are rendered.
    """
    actual = read_csv_bytes(folder)
    if known is not None:
        expected = known[1] + csv_rows(entries[known[0]:]).encode("utf-8")
    else:
        expected = csv_text(entries).encode("utf-8")
    if actual == expected:
        return "same"
    if actual is None or (expected.startswith(actual) and actual.endswith(b"\n")):
        return "behind"
    return "different"


def check_csv(folder: Path, entries: list[LeaderboardEntry]) -> str:
    """Fail closed when leaderboard.csv's rows are not the JSON's (lagging behind is fine);
    else its state (``same`` or ``behind``)."""
    state = csv_state(folder, entries)
    if state == "different":
        raise InvalidInputError(f"{Path(folder) / CSV_NAME} differs from {JSON_NAME} in earlier "
                                "rows (edited by hand?); refusing to write (restore it from "
                                "version control)")
    return state


def require_current(folder: Path, board: Board) -> None:
    """Writers refuse a board stored at an older schema version: migrate it first."""
    if not board.current:
        raise UsageError(f"{Path(folder) / JSON_NAME} is stored at schema version "
                         f"{board.stored_version}; run `icgbench leaderboard migrate --dir "
                         f"{folder}` to rewrite it at {SCHEMA_VERSION} first")


def write_board(folder: Path, tier: str, entries: list[LeaderboardEntry]) -> None:
    """Write both files (JSON first, the source of truth), each atomically. Hold the lock."""
    write_text(Path(folder) / JSON_NAME, json_text(tier, entries))
    failpoints.reached("board.json_written")
    write_text(Path(folder) / CSV_NAME, csv_text(entries))


#: How ``json_text`` ends a board of one or more entries: the array, then the document.
JSON_END = "\n ]\n}\n"


def write_appended(folder: Path, board: Board, added: list[LeaderboardEntry], csv_same: bool
                   ) -> None:
    """Write ``board`` with the ``added`` entries appended, in one write of each file.
    Hold the lock.

    The files are written whole (atomically) but not rendered whole: the new rows are
    spliced before the document's end, and the CSV rows appended, where the files allow it
    (the JSON ends as ``json_text`` ends it; ``csv_same``: the CSV is the JSON's rendering,
    checked or committed). Otherwise both are rendered from the entries, as
    :func:`write_board` does.
    """
    folder = Path(folder)
    text = board.source.decode("utf-8") if board.source else ""
    rendered = json_text(board.tier, added)
    opening = rendered[:rendered.index("[\n") + 2]
    csv_now = read_csv_bytes(folder)
    last = csv_rows(board.entries[-1:]).encode("utf-8")
    if not (board.entries and text.startswith(opening) and text.endswith(JSON_END)
            and csv_now is not None and csv_now.endswith(last) and csv_same):
        write_board(folder, board.tier, [*board.entries, *added])
        return
    rows = rendered[len(opening):-len(JSON_END)]
    write_text(folder / JSON_NAME, text[:-len(JSON_END)] + ",\n" + rows + JSON_END)
    failpoints.reached("board.json_written")
    write_bytes(folder / CSV_NAME, csv_now + csv_rows(added).encode("utf-8"))


def append_entry(entry: LeaderboardEntry, folder: Path,
                 timeout: float = DEFAULT_LOCK_TIMEOUT) -> None:
    """Append ``entry`` to the board in ``folder`` (atomically, under the lock).

    The entry is validated against the entry schema first, and must be of the board's
    tier; the stored submission is the caller's business (``board.add`` stores both).
    """
    entry = LeaderboardEntry.from_dict(entry.as_dict())
    folder = Path(folder)
    with locked(folder, timeout):
        board = load_board(folder, new_tier=entry.tier)
        require_current(folder, board)
        if entry.tier != board.tier:
            raise InvalidInputError(f"{folder} is a {board.tier}-tier board; {entry.label} is "
                                    f"a {entry.tier}-tier entry")
        csv_same = check_csv(folder, board.entries) == "same"
        if any(e.key == entry.key for e in board.entries):
            raise InvalidInputError(f"the board already has {entry.label}")
        write_appended(folder, board, [entry], csv_same)
