"""Fuzzing the scorer: mutated submissions are scored or rejected, never crash."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from icgbench.cli import main
from icgbench.scorer import ScoreReport, SubmissionInvalid, score
from scoring_helpers import template

BASE = template()
BLOCKS = ["risk_prediction", "latent_recovery", "intervention_conformity",
          "cross_host_generalization"]
ODD = [None, True, "x", -1, 2, 1e300, 0.5, [], {}, "TE000001", 10**30]


def _containers(node, path=()):
    yield path, node
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _containers(v, (*path, k))


@st.composite
def mutated(draw):
    doc = json.loads(json.dumps(BASE))
    for block in BLOCKS:  # keep the documents small: most mutations need one block
        if draw(st.booleans()):
            del doc[block]
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        places = [n for _, n in _containers(doc) if isinstance(n, dict | list) and n]
        node = draw(st.sampled_from(places))
        op = draw(st.sampled_from(["drop", "duplicate", "retype", "truncate", "reorder",
                                   "out_of_range", "wrong_length"]))
        if isinstance(node, dict):
            key = draw(st.sampled_from(sorted(node)))
            if op == "drop":
                del node[key]
            elif op == "duplicate":
                node[key + "_copy"] = node[key]
            else:
                node[key] = draw(st.sampled_from(ODD))
        else:
            i = draw(st.integers(0, len(node) - 1))
            if op == "drop":
                del node[i]
            elif op == "duplicate":
                node.insert(i, node[i])
            elif op == "retype":
                node[i] = draw(st.sampled_from(ODD))
            elif op == "truncate":
                del node[i:]
            elif op == "reorder":
                node.reverse()
            elif op == "out_of_range":
                node[i] = draw(st.sampled_from([-0.5, 1.5, -1e9, 1e9]))
            else:
                node.append(node[0])
    return doc


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.data_too_large])
@given(mutated())
def test_mutated_submissions_are_scored_or_rejected(doc):
    try:
        result = score(doc)
    except SubmissionInvalid as exc:
        assert exc.errors and all(e.startswith("$") for e in exc.errors)
    else:
        assert isinstance(result, ScoreReport)


@settings(max_examples=150, deadline=None)
@given(st.integers(min_value=0, max_value=10_000), st.binary(min_size=1, max_size=4))
def test_damaged_bytes_are_rejected_cleanly(cut, junk):
    text = json.dumps({k: BASE[k] for k in BASE if k != "latent_recovery"}).encode()
    damaged = text[: cut % len(text)] + junk
    try:
        score(damaged)
    except SubmissionInvalid as exc:
        assert exc.errors[0].startswith("$")


@pytest.mark.parametrize("seed", range(4))
def test_cli_exit_code_is_0_or_1_for_mutants(tmp_path, seed, capsys):
    doc = json.loads(json.dumps(BASE))
    if seed == 0:
        doc["intervention_conformity"]["interventions"]["do_repair_inhibition"] = {"a": 1}
    if seed == 1:
        doc["risk_prediction"]["proba"].reverse()
    if seed == 2:
        doc["risk_prediction"]["subject_id"].reverse()
    if seed == 3:
        doc["seed"] = "zero"
    path = tmp_path / "m.json"
    path.write_text(json.dumps(doc))
    code = main(["score", str(path), "--out", str(tmp_path / "r.json")])
    assert code in (0, 1)
    assert "Traceback" not in capsys.readouterr().out
