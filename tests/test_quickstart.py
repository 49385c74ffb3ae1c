"""docs/quickstart.md prints what it says.

The page's ```bash, ```python and ```r blocks run in order in an empty temporary folder with
ICGBENCH_RELEASE set to this repository: the shared blocks (before the first "## In ..."
heading), then those of "## In Python" or of "## In R" (both in make test-slow; for R the R
package is installed into a temporary library first). bash blocks run in bash with the
venv's bin first on PATH; each python block is a script of its own run by the venv's Python;
each r block a script of its own run by Rscript. A block whose previous line is ``<!-- not
run ... -->`` is skipped.

The convention for outputs: a ```text block right after a code block (blank lines between
allowed) is everything that block prints, stdout and stderr together, compared line by
line with trailing spaces ignored; a line ``...`` stands for one or more lines; a code
block without a text block must print nothing. The temporary folder's path, should a
command print it, reads ``<tmp>`` and the repository's ``<release>``: the page shows
neither.

To see what the blocks print now (to update the page): ``.venv/bin/python
tests/test_quickstart.py python`` (or ``r``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

#: The quickstart's steps run as written, in a fresh folder: a trip of commands (make test-slow).
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "quickstart.md"
BIN = Path(sys.executable).parent
ELISION = "..."
SECTIONS = {"python": "In Python", "r": "In R"}  # the part -> its heading
FENCE = re.compile(r"^```(\w*)$")
NOT_RUN = re.compile(r"^<!--\s*not run\b.*-->$")


@dataclass
class Block:
    language: str
    code: str
    shown: list[str] | None  # the text block after it, or None
    section: str | None  # the "## In ..." heading it sits under, None before the first
    run: bool


def blocks(text: str) -> list[Block]:
    """The page's code blocks, each with the output shown after it."""
    lines = text.splitlines()
    found: list[Block] = []
    section, i = None, 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("## "):
            section = line[3:].strip() if line[3:].startswith("In ") else (
                section and "after")
        fence = FENCE.match(line)
        if not fence:
            i += 1
            continue
        end = lines.index("```", i + 1)
        body = lines[i + 1:end]
        if fence[1] == "text":
            assert found and found[-1].shown is None and _only_blank(lines, found, i), \
                f"line {i + 1}: a text block must follow a code block"
            found[-1].shown = body
        elif fence[1] in ("bash", "python", "r"):
            run = not (i > 0 and NOT_RUN.match(lines[i - 1].strip()))
            found.append(Block(fence[1], "\n".join(body) + "\n", None, section, run))
            found[-1].end = end  # type: ignore[attr-defined]
        i = end + 1
    return found


def _only_blank(lines: list[str], found: list[Block], start: int) -> bool:
    previous_end = found[-1].end  # type: ignore[attr-defined]
    return all(not line.strip() for line in lines[previous_end + 1:start])


def part(language: str) -> list[Block]:
    """The blocks run for one part: the shared ones, then that part's section."""
    return [b for b in blocks(PAGE.read_text())
            if b.run and b.section in (None, SECTIONS[language])]


def _env(library: Path | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "ICGBENCH_ROOT"}
    env["ICGBENCH_RELEASE"] = str(ROOT)
    env["PATH"] = os.pathsep.join([str(BIN), env.get("PATH", "")])
    if library is not None:
        env["R_LIBS"] = os.pathsep.join(filter(None, [str(library), env.get("R_LIBS")]))
    return env


def run_block(block: Block, folder: Path, number: int, library: Path | None) -> tuple[int, str]:
    """Run one block in ``folder``: its exit status and what it printed, paths normalised."""
    suffix = {"bash": ".sh", "python": ".py", "r": ".R"}[block.language]
    with tempfile.TemporaryDirectory(prefix="quickstart-") as scripts:
        script = Path(scripts) / f"block{number}{suffix}"
        script.write_text(block.code)
        command = {"bash": ["bash", "-e", str(script)], "python": [sys.executable, str(script)],
                   "r": ["Rscript", str(script)]}[block.language]
        done = subprocess.run(command, cwd=folder, env=_env(library), stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, check=False, timeout=600)
    out = done.stdout.replace(str(folder.resolve()), "<tmp>").replace(str(folder), "<tmp>")
    return done.returncode, out.replace(str(ROOT), "<release>")


def matches(shown: list[str], got: list[str]) -> bool:
    """``got`` as the page shows it: each line equal (trailing spaces aside), a line
    ``...`` standing for one or more lines."""
    if not shown:
        return not got
    if shown[0].strip() == ELISION:
        return any(matches(shown[1:], got[k:]) for k in range(1, len(got) + 1))
    return bool(got) and got[0].rstrip() == shown[0].rstrip() and matches(shown[1:], got[1:])


def check(language: str, folder: Path, library: Path | None = None) -> None:
    todo = part(language)
    assert any(b.language == language for b in todo), f"no {language} block on the page"
    for number, block in enumerate(todo):
        status, out = run_block(block, folder, number, library)
        got = out.splitlines()
        assert status == 0, f"{block.language} block {number} exited {status}:\n{out}"
        shown = block.shown or []
        assert matches(shown, got), (f"{block.language} block {number}:\n{block.code}\n"
                                     "the page shows:\n" + "\n".join(shown) +
                                     "\nit printed:\n" + out)


def test_the_page_has_its_parts():
    """Both parts exist and say the data are synthetic; README.md links the page."""
    text = PAGE.read_text()
    languages = {(b.section, b.language) for b in blocks(text)}
    assert ("In Python", "python") in languages and ("In R", "r") in languages
    assert "Synthetic by construction" in text and "real people" in text
    assert "docs/quickstart.md" in (ROOT / "README.md").read_text()


def test_the_python_part_prints_what_it_says(tmp_path):
    check("python", tmp_path)


@pytest.fixture(scope="module")
def r_library(tmp_path_factory) -> Path:
    from conftest import require, require_tool

    rscript = require_tool("Rscript", "install r-base-core")
    for package in ("jsonlite", "digest", "V8"):
        has = subprocess.run([rscript, "-e", f"quit(status = !requireNamespace('{package}', "
                              "quietly = TRUE))"], capture_output=True, check=False)
        require(has.returncode == 0, f"R package {package}", f"install r-cran-{package.lower()}")
    return install_r(tmp_path_factory.mktemp("r-library"))


def install_r(library: Path) -> Path:
    library.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["R", "CMD", "INSTALL", "--no-test-load", "--no-docs", "--no-html",
                           "--no-byte-compile", "--no-staged-install", "-l", str(library),
                           str(ROOT / "r")], cwd=library, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return library


@pytest.mark.slow
def test_the_r_part_prints_what_it_says(r_library, tmp_path):
    check("r", tmp_path, r_library)


if __name__ == "__main__":  # print what each block of a part prints now
    language = sys.argv[1] if len(sys.argv) > 1 else "python"
    with tempfile.TemporaryDirectory() as work:
        lib = install_r(Path(work) / "lib") if language == "r" else None
        folder = Path(work) / "run"
        folder.mkdir()
        for n, b in enumerate(part(language)):
            status, printed = run_block(b, folder, n, lib)
            print(f"===== {b.language} block {n} (exit {status})\n{printed}", end="")
