from pathlib import Path

from icgbench.cli.docs import cli_markdown

ROOT = Path(__file__).resolve().parents[1]


def test_cli_reference_matches_the_parser():
    assert (ROOT / "docs" / "cli.md").read_text() == cli_markdown(), (
        "docs/cli.md is stale: run `make docs`"
    )


def test_data_dictionary_matches_the_table_schemas():
    from icgbench.release.dictionary import markdown

    assert (ROOT / "docs" / "data_dictionary.md").read_text() == markdown(), (
        "docs/data_dictionary.md is stale: run `make docs`"
    )


def test_changelog_records_the_current_data_release():
    from icgbench.release.tiers import DATA_VERSION

    assert f"## Data release {DATA_VERSION}" in (ROOT / "CHANGELOG.md").read_text()
