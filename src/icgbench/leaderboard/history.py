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
releases 2.0.0 and 3.0.0 did).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from icgbench import untrusted
from icgbench.errors import InvalidInputError, UsageError
from icgbench.leaderboard.entry import SCHEMA_VERSION, SUBMISSIONS
from icgbench.leaderboard.files import inside, path_problem
from icgbench.leaderboard.migrations import migrate_leaderboard_entries
from icgbench.leaderboard.store import (
    JSON_NAME,
    MAX_BOARD_BYTES,
    RawBoard,
    parse_board,
    read_json_file,
)
from icgbench.leaderboard.verify import Discrepancy
from icgbench.release.tiers import DATA_VERSION
from icgbench.scorer.parse import DEFAULT_MAX_BYTES

_GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
_WHITESPACE = " \t\n\r"


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False,
                              env={**os.environ, **_GIT_ENV}, timeout=120)
    except FileNotFoundError:
        raise UsageError("--base needs git, which is not installed") from None


def _repository(folder: Path) -> tuple[Path, str]:
    """(top level of the git work tree holding ``folder``, ``folder``'s path inside it)."""
    found = _git(folder, "rev-parse", "--show-toplevel")
    if found.returncode != 0:
        raise UsageError(f"--base needs the board folder {folder} to be inside a git "
                         "repository")
    top = Path(found.stdout.decode().strip()).resolve()
    prefix = folder.resolve().relative_to(top).as_posix()
    if "\n" in prefix:
        raise UsageError(f"--base cannot read a board folder whose path holds a line break "
                         f"({prefix!r})")
    return top, prefix


def _commit(top: Path, ref: str) -> str:
    if ref.startswith("-"):
        raise UsageError(f"--base {ref!r} is not a git ref")
    found = _git(top, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}")
    if found.returncode != 0:
        raise UsageError(f"--base {ref!r}: no such commit in {top}")
    return found.stdout.decode().strip()


class Blobs:
    """Files of one commit, read through one ``git cat-file --batch`` process."""

    def __init__(self, process: subprocess.Popen, commit: str) -> None:
        self.process = process
        self.commit = commit

    def read(self, path: str, limit: int) -> bytes | None:
        """The bytes of ``path`` at the commit (None when it does not exist there)."""
        stdin, stdout = self._pipes()
        stdin.write(f"{self.commit}:{path}\n".encode())
        stdin.flush()
        header = stdout.readline().rstrip(b"\n")
        if header.endswith((b" missing", b" ambiguous")) or header.count(b" ") != 2:
            return None  # not in the commit
        _, kind, size_text = header.decode("ascii", errors="replace").split(" ")
        size = int(size_text)
        if size > limit or kind != "blob":
            _skip(stdout, size + 1)
            what = "not a file" if kind != "blob" else f"over {limit} bytes"
            raise InvalidInputError(f"{path} at {self.commit[:12]} is {what}")
        data = stdout.read(size)
        stdout.read(1)  # the newline after each object
        return data

    def _pipes(self) -> tuple[IO[bytes], IO[bytes]]:
        assert self.process.stdin is not None and self.process.stdout is not None
        return self.process.stdin, self.process.stdout


def _skip(stream: IO[bytes], count: int) -> None:
    while count > 0 and (chunk := stream.read(min(count, 1 << 20))):
        count -= len(chunk)


@contextmanager
def blobs(top: Path, commit: str) -> Iterator[Blobs]:
    """A :class:`Blobs` reader of ``commit`` in the repository at ``top``."""
    try:
        process = subprocess.Popen(["git", "cat-file", "--batch"], cwd=top,
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, env={**os.environ, **_GIT_ENV})
    except FileNotFoundError:
        raise UsageError("--base needs git, which is not installed") from None
    try:
        yield Blobs(process, commit)
    finally:
        if process.stdin is not None:
            process.stdin.close()
        if process.stdout is not None:
            process.stdout.close()
        process.wait(timeout=120)


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


