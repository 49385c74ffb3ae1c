from pathlib import Path

from icgbench.reference.cli import cli_markdown

ROOT = Path(__file__).resolve().parents[1]


def test_cli_reference_matches_the_parser():
    assert (ROOT / "docs" / "cli.md").read_text() == cli_markdown(), (
        "docs/cli.md is stale: run `make docs`"
    )


def test_data_dictionary_matches_the_table_schemas():
    from icgbench.reference.data_dictionary import markdown

    assert (ROOT / "docs" / "data_dictionary.md").read_text() == markdown(), (
        "docs/data_dictionary.md is stale: run `make docs`"
    )


def test_changelog_records_the_current_data_release():
    from icgbench.release.tiers import DATA_VERSION

    assert f"## Data release {DATA_VERSION}" in (ROOT / "CHANGELOG.md").read_text()


def test_task_reference_matches_the_registry():
    from icgbench.reference.tasks import markdown

    assert (ROOT / "docs" / "tasks.md").read_text() == markdown(), (
        "docs/tasks.md is stale: run `make docs`"
    )


def test_generated_sections_of_the_docs_match_the_code():
    from icgbench.reference.generated import regenerate

    for page, text in regenerate(ROOT).items():
        assert page.read_text() == text, f"{page.name} is stale: run `make docs`"


def _python_blocks(path: Path) -> list[str]:
    import re

    return re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)


def test_python_worked_example_in_submission_guide_runs_and_scores(tmp_path, monkeypatch):
    from icgbench.scorer import score

    (tmp_path / "datasets").symlink_to(ROOT / "datasets")
    (tmp_path / "datapackage.json").symlink_to(ROOT / "datapackage.json")
    example = next(b for b in _python_blocks(ROOT / "docs" / "submission.md")
                   if "LogisticRegression" in b)
    monkeypatch.chdir(tmp_path)  # run as a script in that folder, in this process
    exec(compile(example, "docs/submission.md", "exec"), {"__name__": "__main__"})
    report = score(tmp_path / "assay_logistic.json")
    assert report.summary["auroc"] > 0.6
    assert set(report.document["tasks"]) == {"risk_prediction", "cross_host_generalization"}


def test_every_relative_link_in_the_readme_and_docs_resolves():
    import re

    pages = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]
    broken = []
    for page in pages:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text()):
            if "://" in target or target.startswith("mailto:"):
                continue
            if not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")
    assert not broken, broken
