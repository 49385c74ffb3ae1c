"""Reviewer-ready metadata (issue 40): both tiers' croissant.json carry the Croissant
Responsible-AI fields, and docs/datasheet.md answers the Datasheets for Datasets questions,
quoting those fields word for word and stating no count the descriptors could contradict."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from icgbench.release import croissant

ROOT = Path(__file__).resolve().parents[1]
CROISSANT = {"small": ROOT / "croissant.json", "full": ROOT / "datasets/full/croissant.json"}
DATASHEET = ROOT / "docs" / "datasheet.md"
RAI_CONTEXT = "http://mlcommons.org/croissant/RAI/"


def _flat(text: str) -> str:
    """Markdown prose as one line: quote marks, list marks and line breaks removed."""
    text = re.sub(r"^\s*(?:>|-)\s?", "", text, flags=re.MULTILINE)
    return " ".join(text.split())


@pytest.mark.parametrize("tier", list(CROISSANT))
def test_both_tiers_croissant_json_carry_the_rai_fields(tier):
    doc = json.loads(CROISSANT[tier].read_text())
    assert doc["@context"]["rai"] == RAI_CONTEXT
    assert doc["rai:dataCollectionType"] == ["Simulation"]
    assert "simulated" in doc["rai:dataCollection"]
    assert doc["rai:personalSensitiveInformation"].startswith("None.")
    biases = " ".join(doc["rai:dataBiases"])
    assert "by construction" in biases
    limitations = " ".join(doc["rai:dataLimitations"])
    for said in ("synthetic", "data-generating process", "real people",
                 "carcinogenicity classification"):
        assert said in limitations.lower(), said
    uses = doc["rai:dataUseCases"]
    prohibited = [u for u in uses if u.startswith("Prohibited:")]
    assert len(prohibited) == 1 and "real chemical" in prohibited[0]
    assert "real person" in prohibited[0]
    assert doc["rai:dataReleaseMaintenancePlan"]


def test_the_datasheet_quotes_every_rai_field_word_for_word():
    sheet = _flat(DATASHEET.read_text())
    texts = [croissant.RAI_DATA_COLLECTION, croissant.RAI_PERSONAL_INFORMATION,
             croissant.RAI_MAINTENANCE_PLAN, *croissant.RAI_BIASES, *croissant.RAI_LIMITATIONS,
             *croissant.RAI_USE_CASES, *croissant.RAI_DATA_COLLECTION_TYPE]
    missing = [t for t in texts if " ".join(t.split()) not in sheet]
    assert not missing, missing


def test_the_datasheet_answers_every_datasheets_for_datasets_section():
    headings = re.findall(r"^## (.+)$", DATASHEET.read_text(), flags=re.MULTILINE)
    assert headings == ["Motivation", "Composition", "Collection process",
                        "Preprocessing, cleaning, labelling", "Uses", "Distribution",
                        "Maintenance"]


def test_the_datasheet_states_no_count():
    """Counts live in the descriptors: the datasheet gives none to go stale (the digits
    of a hash's and the licence's names are no counts; the licence is the descriptor's)."""
    licence = json.loads((ROOT / "datapackage.json").read_text())["licenses"][0]["name"]
    text = DATASHEET.read_text()
    assert f"({licence})" in text
    assert re.findall(r"\d+", text.replace("SHA-256", "").replace(licence, "")) == []


def test_the_readme_and_the_data_guide_link_the_datasheet():
    assert "(docs/datasheet.md)" in (ROOT / "README.md").read_text()
    assert "(datasheet.md)" in (ROOT / "docs" / "data.md").read_text()
