"""A board's history: the board at a git ref must be a prefix of the board now.

The board is append-only, so the board at the pull request's base must reappear, unchanged,
at the start of the new one: the same entries in the same order, every field equal (after
migrating both to the current schema version, the one time rows are rewritten), and every
stored file byte for byte. A pull request that deletes another model's rows, replaces a
submission together with its recorded scores, edits notes or timestamps, reorders rows or
empties the board fails here even though its end state re-scores cleanly.

The ref is resolved in the git repository that holds the board folder, and the board is
read at the same path inside it, with ``git cat-file`` only: nothing in the repository is
run. A board whose every entry was graded on an earlier major data release is closed:
the current board starts a new history (as releases 2.0.0 and 3.0.0 did).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

from icgbench import untrusted
from icgbench.errors import InvalidInputError, UsageError
from icgbench.leaderboard.store import (
    JSON_NAME,
    MAX_BOARD_BYTES,
    RawBoard,
    parse_board,
    stored_paths,
)
from icgbench.leaderboard.verify import Discrepancy
from icgbench.release.tiers import DATA_VERSION
from icgbench.scorer.parse import DEFAULT_MAX_BYTES

_GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}


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
    return top, folder.resolve().relative_to(top).as_posix()


def _commit(top: Path, ref: str) -> str:
    if ref.startswith("-"):
        raise UsageError(f"--base {ref!r} is not a git ref")
    found = _git(top, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}")
    if found.returncode != 0:
        raise UsageError(f"--base {ref!r}: no such commit in {top}")
    return found.stdout.decode().strip()


def _blob(top: Path, commit: str, path: str, limit: int) -> bytes | None:
    """The bytes of ``path`` at ``commit`` (None when it does not exist there)."""
    spec = f"{commit}:{path}"
    kind = _git(top, "cat-file", "-t", spec)
    if kind.returncode != 0:
        return None
    if kind.stdout.strip() != b"blob":
        raise InvalidInputError(f"{path} at {commit[:12]} is not a file")
    size = int(_git(top, "cat-file", "-s", spec).stdout.strip() or 0)
    if size > limit:
        raise InvalidInputError(f"{path} at {commit[:12]} is over {limit} bytes")
    return _git(top, "cat-file", "blob", spec).stdout


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


def _label(entry: dict) -> str:
    return (f"{entry.get('model_name')} {entry.get('package_version')} on "
            f"{entry.get('variant_name')} seed {entry.get('seed')}")


def history_problems(folder: Path, ref: str, now: RawBoard) -> list[Discrepancy]:
    """How the board in ``folder`` fails to extend the board at git ref ``ref``."""
    folder = Path(folder)
    top, prefix = _repository(folder)
    commit = _commit(top, ref)
    where = f"{prefix}/{JSON_NAME}" if prefix != "." else JSON_NAME
    data = _blob(top, commit, where, MAX_BOARD_BYTES)
    if data is None:
        return []  # no board at the base: anything extends it
    before = parse_board(data, f"{where} at {commit[:12]}")
    if earlier_release(before):
        return []  # a new major data release starts a new board (see docs/leaderboard.md)
    paths = stored_paths(data)
    out = []
    at = f"the board at {ref}"
    if before.tier != now.tier:
        out.append(Discrepancy(JSON_NAME, "tier", f"{before.tier} ({at})", now.tier))
    for i, old in enumerate(before.entries):
        label = f"entry {i} ({_label(old)})"
        if i >= len(now.entries):
            out.append(Discrepancy(label, "history", f"present in {at}", "removed"))
            continue
        new = now.entries[i]
        changed = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
        if changed:
            out.append(Discrepancy(label, "history", f"as in {at}",
                                   f"changed: {', '.join(changed)}"))
            continue
        stored = paths[i]
        old_bytes = None if stored is None else _blob(
            top, commit, f"{prefix}/{stored}" if prefix != "." else stored, DEFAULT_MAX_BYTES)
        try:
            new_bytes = untrusted.read_regular(folder / new["submission_path"],
                                               DEFAULT_MAX_BYTES, follow_symlinks=False)
        except (OSError, untrusted.InputProblem):
            new_bytes = None
        if _sha(old_bytes) != _sha(new_bytes):
            out.append(Discrepancy(label, "history", f"stored file as in {at} "
                                   f"({_sha(old_bytes)})", f"now {_sha(new_bytes)}"))
    return out
