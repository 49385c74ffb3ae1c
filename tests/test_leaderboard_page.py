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


def _render(tmp_path_factory, models: tuple[str, ...], variants: tuple[str, ...]
            ) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("board")
    staging = tmp_path_factory.mktemp("incoming")
    for model in models:
        for variant in variants:  # linear_lowhet first: the calibration cohort
            add(submission_file(staging, model, variant), folder, tier="small")
    out = tmp_path_factory.mktemp("site")
    assert main(["leaderboard", "render", "--dir", str(folder), "--outdir", str(out),
                 "--figures", str(ROOT / "docs" / "figures")]) == 0
    return folder, out


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """A page of twelve entries, for the browser (make test-slow)."""
    return _render(tmp_path_factory,
                   ("random", "logistic_direct", "mbcnet_sign_constrained", "correlation"),
                   ("linear_lowhet", "nonlinear_obs", "misspecified_signs_v2"))


@pytest.fixture(scope="module")
def small_page(tmp_path_factory):
    """A page of two entries, for the checks of its HTML (the fast suite)."""
    return _render(tmp_path_factory, ("random", "logistic_direct"), ("linear_lowhet",))


def _chromium(*args: str, profile: Path) -> subprocess.CompletedProcess:
    binary = require_tool("chromium", "install Debian's chromium package")
    return subprocess.run([binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args],
                          capture_output=True, text=True, check=False, timeout=120)


@pytest.mark.slow
def test_page_is_self_contained(small_page):
    _, out = small_page
    html = (out / "index.html").read_text()
    assert not re.search(r"""(src|href)=["']https?://""", html)  # no CDN, no remote asset
    assert "Synthetic by construction" in html
    assert html.count("data:image/png;base64,") == len(list((ROOT / "docs/figures").glob(
        "*.png")))


@pytest.mark.slow
def test_every_entry_appears_in_the_rendered_dom(rendered, tmp_path):
    folder, out = rendered
    dom = ""
    for page in _pages(out):
        result = _chromium("--dump-dom", page.as_uri(), profile=tmp_path / page.stem)
        assert result.returncode == 0, result.stderr[-2000:]
        dom += result.stdout
    for e in read_entries(folder):
        marker = f'href="{e.canonical_path}"'
        assert marker in dom, marker
        assert e.submission_path == e.canonical_path
        assert (out / e.submission_path).is_file()  # the link resolves from file://
    assert dom.count('class="reference"') >= 8  # random and oracle lines in every table
    assert "oracle" in dom


@pytest.mark.slow
def test_screenshot_of_the_page(rendered, tmp_path):
    _, out = rendered
    shot = tmp_path / "leaderboard.png"
    result = _chromium(f"--screenshot={shot}", "--window-size=1300,2200",
                       (out / "index.html").as_uri(), profile=tmp_path / "p")
    assert result.returncode == 0, result.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 50_000


def _pages(out: Path) -> list[Path]:
    """The site's pages: index.html and one page per variant, nothing else."""
    pages = sorted(out.glob("*.html"))
    assert out / "index.html" in pages and len(pages) > 1
    return pages


def test_every_link_is_relative_to_a_copy_the_page_wrote(small_page):
    _, out = small_page
    pages = _pages(out)
    files = [h for page in pages for h in re.findall(r'href="([^"]*)"', page.read_text())
             if not h.startswith("#")]
    assert any(h.startswith("submissions/") for h in files), "the pages link submissions"
    for href in files:
        assert re.fullmatch(r"submissions/[A-Za-z0-9._+/-]+\.json\.gz|[a-z0-9_]+\.html",
                            href), href
        assert ".." not in href.split("/") and (out / href).is_file()
    assert {f for f in files if f.endswith(".html")} == {p.name for p in pages}


@pytest.mark.slow
@pytest.mark.parametrize(("page", "ran"), [("index.html", 'data-sortable="ready"'),
                                         ("linear_lowhet.html", 'data-sortable="ready"'),
                                         ("check.html", 'data-checker="ready"')])
def test_a_content_security_policy_allows_only_the_pages_own_script(rendered, tmp_path, page,
                                                                    ran):
    _, out = rendered
    html = (out / page).read_text()
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html).group(1)
    assert "default-src 'none'" in policy and "img-src data:" in policy
    assert "unsafe-inline" not in policy and "http" not in policy
    result = _chromium("--dump-dom", (out / page).as_uri(), profile=tmp_path / "a")
    assert ran in result.stdout  # the page's own scripts ran
    injected = tmp_path / "injected.html"
    injected.write_text(html.replace("</body>", "<script>document.body.setAttribute("
                                     "'data-injected', 'ran');</script></body>"))
    result = _chromium("--dump-dom", injected.as_uri(), profile=tmp_path / "b")
    assert ran in result.stdout
    assert "data-injected" not in result.stdout.split("<script>")[0]  # blocked by the policy
    assert 'data-injected="ran"' not in result.stdout


