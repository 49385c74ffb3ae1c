"""The vectorised validator gives jsonschema's verdict, on thousands of generated documents."""

from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft7Validator

from icgbench import contract
from icgbench.contract.vocabulary import STATES
from icgbench.generator import intervention_names
from icgbench.scorer.schema_check import REDUCE_FROM, is_valid, reduce_document, schema_errors

SCHEMA = contract.json_schema("submission")
VALIDATOR = Draft7Validator(SCHEMA)

HEADER = {"schema_version": "1.0", "data_version": "1.0.0", "tier": "small",
          "variant": "linear_lowhet", "variant_hash": "0123456789ab", "seed": 0,
          "model": {"name": "m", "version": "1", "language": "Python"}}

BAD_VALUES = [None, True, False, "0.5", [], {}, -0.0001, 1.0001, 1e308, -1e308, 2**60, -(2**70),
              10**400, 1.5, -3, 0, 1, 7, 1e-300, "", "TE000001\n", "TE00001", "te000001",
              "XX000001", "TE0000012", " TE000001", "TÉ000001", "TE000001 ", 0.5, "ROS",
              "ros", "ROS\n", "event ", "clone_fraction"]
NODES = SCHEMA["definitions"]["node"]["enum"]


@st.composite
def documents(draw):
    n = draw(st.integers(min_value=1, max_value=3 * REDUCE_FROM))
    ids = [f"TE{i:06d}" for i in range(1, n + 1)]
    probas = st.lists(st.floats(min_value=0, max_value=1, allow_nan=False), min_size=n,
                      max_size=n)
    numbers = st.lists(st.floats(allow_nan=False, allow_infinity=False, width=64),
                       min_size=n, max_size=n)
    doc = copy.deepcopy(HEADER)
    blocks = draw(st.sets(st.sampled_from(["risk_prediction", "latent_recovery",
                                            "intervention_conformity",
                                            "cross_host_generalization",
                                            "structure_recovery"]), max_size=5))
    for block in sorted(blocks):
        if block == "structure_recovery":  # node arrays: an enum, checked vectorised too
            nodes = st.lists(st.sampled_from(NODES), min_size=n, max_size=n)
            doc[block] = {"source": draw(nodes), "target": draw(nodes), "score": draw(numbers)}
        elif block in ("risk_prediction", "cross_host_generalization"):
            doc[block] = {"subject_id": list(ids), "proba": draw(probas)}
        elif block == "latent_recovery":
            chosen = draw(st.lists(st.sampled_from(STATES), min_size=1, max_size=3, unique=True))
            doc[block] = {"subject_id": list(ids), "states": {s: draw(numbers) for s in chosen}}
        else:
            chosen = draw(st.lists(st.sampled_from(intervention_names()), min_size=1,
                                   max_size=3, unique=True))
            doc[block] = {"subject_id": list(ids), "proba": draw(probas),
                          "interventions": {d: draw(probas) for d in chosen}}
    for _ in range(draw(st.integers(min_value=0, max_value=3))):
        mutate(doc, draw)
    return doc


def _arrays(node, path=()):
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _arrays(v, (*path, k))
    elif isinstance(node, list):
        yield path, node


def mutate(doc, draw):
    kind = draw(st.sampled_from(["element", "element", "element", "drop_key", "extra_key",
                                 "empty", "retype", "header"]))
    arrays = list(_arrays(doc))
    if kind == "element" and arrays:
        _, values = draw(st.sampled_from(arrays))
        if values:
            values[draw(st.integers(0, len(values) - 1))] = draw(st.sampled_from(BAD_VALUES))
    elif kind == "empty" and arrays:
        _, values = draw(st.sampled_from(arrays))
        values.clear()
    elif kind == "drop_key":
        key = draw(st.sampled_from(sorted(doc)))
        del doc[key]
    elif kind == "extra_key":
        doc[draw(st.sampled_from(["extra", "risk", "model2"]))] = 1
    elif kind == "retype" and arrays:
        path, _ = draw(st.sampled_from(arrays))
        node = doc
        for part in path[:-1]:
            node = node[part]
        node[path[-1]] = draw(st.sampled_from(["x", 1, {"a": 1}, None]))
    elif kind == "header":
        doc[draw(st.sampled_from(["seed", "tier", "variant_hash", "schema_version"]))] = (
            draw(st.sampled_from([-1, "large", "ABC", 1.5, None])))


