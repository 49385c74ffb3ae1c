"""tools/install-system-deps.sh (what `make test` runs first) never replaces a program the
machine has without ICGBENCH_REPLACE_SYSTEM_PACKAGES=1: tried with stand-in commands."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Stand-ins: a root user with apt-get, R without V8, and NodeSource's nodejs installed.
FAKES = {
    "id": 'echo 0',
    "Rscript": 'case "$*" in *V8*) exit 1;; *) exit 0;; esac',
    "chromium": "exit 0",
    "node": "echo v20.0.0",
    "npm": "exit 0",
    "dpkg-query": "echo 20.0.0-1nodesource1",
    "apt-cache": 'echo " nodejs | 18.19.0+dfsg-6~deb12u2 | http://deb.debian.org/debian '
                 'bookworm/main amd64 Packages"',
    "apt-get": 'echo "apt-get $*" >> "$LOG"',
}


def _run(tmp_path: Path, allow: bool) -> tuple[str, str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for name, body in FAKES.items():
        path = bin_dir / name
        path.write_text(f"#!/bin/sh\n{body}\n")
        path.chmod(0o755)
    repo = tmp_path / "repo"
    (repo / "tools" / "ajv" / "node_modules" / "ajv").mkdir(parents=True, exist_ok=True)
    (repo / "tools" / "ajv" / "node_modules" / "ajv" / "package.json").write_text("{}")
    shutil.copy(ROOT / "tools" / "install-system-deps.sh", repo / "tools")
    log = tmp_path / "apt.log"
    log.write_text("")
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "LOG": str(log),
           **({"ICGBENCH_REPLACE_SYSTEM_PACKAGES": "1"} if allow else {})}
    done = subprocess.run(["bash", str(repo / "tools" / "install-system-deps.sh")], env=env,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return done.stderr, log.read_text()


def test_the_machines_nodejs_is_not_replaced_without_the_opt_in(tmp_path):
    err, apt = _run(tmp_path, allow=False)
    assert "would replace this machine's nodejs 20.0.0-1nodesource1" in err
    assert "ICGBENCH_REPLACE_SYSTEM_PACKAGES=1" in err
    assert "nodejs=" not in apt and "--allow-downgrades" not in apt and "r-cran-v8" not in apt


def test_with_the_opt_in_it_says_what_it_replaces(tmp_path):
    err, apt = _run(tmp_path, allow=True)
    assert "replacing nodejs 20.0.0-1nodesource1 with Debian's 18.19.0+dfsg-6~deb12u2" in err
    assert "nodejs=18.19.0+dfsg-6~deb12u2" in apt and "--allow-downgrades" in apt
    assert "r-cran-v8" in apt


def test_ci_opts_in():
    assert "export ICGBENCH_REPLACE_SYSTEM_PACKAGES=1" in (ROOT / ".ci" / "run").read_text()
    assert os.access(ROOT / "tools" / "install-system-deps.sh", os.X_OK)