@pytest.mark.slow
def test_figures_must_be_regular_png_files(small_page, tmp_path, capsys):
    folder, _ = small_page
    figures = tmp_path / "figures"
    figures.mkdir()
    (figures / "environ.png").symlink_to("/proc/self/environ")
    assert main(["leaderboard", "render", "--dir", str(folder), "--outdir", str(tmp_path / "a"),
                 "--figures", str(figures), "--no-oracle"]) == 1
    assert "symbolic link" in capsys.readouterr().err
    (figures / "environ.png").unlink()
    (figures / "fake.png").write_text("<script>alert(1)</script>")
    assert main(["leaderboard", "render", "--dir", str(folder), "--outdir", str(tmp_path / "b"),
                 "--figures", str(figures), "--no-oracle"]) == 1
    assert "not a PNG" in capsys.readouterr().err
    assert not (tmp_path / "a" / "index.html").exists()
    assert not (tmp_path / "b" / "index.html").exists()


@pytest.mark.slow
def test_the_ceiling_and_oracle_lines_are_graded_at_their_calibration_k(tmp_path_factory):
    """As docs/baselines.md grades them: structure at the K* of their calibration-cohort
    submission (its true edge count), not each cohort's own best K."""
    from icgbench.api.tables import load_table
    from icgbench.leaderboard.references import oracle_entries

    folder, _ = _render(tmp_path_factory, ("random",), ("linear_lowhet", "nonlinear_obs"))
    lines = oracle_entries(read_entries(folder))
    edges = len(load_table("linear_lowhet", "graph", 0, role="truth"))
    other = len(load_table("nonlinear_obs", "graph", 0, role="truth"))
    assert edges != other
    for e in lines:
        assert e.scores["structure_recovery"]["k"] == edges, (e.model_name, e.variant_name)
        # the truth readers score only the true edges: K* selects min(K*, E) of them
        true = edges if e.variant_name == "linear_lowhet" else other
        expected_f1 = 2 * min(edges, true) / (min(edges, true) + true)
        assert e.scores["structure_recovery"]["directed_f1"] == pytest.approx(expected_f1)
    assert {e.model_name for e in lines} == {"ceiling", "oracle"}


WIDTHS = (1440, 390)  # a laptop and a phone


@pytest.fixture(scope="module")
def long_names(tmp_path_factory):
    """A page whose model names are the longest the references have, on two cohorts (so
    every mean has its interval under it)."""
    return _render(tmp_path_factory, ("random", "mbcnet_sign_constrained_augmented",
                                      "logistic_direct"), ("linear_lowhet", "nonlinear_obs"))


@pytest.mark.slow
def test_the_overall_table_is_whole_on_a_laptop_and_legible_on_a_phone(long_names, tmp_path):
    """In Chromium at 1,440 px the overall table needs no scrolling; at 390 px the page
    does not scroll sideways, and the place, the model and its overall score are on screen
    (the other columns scroll inside the table). Screenshots of both are kept in the test's
    folder."""
    from playwright.sync_api import sync_playwright

    binary = require_tool("chromium", "install Debian's chromium package")
    _, out = long_names
    measure = """() => {
      const table = document.querySelector('table[data-task=overall]');
      const right = (name) => [...table.querySelectorAll('thead th')]
        .find(h => h.textContent.trim().startsWith(name)).getBoundingClientRect().right;
      const model = table.querySelector('tbody td.model').getBoundingClientRect();
      return {page: document.documentElement.scrollWidth, table: table.scrollWidth,
              box: table.parentElement.clientWidth, overall: right('overall'),
              model: model.right, modelWidth: model.width};
    }"""
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=binary, args=["--no-sandbox"])
        try:
            seen = {}
            for width in WIDTHS:
                page = browser.new_page(viewport={"width": width, "height": 900})
                page.goto((out / "index.html").as_uri())
                seen[width] = page.evaluate(measure)
                page.locator("table[data-task=overall]").scroll_into_view_if_needed()
                page.screenshot(path=str(tmp_path / f"overall-{width}.png"))
        finally:
            browser.close()
    laptop, phone = seen[1440], seen[390]
    assert laptop["page"] <= 1440 and laptop["table"] <= laptop["box"], laptop
    assert phone["page"] <= 390, phone  # no sideways scroll of the page itself
    assert phone["overall"] <= 390 and phone["modelWidth"] >= 80, phone
    for width in WIDTHS:
        assert (tmp_path / f"overall-{width}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
def test_the_figures_of_what_the_board_ranks_come_first_and_their_captions_count(long_names):
    """Two ranked models (random is a reference line), fewer than the figures' limit: each
    caption says all of them (not "the 12 models ranked highest"), and the normalized
    figures precede the raw ones."""
    _, out = long_names
    html = (out / "index.html").read_text()
    ids = re.findall(r'<figure id="figure-([a-z_]+)"', html)
    assert ids[:3] == ["normalized_scores", "cohort_spread", "pairwise_wins"], ids
    captions = re.findall(r"drawn from this board: ([^)]*)\)", html)
    assert captions and all(c == "all 2 ranked models and the reference lines"
                            for c in captions), captions
