"""A pip user's release (release/user_release.py): the wheel's descriptors copied into the
data home, and the small tier built there only when one of its files is missing. The real
trip, from a built wheel in a fresh venv, is tests/test_wheel_install.py (slow)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT
from icgbench.release import user_release
from icgbench.release.tiers import DATA_VERSION


@pytest.fixture
def packaged(tmp_path, monkeypatch):
    folder = tmp_path / "descriptors"
    for relative in user_release.DESCRIPTORS:
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / relative, folder / relative)
    monkeypatch.setattr(user_release, "PACKAGED", folder)
    built = []

    def build(argv, env, **_):
        built.append((argv[-4:], Path(env["ICGBENCH_RELEASE"])))
        return subprocess.CompletedProcess(argv, 0)

    monkeypatch.setattr(user_release.subprocess, "run", build)
    return tmp_path / "home", built


def test_the_descriptors_are_installed_and_a_complete_small_tier_is_not_rebuilt(packaged):
    home, built = packaged
    root = home / f"release-{DATA_VERSION}"
    (root / "datasets").mkdir(parents=True)
    (root / "datasets" / "small").symlink_to(ROOT / "datasets" / "small")
    assert user_release.user_release(home) == root
    for relative in user_release.DESCRIPTORS:
        assert (root / relative).read_bytes() == (ROOT / relative).read_bytes()
    assert built == []


def test_a_missing_small_tier_file_is_built_by_the_command_and_said(packaged, capsys):
    home, built = packaged
    root = home / f"release-{DATA_VERSION}"
    assert user_release.user_release(home) == root
    assert built == [(["data", "build", "--tier", "small"], root)]
    assert f"regenerating the small tier from the code into {root}" in capsys.readouterr().err


def test_a_source_checkout_has_no_user_release(monkeypatch, tmp_path):
    monkeypatch.setattr(user_release, "PACKAGED", tmp_path / "absent")
    assert user_release.user_release(tmp_path) is None
