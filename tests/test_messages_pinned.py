"""Messages a user acts on, pinned word for word where a sampled mutation campaign found
them untested (a mutant that blanked or garbled them survived)."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from icgbench.generator.blocks import split_blocks
from icgbench.leaderboard.entry import timestamp_problem


def test_a_block_size_below_one_is_refused_by_name():
    with pytest.raises(ValueError) as refused:
        split_blocks({"train": 10, "test": 5, "target_test": 5}, 0)
    assert str(refused.value) == "block_size must be at least 1, got 0"


def test_a_future_submission_time_names_the_clock_of_the_check():
    now = dt.datetime(2026, 11, 27, 18, 0, 0, 123456, tzinfo=dt.UTC)
    assert timestamp_problem("2026-12-30T00:00:00Z", now=now) == (
        "2026-12-30T00:00:00Z is in the future (the check ran at 2026-11-27T18:00:00Z)")
    assert timestamp_problem("2026-11-28T00:00:00Z", now=now) is None  # within a day's skew


def _patterns(node: object, out: set[str]) -> set[str]:
    if isinstance(node, dict):
        if isinstance(node.get("pattern"), str):
            out.add(node["pattern"])
        for value in node.values():
            _patterns(value, out)
    elif isinstance(node, list):
        for value in node:
            _patterns(value, out)
    return out


def test_every_published_pattern_is_described_in_words():
    """No message shows a raw regular expression: every pattern of every published schema
    has its words (contract.json_schemas.pattern_words), which the page and R read too."""
    import json
    from pathlib import Path

    from icgbench.contract.json_schemas import pattern_words

    root = Path(__file__).resolve().parents[1] / "schemas"
    found = set()
    for path in root.glob("*.schema.json"):
        _patterns(json.loads(path.read_text()), found)
    assert len(found) >= 8
    assert sorted(found - set(pattern_words())) == []
    facts = json.loads((root / "checker" / "facts.json").read_text())
    assert facts["pattern_words"] == pattern_words()


def test_a_bad_name_is_refused_with_the_rule_in_words(tmp_path, capsys):
    import json

    from icgbench.cli import main
    from leaderboard_helpers import submission_doc

    doc = submission_doc("random", "linear_lowhet")
    doc["model"]["name"] = "my model"
    path = tmp_path / "named.json"
    path.write_text(json.dumps(doc))
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out
    assert ('/model/name: "my model" is not a name of 1 to 64 ASCII letters, digits, '
            "'.', '_' or '-', starting with a letter or digit") in out
    assert "(?!" not in out and "[A-Za-z" not in out


def test_the_score_summary_says_why_a_category_is_at_zero(tmp_path, capsys):
    """The template (constant predictions) is below the floor everywhere: each category's
    line names the part, its floor and the model-free answer that set it; its graph, at its
    own best K, is not normalized, and the line says why."""
    from icgbench.cli import main

    sub = tmp_path / "template.json"
    assert main(["submission", "template", "--variant", "linear_lowhet", "--out",
                 str(sub)]) == 0
    assert main(["score", str(sub)]) == 0
    out = capsys.readouterr().out
    why = [line.strip() for line in out.splitlines() if line.startswith("    ")]
    assert [line.split(":")[0] for line in why] == [
        "risk", "latent", "intervention", "transfer", "structure"]
    assert all("is no better than its floor" in line for line in why[:4])
    assert re.search(r"spearman_reachable 0\.0000 is no better than its floor 0\.\d{4} "
                     r"\(\w+\)", why[0])
    assert "graded at this cohort's own best K" in why[4]
    assert "overall=n/a (overall is not computed: not normalized" in out
