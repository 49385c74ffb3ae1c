"""``--tier sealed`` in ``data list``, ``data verify`` and ``submission template``.

They refused it, so a sealed submission's header had to be written by hand. Each runs here
through the ``icgbench`` command on a sealed release built with a throw-away key
(``ICGBENCH_RELEASE`` names it); without a sealed tier, each says so in one line.
"""

from __future__ import annotations

import json
import shutil

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from icgbench.cli import main
from icgbench.release import sealed, tiers
from icgbench.release.descriptor import load_descriptor
from icgbench.release.tiers import DATA_VERSION
from release_helpers import ROOT
from sealed_helpers import sealed_release


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    return sealed_release(tmp_path_factory.mktemp("sealed-commands"))


@pytest.fixture()
def at_release(release, tmp_path, monkeypatch):
    monkeypatch.setenv("ICGBENCH_RELEASE", str(release))
    monkeypatch.setenv("ICGBENCH_HOME", str(tmp_path / "home"))
    monkeypatch.delenv(sealed.KEY_ENV, raising=False)  # nothing here needs the key
    return release


def _descriptor(release):
    return load_descriptor(release / tiers.SEALED.descriptor_path)


def test_data_list_lists_the_sealed_tier(at_release, capsys):
    assert main(["data", "list", "--tier", "sealed", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    d = _descriptor(at_release)
    assert len(rows) == len(d.resources) // 2 and all(r["present"] for r in rows)
    assert {r["role"] for r in rows} == {"public"}
    assert main(["data", "list", "--tier", "sealed"]) == 0
    assert capsys.readouterr().out.endswith(f"{len(rows)} of {len(rows)} tables present\n")


def test_data_verify_checks_the_sealed_tier(at_release, capsys):
    d = _descriptor(at_release)
    assert main(["data", "verify", "--tier", "sealed"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"OK: {len(d.resources)} resources of {d.path} (release "
                          f"{tiers.SEALED.version}, sealed tier) checked in "), out


def test_submission_template_writes_a_sealed_submission(at_release, tmp_path, capsys):
    out = tmp_path / "sealed.json"
    assert main(["submission", "template", "--variant", "linear_lowhet", "--tier", "sealed",
                 "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert (doc["tier"], doc["data_version"], doc["seed"]) == (
        "sealed", f"{DATA_VERSION}+sealed.1", 0)
    assert doc["data_version"] == _descriptor(at_release).version == tiers.SEALED.version
    subjects = pq.read_table(at_release / tiers.SEALED.data_dir /
                             "linear_lowhet/seed0/subjects.parquet")
    ids = {s: pc.filter(subjects["subject_id"], pc.equal(subjects["split"], s)).to_pylist()
           for s in ("test", "target_test")}
    assert doc["risk_prediction"]["subject_id"] == ids["test"]
    assert doc["cross_host_generalization"]["subject_id"] == ids["target_test"]
    capsys.readouterr()
    assert main(["validate", str(out)]) == 0  # complete, without the key
    assert capsys.readouterr().out.startswith(f"VALID {out}: linear_lowhet seed 0 (sealed tier)")


@pytest.mark.parametrize("argv", [
    ["data", "list", "--tier", "sealed"],
    ["data", "verify", "--tier", "sealed"],
    ["submission", "template", "--variant", "linear_lowhet", "--tier", "sealed", "--out"],
], ids=["list", "verify", "template"])
def test_without_a_sealed_tier_each_command_says_so(argv, tmp_path, monkeypatch, capsys):
    folder = tmp_path / "open-only"
    folder.mkdir()
    shutil.copyfile(ROOT / "datapackage.json", folder / "datapackage.json")
    monkeypatch.setenv("ICGBENCH_RELEASE", str(folder))
    out = tmp_path / "template.json"
    code = main([*argv, str(out)] if argv[-1] == "--out" else argv)
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and err.count("\n") == 1, err
    assert err == (f"icgbench: error: the release at {folder} has no sealed tier (no "
                   "datasets/sealed/datapackage.json): the sealed tier is published with the "
                   "leaderboard's sealed track; name a release that holds one with "
                   "ICGBENCH_RELEASE\n")
    assert not out.exists()
