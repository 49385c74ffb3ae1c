from pathlib import Path

from icgbench.cli.docs import cli_markdown

ROOT = Path(__file__).resolve().parents[1]


def test_cli_reference_matches_the_parser():
    assert (ROOT / "docs" / "cli.md").read_text() == cli_markdown(), (
        "docs/cli.md is stale: run `make docs`"
    )
