"""The site's "check a submission" page, in a real Chromium, against `icgbench validate`.

Every file of the corpus (tests/check_corpus.py) is dropped on the page rendered by
`icgbench leaderboard render`, loaded from file:// under its Content-Security-Policy; the
verdict, the stage and every message must be those `icgbench validate --json` prints.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from check_corpus import write_corpus
from conftest import require_tool
from icgbench.cli import main
from leaderboard_helpers import two_entry_board

#: The tests that drive the page in Chromium (a browser per module) run in make test-slow.
browser = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
ICGBENCH = Path(sys.executable).parent / "icgbench"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    board = two_entry_board(tmp_path_factory)
    out = tmp_path_factory.mktemp("site")
    assert main(["leaderboard", "render", "--dir", str(board), "--outdir", str(out),
                 "--figures", str(ROOT / "docs" / "figures")]) == 0
    return out


@pytest.fixture(scope="module")
def page(site):
    """The check page open in headless Chromium, with what it logged and requested."""
    binary = require_tool("chromium", "install Debian's chromium package")
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=binary, args=["--no-sandbox"])
        tab = browser.new_page()
        tab.problems, tab.requests = [], []
        tab.on("console", lambda m: tab.problems.append(m.text) if m.type == "error" else None)
        tab.on("pageerror", lambda e: tab.problems.append(str(e)))
        tab.on("request", lambda r: tab.requests.append(r.url))
        tab.goto((site / "check.html").as_uri())
        tab.wait_for_selector("body[data-checker=ready]", timeout=20_000)
        yield tab
        browser.close()


def _drop(tab, path: Path) -> dict:
    tab.evaluate("document.getElementById('check-result').removeAttribute('data-verdict')")
    tab.set_input_files("#check-file", str(path))
    tab.wait_for_selector("#check-result[data-verdict]", timeout=30_000)
    return json.loads(tab.get_attribute("#check-result", "data-verdict"))


def _validate(files: list[Path]) -> list[dict]:
    done = subprocess.run([str(ICGBENCH), "validate", "--json", *map(str, files)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode in (0, 1, 2), done.stderr
    return json.loads(done.stdout)


@browser
def test_the_page_agrees_with_icgbench_validate_on_every_file_of_the_corpus(page, tmp_path):
    files = write_corpus(tmp_path / "corpus")
    assert len(files) >= 50
    expected = {Path(v["file"]).name: v for v in _validate(files)}
    stages, disagree = set(), []
    for path in files:
        want, got = expected[path.name], _drop(page, path)
        stages.add(want["stage"])
        if (got["valid"], got["stage"]) != (want["valid"], want["stage"]):
            disagree.append((path.name, got, want))
        elif want["valid"]:
            if [got[k] for k in ("variant", "seed", "tier", "blocks")] != [
                    want[k] for k in ("variant", "seed", "tier", "blocks")]:
                disagree.append((path.name, got, want))
        elif want["stage"] == "usage":  # no such tier here: each says where it looked
            if not len(got["errors"]) == len(want["errors"]) == 1:
                disagree.append((path.name, got, want))
        elif (got["errors"], got["count"]) != (want["errors"], want["count"]):
            disagree.append((path.name, got["errors"], want["errors"], got["count"],
                             want["count"]))
    assert not disagree, "\n".join(map(repr, disagree))
    assert stages == {None, "parse", "size", "schema", "semantic", "usage"}
    assert page.problems == []  # no script error, no CSP violation
    assert all(url.startswith("file://") for url in page.requests)  # nothing fetched


@browser
def test_a_file_dropped_on_the_page_is_checked(page, tmp_path):
    """The drop zone, not only the file input: a drop event carrying a file."""
    files = write_corpus(tmp_path / "corpus")
    valid = next(p for p in files if p.name == "valid.json.gz")
    page.evaluate("document.getElementById('check-result').removeAttribute('data-verdict')")
    transfer = page.evaluate_handle(
        """([name, bytes]) => { const t = new DataTransfer();
        t.items.add(new File([new Uint8Array(bytes)], name)); return t; }""",
        [valid.name, list(valid.read_bytes())])
    page.dispatch_event("#check-zone", "drop", {"dataTransfer": transfer})
    page.wait_for_selector("#check-result[data-verdict]", timeout=30_000)
    verdict = json.loads(page.get_attribute("#check-result", "data-verdict"))
    assert verdict["valid"] and verdict["file"] == "valid.json.gz"
    assert page.inner_text("#check-result p").startswith("VALID valid.json.gz: linear_lowhet")


@pytest.mark.slow
def test_the_index_links_the_check_page_and_the_page_is_self_contained(site):
    index = (site / "index.html").read_text()
    assert 'href="check.html"' in index
    html = (site / "check.html").read_text()
    assert "fetch(" not in html and "XMLHttpRequest" not in html
    assert "new Function" not in html and "eval(" not in html  # runs under script-src hashes


def test_the_published_checker_facts_are_current():
    """schemas/checker/facts.json (what R's checker reads; `make contract` writes it) is what
    the scorer's templates and limits say today."""
    from icgbench.leaderboard.checker import FACTS_FILE, facts_json, static_facts

    assert ROOT.joinpath(*FACTS_FILE).read_text() == facts_json(static_facts()) + "\n", (
        "schemas/checker/facts.json is stale: run `make contract`")


@browser
def test_several_files_get_one_verdict_each_and_a_summary(page, tmp_path):
    files = write_corpus(tmp_path / "corpus")
    chosen = [p for p in files if p.name in ("valid.json", "valid.json.gz", "parse_empty.json")]
    page.evaluate("document.getElementById('check-result').removeAttribute('data-verdicts')")
    page.set_input_files("#check-file", [str(p) for p in chosen])
    page.wait_for_selector("#check-result[data-verdicts]", timeout=30_000)
    verdicts = json.loads(page.get_attribute("#check-result", "data-verdicts"))
    assert [v["valid"] for v in verdicts] == [p.name != "parse_empty.json" for p in chosen]
    assert page.inner_text("#check-result p.summary") == "2 of 3 files valid"


@browser
def test_a_valid_file_of_another_tier_is_said_to_be_refused_by_the_board(page, tmp_path):
    assert page.get_attribute("#check-result", "data-board-tier") == "small"
    assert page.locator("text=This board takes small-tier submissions").count() == 1
    files = {p.name: p for p in write_corpus(tmp_path / "corpus")}
    page.evaluate("document.getElementById('check-result').setAttribute('data-board-tier', "
                  "'full')")
    _drop(page, files["valid_pretty.json"])
    assert page.inner_text("#check-result p.tier-note").startswith(
        "This board takes full-tier submissions: it would refuse this small-tier file")
    page.evaluate("document.getElementById('check-result').setAttribute('data-board-tier', "
                  "'small')")
    _drop(page, files["valid_unicode_model.json"])
    assert page.locator("#check-result p.tier-note").count() == 0


@browser
def test_a_table_wider_than_the_page_says_which_columns_are_out_of_view(page, site):
    tab = page.context.browser.new_page(viewport={"width": 700, "height": 900})
    try:
        tab.goto((site / "index.html").as_uri())
        tab.wait_for_selector("body[data-sortable=ready]", timeout=20_000)
        hidden = tab.eval_on_selector_all(
            ".wide", "boxes => boxes.map(b => [b.scrollWidth > b.clientWidth, "
            "Number(b.getAttribute('data-hidden-columns'))])")
        assert hidden and any(over for over, _ in hidden)
        assert all((count > 0) == over for over, count in hidden)
        assert tab.inner_text(".scroll-hint.shown >> nth=0").startswith(
            "Scroll the table sideways for ")
    finally:
        tab.close()


@browser
def test_trailing_bytes_after_a_large_member_are_counted_in_few_inflations(page, tmp_path):
    """Round 5's slow case: 58 KB of gzip (60 MB of zeros) with junk after it. The page
    counts the junk as the CLI does, by bisection: at most 8 inflations whatever the count,
    where counting one cut per byte took 65 (about 50 s a file)."""
    member = gzip.compress(b"\0" * 60_000_000, mtime=0)
    files = []
    for k in (1, 37, 64):
        path = tmp_path / f"junk{k}.json.gz"
        path.write_bytes(member + bytes(range(100, 100 + k)))
        files.append(path)
    expected = {Path(v["file"]).name: v for v in _validate(files)}
    page.evaluate("""() => { window.icgReal = DecompressionStream;
        window.DecompressionStream = function (f) { window.icgInflations++;
                                                    return new window.icgReal(f); }; }""")
    try:
        for path in files:
            page.evaluate("window.icgInflations = 0")
            got = _drop(page, path)
            assert (got["stage"], got["errors"]) == (expected[path.name]["stage"],
                                                     expected[path.name]["errors"])
            assert "byte(s) after the end of the gzip stream" in got["errors"][0]
            assert page.evaluate("window.icgInflations") <= 8, path.name
    finally:
        page.evaluate("() => { window.DecompressionStream = window.icgReal; }")


@browser
def test_the_page_shows_hidden_characters_as_the_cli_prints_them(page, tmp_path):
    """A model name of zero-width, bidirectional, byte-order and tag characters: the
    verdict keeps the message as `validate --json` gives it, and the page shows it as
    the terminal does (icgbench.io.untrusted.printable), with nothing hidden."""
    from icgbench.io.unprintable import RANGES
    from icgbench.io.untrusted import printable

    path = {p.name: p for p in write_corpus(tmp_path / "corpus")}[
        "schema_hidden_characters.json"]
    want = _validate([path])  # one file: one verdict, not a list
    got = _drop(page, path)
    assert got["errors"] == want["errors"] and "\u200b" in want["errors"][0]
    shown = page.eval_on_selector_all("#check-result li", "items => items.map(i => i.textContent)")
    assert shown == [printable(e) for e in want["errors"]]
    assert "\\u200b" in shown[0] and "\\U000e0041" in shown[0]
    assert not any(lo <= ord(c) <= hi for line in shown for c in line for lo, hi in RANGES)