def _skip_space(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WHITESPACE:
        i += 1
    return i


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


def _row_change(old_row: bytes, new_row: bytes, old: Any, new: Any) -> str | None:
    """How a base row changed in the new board, or None when it is kept (byte for byte, or
    stored at an older schema version and now exactly its migration)."""
    if old_row == new_row:
        return None
    if isinstance(old, dict) and isinstance(new, dict):
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


def history_problems(folder: Path, ref: str, now: RawBoard, new_entries: bool = True
                     ) -> list[Discrepancy]:
    """How the board in ``folder`` fails to extend the board at git ref ``ref``; with
    ``new_entries`` False it may not gain entries either (a sealed board checked without
    its key: only admission, on main, adds sealed entries)."""
    before, problems = _changed(folder, ref, now)
    return problems if new_entries else _added(ref, now, before) + problems


def _added(ref: str, now: RawBoard, before: int) -> list[Discrepancy]:
    return [Discrepancy(f"entry {i} ({_label(e)})", "history", f"no entry added since {ref}",
                        "added: a sealed entry is added by the CI's admission after the "
                        "merge, never by a pull request (queue the submission instead)")
            for i, e in enumerate(now.entries) if i >= before]


def _board_at(folder: Path, ref: str) -> RawBoard | None:
    """The board at git ref ``ref`` (None where there was none)."""
    top, prefix = _repository(folder)
    with blobs(top, _commit(top, ref)) as base:
        data = base.read(f"{prefix}/{JSON_NAME}" if prefix != "." else JSON_NAME,
                         MAX_BOARD_BYTES)
    return None if data is None else parse_board(data, f"{JSON_NAME} at {ref}")


def unchanged_prefix(folder: Path, ref: str) -> int:
    """How many leading entries the history check holds to the board at ``ref``, byte for
    byte (0 where there was no board, or one of an earlier major release, which starts a new
    board): entries that were verified when they merged and need no re-grading."""
    before = _board_at(folder, ref)
    return 0 if before is None or earlier_release(before) else len(before.entries)


#: Git's modes of a regular file (not a link, not a submodule).
REGULAR_MODES = frozenset({"100644", "100755"})


def _tree(top: Path, commit: str, path: str) -> dict[str, tuple[str, str]]:
    """path -> (mode, object id) of every file under ``path`` at ``commit`` (empty when
    git cannot list it: the caller then compares bytes)."""
    done = _git(top, "ls-tree", "-r", "-z", "--full-tree", commit, "--", path)
    if done.returncode != 0:
        return {}
    out = {}
    for item in done.stdout.split(b"\0"):
        meta, _, name = item.partition(b"\t")
        fields = meta.decode("ascii", errors="replace").split(" ")
        if name and len(fields) == 3:
            out[name.decode("utf-8", errors="surrogateescape")] = (fields[0], fields[2])
    return out


def _committed_as_is(top: Path, path: str) -> bool:
    """True when the work tree under ``path`` is HEAD's: nothing modified, staged, deleted
    or untracked. Then a file's bytes are those of its blob in HEAD."""
    done = _git(top, "status", "--porcelain", "-z", "--untracked-files=all",
                "--ignored=matching", "--", path)
    return done.returncode == 0 and not done.stdout


def _same_blobs(top: Path, commit: str, prefix: str) -> dict[str, str]:
    """Stored files (paths from the top) whose blob at ``commit`` is HEAD's, regular files
    both, when the board's work tree is HEAD's: they need no reading (a PR check on a
    10,000-entry board compares ids, not 10,000 files). Empty otherwise."""
    folder = f"{prefix}/{SUBMISSIONS}" if prefix != "." else SUBMISSIONS
    if not _committed_as_is(top, prefix):
        return {}
    base, head = _tree(top, commit, folder), _tree(top, "HEAD", folder)
    return {path: oid for path, (mode, oid) in base.items()
            if mode in REGULAR_MODES and head.get(path) == (mode, oid)}


def _changed(folder: Path, ref: str, now: RawBoard) -> tuple[int, list[Discrepancy]]:
    """(entries of the board at ``ref`` that this board continues: 0 for none or a board of
    an earlier major release, which starts a new one; how this board fails to extend it)."""
    folder = Path(folder)
    top, prefix = _repository(folder)
    commit = _commit(top, ref)

    def at_base(path: str) -> str:
        return f"{prefix}/{path}" if prefix != "." else path

    unchanged = _same_blobs(top, commit, prefix)

    with blobs(top, commit) as base:
        data = base.read(at_base(JSON_NAME), MAX_BOARD_BYTES)
        if data is None:
            return 0, []  # no board at the base: anything extends it
        before = parse_board(data, f"{at_base(JSON_NAME)} at {commit[:12]}")
        if earlier_release(before):
            return 0, []  # a new major data release starts a new board (docs/leaderboard.md)
        current = read_json_file(folder) or b""
        old_raw = untrusted.loads(data)["entries"]
        new_raw = untrusted.loads(current)["entries"]
        old_rows, new_rows = entry_rows(data), entry_rows(current)
        out = []
        at = f"the board at {ref}"
        if before.tier != now.tier:
            out.append(Discrepancy(JSON_NAME, "tier", f"{before.tier} ({at})", now.tier))
        for i, old in enumerate(before.entries):
            label = f"entry {i} ({_label(old)})"
            if i >= len(now.entries):
                out.append(Discrepancy(label, "history", f"present in {at}", "removed"))
                continue
            change = _row_change(old_rows[i], new_rows[i], old_raw[i], new_raw[i])
            if change is not None:
                out.append(Discrepancy(label, "history", f"as in {at}", change))
                continue
            stored = old_raw[i].get("submission_path")
            if (problem := path_problem(stored)) is not None:
                out.append(Discrepancy(label, "history", f"a stored file in {at}", problem))
                continue
            if at_base(stored) in unchanged:
                continue  # the same blob at the base and in HEAD, and the work tree is HEAD's
            old_bytes = base.read(at_base(stored), DEFAULT_MAX_BYTES)
            try:
                new_bytes: bytes | None = untrusted.read_regular(
                    inside(folder, now.entries[i].get("submission_path")), DEFAULT_MAX_BYTES,
                    follow_symlinks=False)
            except (OSError, InvalidInputError, untrusted.InputProblem):
                new_bytes = None
            if _sha(old_bytes) != _sha(new_bytes):
                out.append(Discrepancy(label, "history", f"stored file as in {at} "
                                       f"({_sha(old_bytes)})", f"now {_sha(new_bytes)}"))
    return len(before.entries), out
