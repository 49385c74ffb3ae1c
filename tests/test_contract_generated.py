"""Every generated contract file is what ``make contract`` writes today, and is marked.

``python -m icgbench.contract.build --check`` (what ``make contract`` runs, without
writing) rebuilds the Table and JSON Schemas, the checker's facts and the three validators
ajv compiles into a temporary folder and lists what differs; ``.gitattributes`` marks each
generated path ``linguist-generated`` (checked with ``git check-attr``, as GitHub reads it),
and nothing hand-written lies among them.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import require_tool
from icgbench.contract.build import GENERATED

ROOT = Path(__file__).resolve().parents[1]


def _generated_files() -> list[Path]:
    return sorted({p for pattern in GENERATED for p in ROOT.glob(pattern)})


def test_make_contract_would_change_nothing() -> None:
    require_tool("node", "install nodejs (make test does)")
    result = subprocess.run([sys.executable, "-m", "icgbench.contract.build", "--check"],
                            cwd=ROOT, capture_output=True, text=True, timeout=600,
                            check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 stale generated contract file(s)" in result.stdout


@pytest.mark.slow
def test_a_stale_or_missing_file_is_named(tmp_path) -> None:
    from icgbench.contract import build

    require_tool("node", "install nodejs (make test does)")
    copy = tmp_path / "schemas"
    build.build(copy)
    (copy / "checker" / "score_report_schema.js").write_text("// edited by hand\n")
    (copy / "tables" / "graph.json").unlink()
    assert sorted(build.stale(copy)) == ["schemas/checker/score_report_schema.js",
                                         "schemas/tables/graph.json"]


def test_every_generated_file_is_marked_generated_and_committed() -> None:
    files = _generated_files()
    assert len(files) >= 25  # tables, schemas, facts, three validators
    names = [str(p.relative_to(ROOT)) for p in files]
    marked = subprocess.run(["git", "check-attr", "linguist-generated", "--", *names],
                            cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert all(line.endswith(": linguist-generated: set") for line in marked.splitlines())
    tracked = set(subprocess.run(["git", "ls-files", "schemas"], cwd=ROOT, capture_output=True,
                                 text=True, check=True).stdout.split())
    assert set(names) <= tracked
    hand_written = {p.split("/")[1] for p in tracked - set(names)}
    assert hand_written == {"conformance", "examples"}, tracked - set(names)


def test_the_notes_name_the_ajv_that_compiled_the_validators() -> None:
    """The R package's notes (its README of vendored code, COPYRIGHTS) name the ajv version
    the compiled files say they were made with, which is the one the lock installs."""
    import json
    import re

    from icgbench.contract.build import COMPILED

    lock = json.loads((ROOT / "tools/ajv/package-lock.json").read_text())
    version = lock["packages"]["node_modules/ajv"]["version"]
    for _, out, _ in COMPILED:
        head = (ROOT / "schemas/checker" / out).read_text().splitlines()[0]
        assert head.endswith(f"with ajv {version}: do not edit."), (out, head)
    for note in ("r/inst/js/README.md", "r/inst/COPYRIGHTS"):
        named = set(re.findall(r"\b8\.\d+\.\d+\b", (ROOT / note).read_text()))
        assert named == {version}, (note, named)
