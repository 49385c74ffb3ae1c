"""``ICGBENCH_HOME`` is the per-user data home and ``ICGBENCH_RELEASE`` the release root.

An empty or missing data home never breaks a command: every command below runs, through
the ``icgbench`` command in a subprocess, with ``ICGBENCH_HOME`` set to an empty folder
and the current folder outside the repository.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from icgbench.errors import UsageError
from icgbench.release import archive, download
from icgbench.release.locate import release_root
from release_helpers import served

ROOT = Path(__file__).resolve().parents[1]
SUBMISSION = ROOT / "leaderboard/submissions/mbcnet_v0_1/0.6.0/linear_lowhet__seed4.json.gz"


@pytest.fixture()
def empty_home(tmp_path, monkeypatch) -> Path:
    """An empty ``ICGBENCH_HOME``, no ``ICGBENCH_RELEASE``, and a current folder outside the
    repository (so the release found is the source checkout's)."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("ICGBENCH_HOME", str(home))
    monkeypatch.delenv("ICGBENCH_RELEASE", raising=False)
    monkeypatch.delenv(download.MIRRORS_ENV, raising=False)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return home


def icgbench(*argv: str | Path) -> subprocess.CompletedProcess[str]:
    """``icgbench ARGV`` in a subprocess with this process's environment and folder."""
    return subprocess.run([sys.executable, "-m", "icgbench", *map(str, argv)],
                          capture_output=True, text=True, timeout=300, check=False,
                          env=dict(os.environ))


def test_an_empty_or_missing_home_is_not_a_release(empty_home, monkeypatch):
    assert release_root() == ROOT
    monkeypatch.setenv("ICGBENCH_HOME", str(empty_home / "not" / "there"))
    assert release_root() == ROOT


def test_a_home_holding_a_release_is_still_the_release(empty_home):
    shutil.copyfile(ROOT / "datapackage.json", empty_home / "datapackage.json")
    assert release_root() == empty_home


def test_a_home_holding_another_datapackage_says_what_the_variables_mean(empty_home):
    (empty_home / "datapackage.json").write_text('{"name": "someone-else"}')
    with pytest.raises(UsageError, match=r"ICGBENCH_HOME is the data home .*ICGBENCH_RELEASE"):
        release_root()


def test_icgbench_release_names_the_release_root(tmp_path, empty_home, monkeypatch):
    release = tmp_path / "release"
    release.mkdir()
    monkeypatch.setenv("ICGBENCH_RELEASE", str(release))
    with pytest.raises(UsageError, match=re.escape(f"ICGBENCH_RELEASE={release} does not hold")):
        release_root()
    shutil.copyfile(ROOT / "datapackage.json", release / "datapackage.json")
    assert release_root() == release


@pytest.mark.slow
def test_data_list_runs_with_an_empty_home(empty_home):
    small = icgbench("data", "list")
    assert small.returncode == 0, small.stderr
    assert small.stdout.rstrip().endswith("tables present") and not small.stderr
    full = icgbench("data", "list", "--tier", "full")
    assert (full.returncode == 0 and not full.stderr) or (
        full.returncode == 1 and "the full tier is incomplete: build it with" in full.stderr
        and "Traceback" not in full.stderr), full.stderr
    assert not any(empty_home.iterdir())  # listing writes nothing into the data home


@pytest.mark.slow
def test_validate_and_score_run_with_an_empty_home(empty_home, full_tier_root, tmp_path):
    valid = icgbench("validate", SUBMISSION)
    assert valid.returncode == 0 and valid.stdout.startswith("VALID"), valid.stderr
    report = tmp_path / "report.json"
    scored = icgbench("score", SUBMISSION, "--out", report)
    assert scored.returncode == 0 and report.is_file(), scored.stderr


@pytest.fixture()
def small_archive_url(tmp_path) -> Iterator[str]:
    """The committed small tier packed and served over HTTP on 127.0.0.1."""
    from icgbench.api.tables import tier_descriptor

    www = tmp_path / "www"
    www.mkdir()
    archive.pack(tier_descriptor("small", ROOT), www / "small.tar.gz")
    with served(www) as url:
        yield f"{url}/small.tar.gz"


@pytest.mark.slow
def test_data_download_caches_in_an_empty_home(empty_home, small_archive_url, tmp_path):
    dest = tmp_path / "dest"
    first = icgbench("data", "download", "--tier", "small", "--url", small_archive_url,
                     "--outdir", dest)
    assert first.returncode == 0, first.stderr
    files = len(json.loads((ROOT / "datapackage.json").read_text())["resources"])
    assert first.stdout.startswith(f"downloaded and verified {files} files of the small tier "
                                   f"from {small_archive_url} into {dest}")
    [cached] = (empty_home / "cache").iterdir()
    again = icgbench("data", "download", "--tier", "small", "--url", small_archive_url,
                     "--outdir", tmp_path / "again")
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith(f"using the cached archive {cached} (already downloaded "
                                   f"from {small_archive_url})")


def test_data_download_without_a_source_says_what_to_do(empty_home):
    result = icgbench("data", "download", "--tier", "small", "--outdir", empty_home / "dest")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "small tier of release" in result.stderr
    assert "lists no mirrors and ICGBENCH_MIRRORS is not set: pass --url" in result.stderr
