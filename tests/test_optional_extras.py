"""The core runs without the optional extras: a command that needs one says which, in one
line, with exit 2 (a child interpreter in which matplotlib and jinja2 do not import)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT

WITHOUT = textwrap.dedent("""
    import sys
    for name in ("matplotlib", "jinja2", "markupsafe"):
        sys.modules[name] = None  # import now raises ImportError
    from icgbench.cli import entry_point
    sys.argv = ["icgbench", *sys.argv[1:]]
    entry_point()
""")


def _icgbench(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", WITHOUT, *args], capture_output=True,
                          text=True, cwd=cwd, timeout=300)


@pytest.mark.parametrize(("argv", "extra"), [
    (["leaderboard", "render", "--dir", str(ROOT / "leaderboard"), "--outdir", "site"], "page"),
    (["bench", "plots", "--dir", str(ROOT / "leaderboard"), "--outdir", "figures"], "plots"),
])
def test_a_command_that_needs_an_extra_names_it(argv, extra, tmp_path):
    ran = _icgbench(*argv, cwd=tmp_path)
    assert ran.returncode == 2, ran.stderr
    assert f'pip install "icgbench[{extra}]"' in ran.stderr
    assert "Traceback" not in ran.stderr and len(ran.stderr.strip().splitlines()) == 1
    assert not list(tmp_path.iterdir())  # nothing written


def test_the_core_scores_without_the_extras(tmp_path):
    """The demo's path: a template, graded (the demo itself fits a model: slower)."""
    assert _icgbench("submission", "template", "--variant", "linear_lowhet", "--out",
                     "sub.json", cwd=tmp_path).returncode == 0
    scored = _icgbench("score", "sub.json", cwd=tmp_path)
    assert scored.returncode == 0, scored.stderr
    assert "wrote the score report to sub.report.json" in scored.stdout
