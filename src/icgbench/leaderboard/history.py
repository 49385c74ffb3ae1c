"""A board's history: the board at a git ref must be a prefix of the board now, in bytes.

The board is append-only, so the board at the pull request's base must reappear, unchanged,
at the start of the new one: the same entries in the same order, **each entry's row in
``leaderboard.json`` byte for byte as committed at the base** (so ``40`` may not become
``40.0``, nor ``0.0`` become ``-0.0``, nor a row be rewritten at an older schema version),
and every stored file byte for byte. The comparison is made on the raw rows, before any
migration. The one rewrite allowed is the migration itself: a base row stored at an
*older* schema version may reappear as exactly its migration to the current one (and its
file at the migrated path, with the same bytes). A pull request that deletes another
model's rows, replaces a submission together with its recorded scores, edits notes or
timestamps, reorders rows or empties the board fails here even though its end state
re-scores cleanly.

The ref is resolved in the git repository that holds the board folder, and the board is
read at the same path inside it with ``git cat-file`` only (one batch process for the
stored files): nothing in the repository is run. A board whose every entry was graded on
an earlier major data release is closed: the current board starts a new history (as
releases 2.0.0 and 3.0.0 did). A board whose every entry was graded on an earlier minor
release of the current major one is *regraded* (as 7.1.0 did, :mod:`.regrade`): each of
its rows must reappear in place with every field but the graded ones (``GRADED``) the same
value and its stored file the same bytes, and every one of them is graded again.
"""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from icgbench.errors import InvalidInputError
from icgbench.io import untrusted
from icgbench.leaderboard.discrepancy import Discrepancy
from icgbench.leaderboard.entry import GRADED, SCHEMA_VERSION, SUBMISSIONS
from icgbench.leaderboard.files import inside, path_problem
from icgbench.leaderboard.gitrepo import (
    REGULAR_MODES,
    blobs,
    committed_as_is,
    repository,
    resolve_commit,
    tree,
)
from icgbench.leaderboard.migrations import migrate_leaderboard_entries
from icgbench.leaderboard.store import (
    CSV_NAME,
    JSON_END,
    JSON_NAME,
    MAX_BOARD_BYTES,
    RawBoard,
    parse_board,
)
from icgbench.release.tiers import DATA_VERSION
from icgbench.scorer.parse import DEFAULT_MAX_BYTES

_WHITESPACE = " \t\n\r"


def _sha(data: bytes | None) -> str | None:
    return None if data is None else "sha256:" + hashlib.sha256(data).hexdigest()


def earlier_release(board: RawBoard) -> bool:
    """Whether every entry of ``board`` was graded on an earlier major data release.

    Such entries cannot be re-graded on this release's data, so the board at that ref is
    closed (it stays in git history) and the current board starts its own history. Only the
    grading code's release decides this: a board graded by the base branch's code is always
    of the base branch's release.
    """
    major = DATA_VERSION.split(".")[0]
    return bool(board.entries) and all(
        str(e.get("data_version", "")).split(".")[0] != major for e in board.entries)


def _version(text: str) -> tuple[int, ...] | None:
    try:
        return tuple(int(p) for p in text.split("+")[0].split("."))
    except ValueError:
        return None


def earlier_minor(version: object) -> bool:
    """Whether ``version`` is an earlier release of the current major data release (an
    entry graded on it is regraded on this one, not closed)."""
    mine, theirs = _version(DATA_VERSION), _version(str(version))
    return theirs is not None and mine is not None and theirs[0] == mine[0] and theirs < mine


def regrade_base(board: RawBoard) -> bool:
    """Whether every entry of ``board`` was graded on an earlier minor release of this
    major one: the board at that ref is regraded, and all its entries are graded again.
    As for :func:`earlier_release`, only the grading code's release decides it."""
    return bool(board.entries) and all(earlier_minor(e.get("data_version"))
                                       for e in board.entries)