def _same_verdict(doc) -> None:
    """The same verdict, the same first messages in document order and the same count."""
    full = VALIDATOR.is_valid(doc)
    assert is_valid(doc, SCHEMA, fast=True) == full
    for listed in (1, 5, 10_000):
        fast = schema_errors(doc, SCHEMA, max_errors=listed)
        assert fast == schema_errors(doc, SCHEMA, max_errors=listed, fast=False)
    assert (fast[1] == 0) == full


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.data_too_large])
@given(documents())
def test_fast_validation_agrees_with_jsonschema(doc):
    _same_verdict(doc)


@pytest.mark.slow
@settings(max_examples=30_000, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                      HealthCheck.data_too_large])
@given(documents())
def test_fast_validation_agrees_with_jsonschema_long_campaign(doc):
    _same_verdict(doc)


def test_long_arrays_are_actually_shortened():
    doc = copy.deepcopy(HEADER)
    ids = [f"TE{i:06d}" for i in range(1, 1001)]
    doc["risk_prediction"] = {"subject_id": ids, "proba": [0.5] * 1000}
    doc["risk_prediction"]["proba"][700] = 2.0
    reduced, maps = reduce_document(doc, SCHEMA)
    assert len(reduced["risk_prediction"]["subject_id"]) == 1
    assert maps[("risk_prediction", "proba")].kept == [0, 700]
    assert schema_errors(doc, SCHEMA) == (
        ["/risk_prediction/proba/700: 2 is greater than the maximum of 1"], 1)


def test_an_infinite_float_beside_a_small_integer_keeps_the_fast_path():
    """Only integers beyond 2**53 need jsonschema's exact comparison: a 1e400 (read as an
    infinity) beside a 2 once sent 200,000 wrong-typed probabilities to jsonschema whole
    (9 s where the fast path takes 0.15 s)."""
    doc = copy.deepcopy(HEADER)
    proba = [2, float("inf"), 0.5] + ["0.5"] * 1000
    doc["risk_prediction"] = {"subject_id": [f"TE{i:06d}" for i in range(1, 1004)],
                              "proba": proba}
    _, maps = reduce_document(doc, SCHEMA)
    assert ("risk_prediction", "proba") in maps
    assert schema_errors(doc, SCHEMA) == schema_errors(doc, SCHEMA, fast=False)
    proba[0] = 2**53 + 1  # a large integer: compared exactly, by jsonschema
    assert ("risk_prediction", "proba") not in reduce_document(doc, SCHEMA)[1]


def test_every_error_of_a_long_array_is_counted_and_the_first_are_listed():
    doc = copy.deepcopy(HEADER)
    ids = [f"TE{i:06d}" for i in range(1, 401)]
    doc["risk_prediction"] = {"subject_id": list(range(400)), "proba": [1.5] * 400}
    lines, count = schema_errors(doc, SCHEMA)
    assert count == 800 and len(lines) == 6
    assert lines[:2] == ["/risk_prediction/subject_id/0: 0 is not of type string",
                         "/risk_prediction/subject_id/1: 1 is not of type string"]
    assert lines[-1] == "... and 795 more (800 in all)"
    doc["risk_prediction"]["subject_id"] = ids
    assert schema_errors(doc, SCHEMA, max_errors=2)[0] == [
        "/risk_prediction/proba/0: 1.5 is greater than the maximum of 1",
        "/risk_prediction/proba/1: 1.5 is greater than the maximum of 1",
        "... and 398 more (400 in all)"]


def test_python_newline_semantics_of_pattern_are_kept():
    doc = copy.deepcopy(HEADER)
    ids = [f"TE{i:06d}" for i in range(1, 41)]
    ids[5] = "TE000006\n"  # Python's $ matches before a final newline: jsonschema accepts it
    doc["risk_prediction"] = {"subject_id": ids, "proba": [0.5] * 40}
    assert VALIDATOR.is_valid(doc) and is_valid(doc, SCHEMA)


