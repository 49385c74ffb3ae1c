"""The JSON Schemas of the scoring spec: well-formed, generated, examples valid."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft7Validator

from icgbench import contract
from icgbench.contract.json_schemas import schema_documents

ROOT = Path(__file__).resolve().parents[1]
NAMES = ["submission", "score-report", "leaderboard-entry"]


@pytest.mark.parametrize("name", NAMES)
def test_schema_is_draft7_with_a_versioned_id(name):
    doc = json.loads((ROOT / "schemas" / f"{name}.schema.json").read_text())
    Draft7Validator.check_schema(doc)
    assert doc["$schema"] == "http://json-schema.org/draft-07/schema#"
    assert doc["$id"].startswith(f"urn:icg-bench:schema:{name}:")
    assert doc["$id"].rsplit(":", 1)[1][0].isdigit()


@pytest.mark.parametrize("name", NAMES)
def test_committed_schema_is_generated(name):
    path = ROOT / "schemas" / f"{name}.schema.json"
    assert json.loads(path.read_text()) == schema_documents()[name], "run `make contract`"
    assert contract.json_schema(name) == schema_documents()[name]


@pytest.mark.parametrize("name", NAMES)
def test_example_validates(name):
    example = json.loads((ROOT / "schemas" / "examples" / f"{name}.json").read_text())
    errors = list(Draft7Validator(contract.json_schema(name)).iter_errors(example))
    assert errors == []


def test_submission_schema_lists_every_state_and_intervention():
    from icgbench.contract.vocabulary import STATES
    from icgbench.generator import intervention_names

    props = contract.json_schema("submission")["properties"]
    assert list(props["latent_recovery"]["properties"]["states"]["properties"]) == list(STATES)
    assert list(props["intervention_conformity"]["properties"]["interventions"][
        "properties"]) == intervention_names()
