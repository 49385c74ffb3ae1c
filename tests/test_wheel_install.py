"""Install it: the wheel and the sdist build and pass ``twine check``; a fresh virtual
environment holding only the wheel (and its locked dependencies) downloads the small tier
from a local server laid out as the Hub, then validates and scores a submission.

Slow: it builds the packages and installs the wheel's dependencies into a new venv (from
the package index, pinned by constraints.txt; ``--system-site-packages`` is not used). The
data trip is offline: the release comes from ``icgbench data publish``'s Hub folder served on
127.0.0.1, the descriptor first (a user fetches it from the mirror, or clones the
repository), then the archive through ``ICGBENCH_MIRRORS``. Then the pip user's trip:
from an empty folder with nothing placed by hand, ``icgbench demo`` makes the user's
release from the descriptors the wheel carries and regenerates the small tier there,
offline. Each step's time is printed (``pytest -s``) for docs/releasing.md.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from icgbench.release import publish
from icgbench.release.descriptor import load_descriptor
from icgbench.release.tiers import PUBLICATION
from release_helpers import served
from test_publish import hub_server_root

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow


def _run(argv: list, what: str, **kwargs) -> subprocess.CompletedProcess:
    start = time.perf_counter()
    result = subprocess.run([str(a) for a in argv], capture_output=True, text=True,
                            check=False, **kwargs)
    print(f"{what}: {time.perf_counter() - start:.1f} s")
    assert result.returncode == 0, f"{what}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


def test_the_wheel_installs_alone_and_runs_the_offline_trip(tmp_path):
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "build", "--no-isolation", "--outdir", dist, ROOT],
         "python -m build (wheel and sdist)")
    wheels, sdists = list(dist.glob("*.whl")), list(dist.glob("*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1
    _run([sys.executable, "-m", "twine", "check", "--strict", *wheels, *sdists], "twine check")
    import tarfile

    with tarfile.open(sdists[0]) as sdist:  # the GPL test schema is not distributed
        assert not [n for n in sdist.getnames() if "tests/data/zenodo" in n]

    venv = tmp_path / "fresh"
    _run([sys.executable, "-m", "venv", venv], "python -m venv")
    assert "include-system-site-packages = false" in (venv / "pyvenv.cfg").read_text()
    python, icgbench = venv / "bin" / "python", venv / "bin" / "icgbench"
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ICGBENCH_", "PYTHON", "VIRTUAL_ENV"))}
    _run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
          "--constraint", ROOT / "constraints.txt", wheels[0]],
         "pip install the wheel (locked dependencies)", env=env)
    assert "usage: icgbench" in _run([icgbench, "--help"], "icgbench --help", env=env,
                                     cwd=tmp_path).stdout
    # The plots', discovery and dask extras stay out of the core (jinja2 does not: frictionless,
    # a base dependency, requires it).
    for extra in ("matplotlib", "causallearn", "lingam", "tigramite", "dask"):
        absent = subprocess.run([python, "-c", f"import {extra}"], capture_output=True,
                                env=env, check=False)
        assert absent.returncode != 0, f"the core installed {extra}"

    d = load_descriptor(ROOT / "datapackage.json")
    out = publish.publish(d, tmp_path / "publication")
    release = tmp_path / "release"
    release.mkdir()
    with served(hub_server_root(tmp_path, out / "huggingface", d.version)) as url:
        hub = dataclasses.replace(PUBLICATION, hub_endpoint=url)
        with urllib.request.urlopen(hub.hub_url(d.version, "datapackage.json")) as answer:
            (release / "datapackage.json").write_bytes(answer.read())
        env = {**env, "ICGBENCH_HOME": str(tmp_path / "home"),
               "ICGBENCH_MIRRORS": hub.hub_url(d.version, PUBLICATION.archive_name(
                   d.tier, d.version))}
        downloaded = _run([icgbench, "data", "download", "--tier", "small"],
                          "icgbench data download --tier small (local Hub mirror)",
                          env=env, cwd=release)
    assert downloaded.stdout.startswith(f"downloaded and verified {len(d.resources)} files")
    _run([icgbench, "data", "verify", "--tier", "small"], "icgbench data verify", env=env,
         cwd=release)
    submission = tmp_path / "submission.json"
    _run([icgbench, "submission", "template", "--variant", "linear_lowhet", "--out",
          submission], "icgbench submission template", env=env, cwd=release)
    _run([icgbench, "validate", submission], "icgbench validate", env=env, cwd=release)
    scored = _run([icgbench, "score", submission, "--json"], "icgbench score", env=env,
                  cwd=release)
    assert '"tasks"' in scored.stdout
    assert str(ROOT) not in scored.stdout  # graded against the downloaded release

    # From an empty folder, with nothing placed by hand and no network: the wheel's
    # descriptors make the user's release, whose small tier is regenerated on first use.
    empty, home = tmp_path / "empty", tmp_path / "pip-home"
    empty.mkdir()
    env = {k: v for k, v in env.items() if k != "ICGBENCH_MIRRORS"}
    env["ICGBENCH_HOME"] = str(home)
    user = home / f"release-{d.version}"
    demo = _run([icgbench, "demo"], "icgbench demo (first use: the small tier rebuilt)",
                env=env, cwd=empty)
    assert f"regenerating the small tier from the code into {user}" in demo.stderr
    assert "wrote the demo's submissions and reports to icgbench-demo" in demo.stdout
    again = _run([icgbench, "demo"], "icgbench demo (again)", env=env, cwd=empty)
    assert "regenerating" not in again.stderr
    verified = _run([icgbench, "data", "verify", "--tier", "small"],
                    "icgbench data verify (the user's release)", env=env, cwd=empty)
    assert f"OK: {len(d.resources)} resources of {user / 'datapackage.json'}" in verified.stdout
    for relative in ("datapackage.json", "datasets/full/datapackage.json"):
        assert (user / relative).read_bytes() == (ROOT / relative).read_bytes(), relative
    missing = empty / "no-such-archive.tar.gz"
    refused = subprocess.run([str(icgbench), "data", "download", "--tier", "full", "--url",
                              str(missing)], capture_output=True, text=True, env=env,
                             cwd=empty, check=False)
    assert refused.returncode != 0 and str(missing) in refused.stderr, refused.stderr
    assert "no ICg-Bench release found" not in refused.stderr  # the full descriptor is there
