"""Scored submissions for leaderboard tests (small tier, built once per session)."""

from __future__ import annotations

import functools
import gzip
import json
import shutil
from pathlib import Path

from icgbench.models import CohortData, get_model


@functools.lru_cache(maxsize=16)
def _submission(model: str, variant: str) -> str:
    data = CohortData.load(variant)
    m = get_model(model)
    m.fit(data)
    return json.dumps(m.submission(data))


def submission_file(folder: Path, model: str, variant: str, name: str | None = None) -> Path:
    """A gzip-compressed submission of ``model`` on the small ``variant`` cohort."""
    path = folder / (name or f"{model}__{variant}.json.gz")
    path.write_bytes(gzip.compress(_submission(model, variant).encode(), mtime=0))
    return path


def submission_doc(model: str, variant: str) -> dict:
    return json.loads(_submission(model, variant))


def small_board_copy(board: Path, parent: Path, name: str = "copy") -> Path:
    """A copy of a board folder (without its lock file) to tamper with."""
    target = parent / name
    shutil.copytree(board, target, ignore=shutil.ignore_patterns(".leaderboard.lock"))
    return target
