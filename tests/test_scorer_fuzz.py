"""Fuzzing the scorer: mutated submissions are scored or rejected, never crash.

The fast suite runs 300 mutants; ``make test-slow`` runs the campaign of 10,000 (four
shards of 2,500, each mutant reproducible from its campaign and index). A mutant must end
in a score report that validates (every metric of a submitted block present), or in
SubmissionInvalid with ``$``-path messages; anything else, an exception of any other kind
included, fails the test and names the mutant.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from conftest import examples
from fuzz_helpers import mutant
from icgbench.cli import main
from icgbench.scorer import SubmissionInvalid, score
from icgbench.tasks import TASKS
from scoring_helpers import template

BASE = template()
CAMPAIGN = 2026
#: Metrics that are descriptive or may be undefined for a fixture-free cohort by design.
MAY_BE_NULL = {"delta__", "ate_error__"}


def check(data: bytes, label: str) -> str:
    """Score ``data``; 'scored' or 'invalid', or an AssertionError naming the mutant."""
    try:
        report = score(data)
    except SubmissionInvalid as exc:
        assert exc.errors, label
        assert all(e.startswith(("/", "... and ")) and len(e) < 1000 for e in exc.errors), (label,
                                                                             exc.errors)
        return "invalid"
    doc = report.document
    for task, section in doc["tasks"].items():
        for name, value in section["metrics"].items():
            if value is None:
                assert any(name.startswith(p) for p in MAY_BE_NULL), (label, task, name)
            else:
                assert math.isfinite(value), (label, task, name)
        assert set(section["metrics"]) >= set(TASKS[task].headline), label
    return "scored"


def campaign(shard: int, count: int, shards: int = 4) -> dict[str, int]:
    outcomes = {"scored": 0, "invalid": 0}
    for index in range(shard, count, shards):
        outcomes[check(mutant(BASE, CAMPAIGN, index), f"mutant {CAMPAIGN}/{index}")] += 1
    return outcomes


def test_mutants_are_scored_or_rejected():
    outcomes = campaign(0, 100, shards=1)  # the first of the slow campaign's 10,000
    assert outcomes["scored"] > 0 and outcomes["invalid"] > 0  # the campaign hits both sides


@pytest.mark.slow
@pytest.mark.parametrize("shard", range(4))
def test_the_10000_mutant_campaign(shard):
    outcomes = campaign(shard, 10_000)
    assert sum(outcomes.values()) == 2_500


@pytest.mark.slow
@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.integers(min_value=0, max_value=10_000), st.binary(min_size=1, max_size=4))
def test_damaged_bytes_are_rejected_cleanly(cut, junk):
    import json

    text = json.dumps({k: BASE[k] for k in BASE if k != "latent_recovery"}).encode()
    damaged = text[: cut % len(text)] + junk
    try:
        json.loads(damaged)
    except ValueError:
        pass
    else:  # the junk happened to complete the document: nothing to reject
        assume(False)
    with pytest.raises(SubmissionInvalid) as caught:
        score(damaged)
    assert caught.value.errors[0].startswith("/")


@pytest.mark.parametrize("index", range(12))
def test_cli_exit_code_matches_the_verdict(tmp_path, index, capsys):
    data = mutant(BASE, CAMPAIGN, index)
    path = tmp_path / "m.json"
    path.write_bytes(data)
    expected = 0 if check(data, f"mutant {index}") == "scored" else 1
    assert main(["validate", str(path)]) == expected
    assert main(["score", str(path), "--out", str(tmp_path / "r.json")]) == expected
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert (tmp_path / "r.json").exists() == (expected == 0)


#: The schema's extreme values, by the kind of number a field holds.
EXTREMES = {
    "integer": [1, 2**31, 2**53 + 1, 10**308, 1e308, 1.7976931348623157e308, 10**400],
    "number": [0.0, -0.0, 5e-324, -5e-324, 1e-300, 1.7976931348623157e308,
               -1.7976931348623157e308, 1e308, 10**400],
    "probability": [0.0, 1.0, 5e-324, 1 - 2**-53, 0.5],
}
#: (path to a field of the template, the kind of its numbers, a list of numbers or one)
FIELDS = [(("structure_recovery", "k"), "integer", False), (("seed",), "integer", False),
          (("structure_recovery", "score"), "number", True)]
FIELDS += [((task, key), "probability" if key == "proba" else "number", True)
           for task in BASE if isinstance(BASE[task], dict)
           for key, value in BASE[task].items()
           if isinstance(value, list) and value and isinstance(value[0], float)]


@pytest.mark.parametrize("n", examples(12, 300))
def test_whatever_validate_accepts_score_grades(tmp_path_factory, n):
    """Through the CLI: a file ``validate`` accepts is graded by ``score`` (exit 0) or
    refused with a message (1 or 2), never a traceback, whatever extreme value of the
    schema it holds (the k of 1e308 overflowed the random-F1 chance level once)."""
    settings(max_examples=n, deadline=None, derandomize=True)(given(
        st.sampled_from(FIELDS), st.data())(
            lambda field, data: _extreme_is_graded(tmp_path_factory, field, data)))()


def _extreme_is_graded(tmp_path_factory, field, data) -> None:
    import copy
    import json

    path_in_doc, kind, listed = field
    doc = copy.deepcopy(BASE)
    node = doc
    for key in path_in_doc[:-1]:
        node = node[key]
    key = path_in_doc[-1]
    pick = st.sampled_from(EXTREMES[kind])
    if listed:
        node[key] = [data.draw(pick) if data.draw(st.booleans()) else v for v in node[key]]
    else:
        node[key] = data.draw(pick)
    folder = tmp_path_factory.mktemp("extreme")
    path = folder / "s.json"
    path.write_text(json.dumps(doc))
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        validated = main(["validate", str(path)])
        scored = main(["score", str(path), "--out", str(folder / "r.json")])
    assert "Traceback" not in err.getvalue()
    if validated == 0:
        assert scored in (0, 1, 2), (path_in_doc, scored)
        assert scored == 0 or "error" in err.getvalue(), err.getvalue()
    assert (folder / "r.json").exists() == (scored == 0)