def _skip_space(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WHITESPACE:
        i += 1
    return i


@functools.lru_cache(maxsize=2)
def entry_rows(data: bytes) -> list[bytes]:
    """The raw bytes of each element of the board document's ``entries`` array, exactly
    as they stand in ``data`` (a document :func:`.store.parse_board` has accepted)."""
    text = data.decode("utf-8")
    decoder = json.JSONDecoder()
    rows: list[bytes] = []
    i = _skip_space(text, 0) + 1  # past the document's "{"
    while (i := _skip_space(text, i)) < len(text) and text[i] != "}":
        key, i = decoder.raw_decode(text, i)
        i = _skip_space(text, _skip_space(text, i) + 1)  # past the ":"
        if key != "entries":
            _, i = decoder.raw_decode(text, i)
        else:
            rows, i = [], i + 1  # past the "["
            while (i := _skip_space(text, i)) < len(text) and text[i] != "]":
                _, end = decoder.raw_decode(text, i)
                rows.append(text[i:end].encode("utf-8"))
                i = _skip_space(text, end)
                i += text[i] == ","
            i += 1  # past the "]"
        i = _skip_space(text, i)
        i += text[i] == ","
    return rows


def _exact(value: Any) -> str:
    """A value's JSON text, telling 40 from 40.0 and 0.0 from -0.0 (for field names)."""
    return json.dumps(value, sort_keys=True)


def _label(entry: dict) -> str:
    return (f"{entry.get('model_name')} {entry.get('package_version')} on "
            f"{entry.get('variant_name')} seed {entry.get('seed')}")


def _row_change(old_row: bytes, new_row: bytes, old: Any, new: Any, regraded: bool = False
                ) -> str | None:
    """How a base row changed in the new board, or None when it is kept (byte for byte, or
    stored at an older schema version and now exactly its migration; on a ``regraded``
    base, every field but the graded ones the same value)."""
    if old_row == new_row:
        return None
    if isinstance(old, dict) and isinstance(new, dict):
        if regraded:
            changed = sorted(k for k in set(old) | set(new)
                             if k not in GRADED and _exact(old.get(k)) != _exact(new.get(k)))
            return f"changed: {', '.join(changed)} (a regrade keeps them)" if changed else None
        if old.get("schema_version") != SCHEMA_VERSION and (
                new.get("schema_version") == SCHEMA_VERSION):
            try:
                migrated = migrate_leaderboard_entries([old])[0]
            except InvalidInputError:
                migrated = None
            if migrated is not None and _exact(migrated) == _exact(new):
                return None
            old = migrated if migrated is not None else old
        changed = sorted(k for k in set(old) | set(new)
                         if _exact(old.get(k)) != _exact(new.get(k)))
        if changed:
            return f"changed: {', '.join(changed)}"
    return "changed: the bytes of its row (same values, written differently)"


@dataclass(frozen=True)
class BaseBoard:
    """The board at a git ref, read once (the history check and ``verify --base`` share it):
    where it lives, its commit, its two files' bytes and the parsed JSON."""

    ref: str
    top: Path
    prefix: str
    commit: str
    data: bytes
    csv: bytes | None
    board: RawBoard
    #: every entry graded on an earlier minor release: each is graded again (:func:`regrade_base`)
    regrade: bool = False

    def path(self, name: str) -> str:
        """``name`` (relative to the board folder) as a path from the repository's top."""
        return f"{self.prefix}/{name}" if self.prefix != "." else name

    @functools.cached_property
    def rows(self) -> list[bytes]:
        return entry_rows(self.data)


def read_base(folder: Path, ref: str) -> BaseBoard | None:
    """The board at git ref ``ref`` in the repository holding ``folder`` (None where there
    was none, or one of an earlier major release, which starts a new board)."""
    top, prefix = repository(Path(folder))
    commit = resolve_commit(top, ref)
    with blobs(top, commit) as files:
        at = f"{prefix}/" if prefix != "." else ""
        data = files.read(at + JSON_NAME, MAX_BOARD_BYTES)
        if data is None:
            return None
        csv = files.read(at + CSV_NAME, MAX_BOARD_BYTES)
    board = parse_board(data, f"{at}{JSON_NAME} at {commit[:12]}")
    if earlier_release(board):
        return None  # a new major data release starts a new board (docs/leaderboard.md)
    return BaseBoard(ref, top, prefix, commit, data, csv, board, regrade_base(board))


def verified_rows(base: BaseBoard | None, current: bytes) -> int:
    """How many leading rows of the board document ``current`` are the base board's rows,
    byte for byte: rows verified when they merged, that need no checking again."""
    if base is None or base.regrade:
        return 0
    if _appended_only(base.data, current):
        return len(base.board.entries)
    count = 0
    for old, new in zip(base.rows, entry_rows(current), strict=False):
        if old != new:
            break
        count += 1
    return count


_WRITER_END = JSON_END.encode("ascii")


def _appended_only(old: bytes, new: bytes) -> bool:
    """Whether ``new`` holds ``old``'s rows byte for byte at its start, told without
    splitting either into rows: ``old`` is laid out as a writer leaves it, and ``new`` starts
    with everything of it up to its last row's end, followed by a ``,`` (more rows) or by
    the same end."""
    if not old.endswith(_WRITER_END) or old.endswith(b"[" + _WRITER_END):
        return False
    cut = len(old) - len(_WRITER_END)
    return new.startswith(old[:cut]) and (new[cut:cut + 1] == b","
                                          or new[cut:] == _WRITER_END)


def history_problems(ref: str, base: BaseBoard | None, folder: Path, now: RawBoard,
                     current: bytes, new_entries: bool = True) -> list[Discrepancy]:
    """How the board in ``folder`` (``now``, parsed from the bytes ``current``) fails to
    extend ``base``, the board at git ref ``ref`` (None: no board there, or a closed one,
    which anything extends); with ``new_entries`` False it may not gain entries either (a
    sealed board checked without its key: only admission, on main, adds sealed entries)."""
    problems = [] if base is None else _changed(base, Path(folder), now, current)
    if new_entries:
        return problems
    return _added(ref, now, 0 if base is None else len(base.board.entries)) + problems


def _added(ref: str, now: RawBoard, before: int) -> list[Discrepancy]:
    return [Discrepancy(f"entry {i} ({_label(e)})", "history", f"no entry added since {ref}",
                        "added: a sealed entry is added by the CI's admission after the "
                        "merge, never by a pull request (queue the submission instead)")
            for i, e in enumerate(now.entries) if i >= before]


def _same_blobs(base: BaseBoard) -> dict[str, str]:
    """Stored files (paths from the top) whose blob at the base is HEAD's, regular files
    both, when the board's work tree is HEAD's: they need no reading (a PR check on a
    10,000-entry board compares ids, not 10,000 files). Empty otherwise."""
    if not committed_as_is(base.top, base.prefix):
        return {}
    folder = base.path(SUBMISSIONS)
    old, head = tree(base.top, base.commit, folder), tree(base.top, "HEAD", folder)
    return {path: oid for path, (mode, oid) in old.items()
            if mode in REGULAR_MODES and head.get(path) == (mode, oid)}


def _changed(base: BaseBoard, folder: Path, now: RawBoard, current: bytes
             ) -> list[Discrepancy]:
    """How this board fails to extend ``base``: every base row and stored file kept."""
    unchanged = _same_blobs(base)
    kept = _appended_only(base.data, current)
    old_raw, new_raw = base.board.stored, now.stored
    new_rows = [] if kept else entry_rows(current)
    out = []
    at = f"the board at {base.ref}"
    if base.board.tier != now.tier:
        out.append(Discrepancy(JSON_NAME, "tier", f"{base.board.tier} ({at})", now.tier))
    with blobs(base.top, base.commit) as files:
        for i, old in enumerate(base.board.entries):
            label = f"entry {i} ({_label(old)})"
            if i >= len(now.entries):
                out.append(Discrepancy(label, "history", f"present in {at}", "removed"))
                continue
            change = None if kept else _row_change(base.rows[i], new_rows[i], old_raw[i],
                                                   new_raw[i], base.regrade)
            if change is not None:
                out.append(Discrepancy(label, "history", f"as in {at}", change))
                continue
            stored = old_raw[i].get("submission_path")
            if (problem := path_problem(stored)) is not None:
                out.append(Discrepancy(label, "history", f"a stored file in {at}", problem))
                continue
            if base.path(stored) in unchanged:
                continue  # the same blob at the base and in HEAD, and the work tree is HEAD's
            old_bytes = files.read(base.path(stored), DEFAULT_MAX_BYTES)
            try:
                new_bytes: bytes | None = untrusted.read_regular(
                    inside(folder, now.entries[i].get("submission_path")), DEFAULT_MAX_BYTES,
                    follow_symlinks=False)
            except (OSError, InvalidInputError, untrusted.InputProblem):
                new_bytes = None
            if _sha(old_bytes) != _sha(new_bytes):
                out.append(Discrepancy(label, "history", f"stored file as in {at} "
                                       f"({_sha(old_bytes)})", f"now {_sha(new_bytes)}"))
    return out
