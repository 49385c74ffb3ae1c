"""Git in a temporary repository, for tests that run the CI scripts as CI does.

Imports nothing from icgbench, so the CI checks run whatever state the package is in.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "commit.gpgsign=false"]


def git(repo: Path, *args: str) -> str:
    """Run git in ``repo``; its standard output, stripped."""
    return subprocess.run([*GIT, *args], cwd=repo, check=True, capture_output=True,
                          text=True).stdout.strip()


def commit(repo: Path, message: str) -> str:
    """Commit everything in ``repo``; the new commit's SHA."""
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def cloned(repo: Path, target: Path) -> Path:
    """A fresh clone of ``repo`` at ``target``."""
    subprocess.run(["git", "clone", "-q", str(repo), str(target)], check=True)
    return target
