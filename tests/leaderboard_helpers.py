"""Scored submissions for leaderboard tests (small tier, built once per session)."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

from conftest import reference_submission


def submission_file(folder: Path, model: str, variant: str, name: str | None = None) -> Path:
    """A gzip-compressed submission of ``model`` on the small ``variant`` cohort."""
    path = folder / (name or f"{model}__{variant}.json.gz")
    path.write_bytes(gzip.compress(reference_submission(model, variant).encode(), mtime=0))
    return path


def submission_doc(model: str, variant: str) -> dict:
    return json.loads(reference_submission(model, variant))


def small_board_copy(board: Path, parent: Path, name: str = "copy") -> Path:
    """A copy of a board folder (without its lock file) to tamper with."""
    target = parent / name
    shutil.copytree(board, target, ignore=shutil.ignore_patterns(".leaderboard.lock"))
    return target


def two_entry_board(tmp_path_factory) -> Path:
    """A small-tier board of random and logistic_direct on linear_lowhet, added for real."""
    from icgbench.leaderboard.board import add

    folder = tmp_path_factory.mktemp("board")
    staging = tmp_path_factory.mktemp("incoming")
    for model in ("random", "logistic_direct"):
        add(submission_file(staging, model, "linear_lowhet"), folder, notes="base",
            tier="small")
    return folder


def two_entry_repository(tmp_path_factory) -> tuple[Path, Path]:
    """A git repository (no commit yet) whose ``leaderboard`` folder holds the two-entry
    board of :func:`two_entry_board`, and the staging folder of its submissions."""
    from git_helpers import git
    from icgbench.leaderboard.board import add

    repo = tmp_path_factory.mktemp("repo")
    git(repo, "init", "-q", "-b", "main")
    staging = tmp_path_factory.mktemp("incoming")
    for model in ("random", "logistic_direct"):
        add(submission_file(staging, model, "linear_lowhet"), repo / "leaderboard",
            notes="base", tier="small")
    return repo, staging
