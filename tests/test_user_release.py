"""A pip user's release (release/user_release.py): the wheel's descriptors copied into the
data home, and the small tier built there only when one of its files is missing. The real
trip, from a built wheel in a fresh venv, is tests/test_wheel_install.py (slow)."""

from __future__ import annotations

import shutil

import pytest

from conftest import ROOT
from icgbench.release import freeze, user_release
from icgbench.release.tiers import DATA_VERSION


@pytest.fixture
def packaged(tmp_path, monkeypatch):
    folder = tmp_path / "descriptors"
    for relative in user_release.DESCRIPTORS:
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / relative, folder / relative)
    monkeypatch.setattr(user_release, "PACKAGED", folder)
    monkeypatch.setenv("ICGBENCH_HOME", str(tmp_path / "home"))
    built = []
    monkeypatch.setattr(freeze, "build", lambda tier, root, jobs=1: built.append(root))
    return tmp_path / "home" / f"release-{DATA_VERSION}", built


def test_the_descriptors_are_installed_and_a_complete_small_tier_is_not_rebuilt(packaged):
    root, built = packaged
    (root / "datasets").mkdir(parents=True)
    (root / "datasets" / "small").symlink_to(ROOT / "datasets" / "small")
    assert user_release.user_release() == root
    for relative in user_release.DESCRIPTORS:
        assert (root / relative).read_bytes() == (ROOT / relative).read_bytes()
    assert built == []


def test_a_missing_small_tier_file_is_built_once_and_said(packaged, capsys):
    root, built = packaged
    assert user_release.user_release() == root
    assert built == [root]
    assert f"regenerating the small tier from the code into {root}" in capsys.readouterr().err


def test_a_source_checkout_has_no_user_release(monkeypatch, tmp_path):
    monkeypatch.setattr(user_release, "PACKAGED", tmp_path / "absent")
    assert user_release.user_release() is None
