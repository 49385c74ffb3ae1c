"""The leaderboard web page, loaded in a real headless Chromium."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from conftest import require_tool
from icgbench.cli import main
from icgbench.leaderboard import read_entries
from icgbench.leaderboard.board import add
from leaderboard_helpers import submission_file

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    folder = tmp_path_factory.mktemp("board")
    staging = tmp_path_factory.mktemp("incoming")
    for model in ("random", "logistic_direct", "mbcnet_sign_constrained", "correlation"):
        for variant in ("linear_lowhet", "nonlinear_obs", "misspecified_signs_v2"):
            add(submission_file(staging, model, variant), folder)  # calibration cohort first
    out = tmp_path_factory.mktemp("site")
    assert main(["leaderboard", "render", "--dir", str(folder), "--out", str(out),
                 "--figures", str(ROOT / "docs" / "figures")]) == 0
    return folder, out


def _chromium(*args: str, profile: Path) -> subprocess.CompletedProcess:
    binary = require_tool("chromium", "install Debian's chromium package")
    return subprocess.run([binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args],
                          capture_output=True, text=True, check=False, timeout=120)


def test_page_is_self_contained(rendered):
    _, out = rendered
    html = (out / "index.html").read_text()
    assert not re.search(r"""(src|href)=["']https?://""", html)  # no CDN, no remote asset
    assert "Synthetic by construction" in html
    assert html.count("data:image/png;base64,") == len(list((ROOT / "docs/figures").glob(
        "*.png")))


def test_every_entry_appears_in_the_rendered_dom(rendered, tmp_path):
    folder, out = rendered
    result = _chromium("--dump-dom", (out / "index.html").as_uri(), profile=tmp_path / "p")
    assert result.returncode == 0, result.stderr[-2000:]
    dom = result.stdout
    for e in read_entries(folder):
        marker = f'data-entry="{e.model_name}|{e.package_version}|{e.variant_name}|{e.seed}"'
        assert marker in dom, marker
        assert (out / e.submission_path).is_file()  # the link resolves from file://
    assert dom.count('class="reference"') >= 8  # random and oracle lines in every table
    assert "oracle" in dom


def test_screenshot_of_the_page(rendered, tmp_path):
    _, out = rendered
    shot = tmp_path / "leaderboard.png"
    result = _chromium(f"--screenshot={shot}", "--window-size=1300,2200",
                       (out / "index.html").as_uri(), profile=tmp_path / "p")
    assert result.returncode == 0, result.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 50_000
