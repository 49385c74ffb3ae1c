"""The board's git repository, read without running anything in it.

Every call runs ``git`` with a fixed, hardened environment (no system or global config, no
prompt, the C locale, replace refs ignored) and options that switch off every program a
repository's own configuration could name (``core.fsmonitor``, hooks, external diff and
text conversion, the untracked cache), and reads objects with ``git cat-file`` only: the
repository may come from a stranger's pull request, and nothing in it is run. Index flags
that make git skip a file (``assume-unchanged``, ``skip-worktree``) are never trusted.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from icgbench.errors import InvalidInputError, UsageError

_GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_NO_REPLACE_OBJECTS": "1", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C",
            "GIT_EXTERNAL_DIFF": "", "GIT_PAGER": "cat"}
#: Configuration that names no program: passed before every git command (it overrides the
#: repository's own ``.git/config``).
GIT_SAFE = ("-c", "core.fsmonitor=false", "-c", f"core.hooksPath={os.devnull}",
            "-c", "core.untrackedCache=false", "-c", "diff.external=",
            "-c", "diff.noprefix=false", "-c", "core.pager=cat")


def git_command(*args: str) -> list[str]:
    """The argv of ``git ARGS``, hardened (:data:`GIT_SAFE`)."""
    return ["git", *GIT_SAFE, *args]


def run_git(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """``git ARGS`` in ``cwd``, hardened, output captured (a usage error without git)."""
    try:
        return subprocess.run(git_command(*args), cwd=cwd, capture_output=True, check=False,
                              env={**os.environ, **_GIT_ENV}, timeout=120)
    except FileNotFoundError:
        raise UsageError("reading the board's history needs git, which is not installed"
                         ) from None


def repository(folder: Path) -> tuple[Path, str]:
    """(top level of the git work tree holding ``folder``, ``folder``'s path inside it)."""
    found = run_git(folder, "rev-parse", "--show-toplevel")
    if found.returncode != 0:
        raise UsageError(f"--base needs the board folder {folder} to be inside a git "
                         "repository")
    top = Path(found.stdout.decode().strip()).resolve()
    prefix = folder.resolve().relative_to(top).as_posix()
    if "\n" in prefix:
        raise UsageError(f"--base cannot read a board folder whose path holds a line break "
                         f"({prefix!r})")
    return top, prefix


def resolve_commit(top: Path, ref: str) -> str:
    """The commit id ``ref`` names in the repository at ``top`` (a usage error if none)."""
    if ref.startswith("-"):
        raise UsageError(f"--base {ref!r} is not a git ref")
    found = run_git(top, "rev-parse", "--verify", "--quiet", "--end-of-options",
                    f"{ref}^{{commit}}")
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
        process = subprocess.Popen(git_command("cat-file", "--batch"), cwd=top,
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, env={**os.environ, **_GIT_ENV})
    except FileNotFoundError:
        raise UsageError("reading the board's history needs git, which is not installed"
                         ) from None
    try:
        yield Blobs(process, commit)
    finally:
        if process.stdin is not None:
            process.stdin.close()
        if process.stdout is not None:
            process.stdout.close()
        process.wait(timeout=120)




#: Git's modes of a regular file (not a link, not a submodule).
REGULAR_MODES = frozenset({"100644", "100755"})


def tree(top: Path, commit: str, path: str) -> dict[str, tuple[str, str]]:
    """path -> (mode, object id) of every file under ``path`` at ``commit`` (empty when
    git cannot list it: the caller then compares bytes)."""
    done = run_git(top, "ls-tree", "-r", "-z", "--full-tree", commit, "--", path)
    if done.returncode != 0:
        return {}
    out = {}
    for item in done.stdout.split(b"\0"):
        meta, _, name = item.partition(b"\t")
        fields = meta.decode("ascii", errors="replace").split(" ")
        if name and len(fields) == 3:
            out[name.decode("utf-8", errors="surrogateescape")] = (fields[0], fields[2])
    return out


def committed_as_is(top: Path, *paths: str) -> bool:
    """True when the work tree under ``path`` is HEAD's: nothing modified, staged, deleted
    or untracked, and no file that git was told to skip (``assume-unchanged`` or
    ``skip-worktree``: git would not look at it). Then a file's bytes are those of its
    blob in HEAD."""
    flags = run_git(top, "ls-files", "-v", "-z", "--", *paths)
    if flags.returncode != 0 or any(item[:1].islower() or item[:1] == b"S"
                                    for item in flags.stdout.split(b"\0") if item):
        return False
    done = run_git(top, "status", "--porcelain", "-z", "--untracked-files=all",
                   "--ignored=matching", "--no-renames", "--", *paths)
    return done.returncode == 0 and not done.stdout


def committed_files(folder: Path, names: tuple[str, ...]) -> bool:
    """True when every file ``names`` in ``folder`` is tracked by git and the work tree holds
    exactly HEAD's version of it (False outside a repository, or without git)."""
    try:
        top, prefix = repository(folder)
    except UsageError:
        return False
    paths = [f"{prefix}/{n}" if prefix != "." else n for n in names]
    tracked = run_git(top, "ls-files", "-z", "--error-unmatch", "--", *paths)
    return tracked.returncode == 0 and committed_as_is(top, *paths)