EDGE_SCHEMA = {
    "type": "object",
    "properties": {
        "counts": {"type": "array", "minItems": 1,
                   "items": {"type": "integer", "minimum": 0, "maximum": 100}},
        "rates": {"type": "array",
                  "items": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1}},
        "names": {"type": "array",
                  "items": {"type": "string", "minLength": 2, "maxLength": 4,
                            "pattern": "^[a-z]+$"}},
        "free": {"type": "array", "items": {"type": "string", "maxLength": 3}},
        "mixed": {"type": "array", "items": {"oneOf": [{"type": "integer"},
                                                      {"type": "string"}]}},
        "nodes": {"type": "array", "items": {"enum": ["ab", "cd"]}},
        "typed": {"type": "array", "items": {"type": "string", "enum": ["ab", "cd"]}},
    },
}
EDGE_CASES = [
    ("counts", 1.5), ("counts", 2.0), ("counts", -1), ("counts", 101), ("counts", float("inf")),
    ("counts", float("nan")), ("counts", "7"), ("counts", 100), ("counts", 0),
    ("rates", 0.0), ("rates", 1.0), ("rates", 1e-300), ("rates", 0.999), ("rates", True),
    ("names", "a"), ("names", "ab"), ("names", "abcd"), ("names", "abcde"), ("names", "ab\n"),
    ("names", "Ab"), ("names", "ab1"), ("names", 7),
    ("free", "abcd"), ("free", ""), ("free", "ab\n"), ("mixed", 1.5), ("mixed", "x"),
    ("nodes", "cd"), ("nodes", "ef"), ("nodes", "ab\n"), ("nodes", 1), ("nodes", None),
    ("nodes", "AB"), ("typed", "cd"), ("typed", "ef"), ("typed", 1), ("typed", ""),
]


@pytest.mark.parametrize(("field", "value"), EDGE_CASES)
@pytest.mark.parametrize("position", [0, REDUCE_FROM + 3])
def test_the_vectorised_path_agrees_on_every_item_rule(field, value, position):
    good = {"counts": 3, "rates": 0.5, "names": "abc", "free": "ab", "mixed": 1,
            "nodes": "ab", "typed": "ab"}
    doc = {name: [v] * (REDUCE_FROM + 8) for name, v in good.items()}
    doc[field][position] = value
    expected = sorted(f"{'.'.join(map(str, e.absolute_path))}" for e in
                      Draft7Validator(EDGE_SCHEMA).iter_errors(doc))
    assert is_valid(doc, EDGE_SCHEMA) == (not expected) == is_valid(doc, EDGE_SCHEMA, False)
    lines, count = schema_errors(doc, EDGE_SCHEMA)
    assert count == len(lines) == len(expected)
    assert all(line.startswith(f"/{field}/{position}:") for line in lines), lines
    assert (lines, count) == schema_errors(doc, EDGE_SCHEMA, fast=False)


NESTED_SCHEMA = {
    "type": "object",
    "additionalProperties": {"type": "array", "minItems": 20,
                             "items": {"type": "number", "minimum": 0}},
}


@pytest.mark.parametrize(("length", "bad_at"), [(24, None), (24, 21), (19, None), (40, 0)])
def test_the_vectorised_path_keeps_min_items_and_follows_additional_properties(length, bad_at):
    values = [1.0] * length
    if bad_at is not None:
        values[bad_at] = -1.0
    doc = {"any_name": values}
    expected = [list(e.absolute_path) for e in Draft7Validator(NESTED_SCHEMA).iter_errors(doc)]
    assert is_valid(doc, NESTED_SCHEMA) == (not expected) == is_valid(doc, NESTED_SCHEMA, False)
    reduced, maps = reduce_document(doc, NESTED_SCHEMA)
    if length >= 20:  # long enough to shorten, never below minItems
        assert len(reduced["any_name"]) >= 20 and ("any_name",) in maps
    if bad_at is not None:
        assert schema_errors(doc, NESTED_SCHEMA)[0][0].startswith(f"/any_name/{bad_at}:")


@pytest.mark.parametrize(("array_schema", "values"), [
    ({"type": "array", "uniqueItems": True, "items": {"type": "number"}}, [1.0] * 20),
    ({"type": "array", "items": {"type": "number", "multipleOf": 2}}, [2.0] * 19 + [3.0]),
    ({"type": "array", "items": {"type": "string", "pattern": "^\\d+$"}}, ["12"] * 19 + ["1a"]),
    ({"type": "array", "items": {"enum": ["1", 1]}}, [1] * 19 + [1.5]),
])
def test_arrays_the_fast_path_cannot_decide_go_to_jsonschema_whole(array_schema, values):
    schema = {"type": "object", "properties": {"a": array_schema}}
    doc = {"a": values}
    assert not Draft7Validator(schema).is_valid(doc)
    assert not is_valid(doc, schema)
    reduced, maps = reduce_document(doc, schema)
    assert reduced == doc and maps == {}
