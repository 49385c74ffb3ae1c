"""The board's git repository, read without running anything in it.

Every git command of the package and of ``tools/ci`` runs through :func:`git_command` (the
scripts call ``python -m icgbench.leaderboard.gitrepo -C REPO ARGS``): a fixed, hardened
environment (no system or global config, no prompt, the C locale, replace refs ignored,
the repository's directory and work tree given explicitly, so a ``core.worktree`` of the
repository's own cannot point git elsewhere) and options that switch off every program a
repository's configuration could name: ``core.fsmonitor``, hooks, the pager, external
diff, and each filter (clean, smudge, long-running process), text conversion and merge
driver the repository's configuration defines, read from that configuration (and what it
includes) and overridden with an empty value. Objects are read with ``git cat-file``
only. The repository may come from a stranger's pull request, and nothing in it is run.
Index flags that make git skip a file (``assume-unchanged``, ``skip-worktree``) are never
trusted.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from icgbench.errors import InvalidInputError, UsageError

_GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_NO_REPLACE_OBJECTS": "1", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C",
            "GIT_EXTERNAL_DIFF": "", "GIT_PAGER": "cat", "GIT_ATTR_NOSYSTEM": "1"}
#: Configuration that names no program: passed before every git command (it overrides the
#: repository's own ``.git/config``).
GIT_SAFE = ("-c", "core.fsmonitor=false", "-c", f"core.hooksPath={os.devnull}",
            "-c", "core.untrackedCache=false", "-c", "diff.external=",
            "-c", "diff.noprefix=false", "-c", "core.pager=cat",
            "-c", f"core.attributesFile={os.devnull}")
#: The repository configuration keys that name a program, per driver: each one a
#: repository defines is overridden with an empty value (a filter also made optional).
_DRIVER_KEYS = r"^(filter|diff|merge)\..+\.(clean|smudge|process|textconv|command|driver)$"


def _git_dir(top: Path) -> Path | None:
    """The git directory of the work tree at ``top`` (``.git``, or where a ``.git`` file of
    a linked work tree points), None where ``top`` holds neither."""
    dot = top / ".git"
    if dot.is_dir() and not dot.is_symlink():
        return dot
    if dot.is_file() and not dot.is_symlink():
        text = dot.read_text(encoding="utf-8", errors="replace").strip()
        if text.startswith("gitdir: "):
            return (top / text.removeprefix("gitdir: ")).resolve()
    return None


def work_tree(folder: Path) -> Path | None:
    """The nearest folder at or above ``folder`` that holds a git directory."""
    here = Path(folder).resolve()
    return next((p for p in (here, *here.parents) if _git_dir(p) is not None), None)


def _environment(top: Path | None) -> dict[str, str]:
    env = {**os.environ, **_GIT_ENV}
    for key in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
                "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_CONFIG", "GIT_CONFIG_COUNT"):
        env.pop(key, None)
    gitdir = None if top is None else _git_dir(top)
    if gitdir is not None:
        env.update(GIT_DIR=str(gitdir), GIT_WORK_TREE=str(top))
    return env


def _driver_overrides(top: Path | None) -> tuple[str, ...]:
    """``-c KEY=`` for every driver program the repository's configuration names."""
    if top is None:
        return ()
    try:
        found = subprocess.run(["git", *GIT_SAFE, "config", "--includes", "--null",
                                "--get-regexp", _DRIVER_KEYS], cwd=top, capture_output=True,
                               check=False, env=_environment(top), timeout=120)
    except FileNotFoundError:
        return ()
    out: list[str] = []
    for item in found.stdout.split(b"\0"):
        key = item.split(b"\n", 1)[0].decode("utf-8", errors="replace")
        if key:
            out += ["-c", f"{key}="]
            if key.startswith("filter."):
                out += ["-c", f"{key.rsplit('.', 1)[0]}.required=false"]
    return tuple(out)


def git_command(*args: str, top: Path | None = None) -> list[str]:
    """The argv of ``git ARGS``, hardened (:data:`GIT_SAFE`, and the drivers of the
    repository at ``top`` switched off)."""
    return ["git", *GIT_SAFE, *_driver_overrides(top), *args]


def run_git(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """``git ARGS`` in the repository holding ``cwd``, hardened, output captured (a usage
    error without git)."""
    top = work_tree(cwd)
    try:
        return subprocess.run(git_command(*args, top=top), cwd=cwd, capture_output=True,
                              check=False, env=_environment(top), timeout=120)
    except FileNotFoundError:
        raise UsageError("reading the board's history needs git, which is not installed"
                         ) from None


def repository(folder: Path) -> tuple[Path, str]:
    """(top level of the git work tree holding ``folder``, ``folder``'s path inside it)."""
    top = work_tree(folder)
    found = run_git(folder, "rev-parse", "--show-toplevel") if top is not None else None
    if found is None or found.returncode != 0:
        raise UsageError(f"--base needs the board folder {folder} to be inside a git "
                         "repository")
    prefix = Path(folder).resolve().relative_to(top).as_posix()
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
        process = subprocess.Popen(git_command("cat-file", "--batch", top=top), cwd=top,
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, env=_environment(top))
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


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m icgbench.leaderboard.gitrepo [-C REPO] ARGS``: git ARGS in REPO (the
    working folder by default), hardened as every git call of the package is; its output
    and exit code are git's. The ``tools/ci`` scripts run git only through this."""
    args = list(sys.argv[1:] if argv is None else argv)
    cwd = Path.cwd()
    if args[:1] == ["-C"] and len(args) >= 2:
        cwd, args = Path(args[1]), args[2:]
    if not cwd.is_dir():
        from icgbench.io.untrusted import printable

        print(f"gitrepo: {printable(str(cwd))} is not a folder", file=sys.stderr)
        return 2
    top = work_tree(cwd)
    try:
        return subprocess.run(git_command(*args, top=top), cwd=cwd, check=False,
                              env=_environment(top)).returncode
    except FileNotFoundError:
        print("gitrepo: git is not installed", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
