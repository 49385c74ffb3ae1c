"""Another implementation, ajv (draft-07, what R's jsonvalidate uses), gives the same verdicts."""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path

import pytest
from jsonschema import Draft7Validator

from conftest import require, require_tool
from scoring_helpers import template

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tools" / "ajv" / "validate.js"


def _broken_submissions() -> list[tuple[str, dict]]:
    base = template()
    cases = []

    def case(name, edit):
        doc = copy.deepcopy(base)
        edit(doc)
        cases.append((name, doc))

    case("valid", lambda d: None)
    case("missing model", lambda d: d.pop("model"))
    case("unknown key", lambda d: d.update(extra=1))
    case("proba above 1", lambda d: d["risk_prediction"]["proba"].__setitem__(3, 1.2))
    case("proba negative", lambda d: d["cross_host_generalization"]["proba"].__setitem__(0, -1))
    case("string proba", lambda d: d["risk_prediction"]["proba"].__setitem__(0, "0.5"))
    case("boolean proba", lambda d: d["risk_prediction"]["proba"].__setitem__(0, True))
    case("bad id", lambda d: d["risk_prediction"]["subject_id"].__setitem__(0, "XX000001"))
    case("short id", lambda d: d["risk_prediction"]["subject_id"].__setitem__(0, "TE1"))
    case("unknown state", lambda d: d["latent_recovery"]["states"].update(bogus=[1.0]))
    case("unknown intervention",
         lambda d: d["intervention_conformity"]["interventions"].update(do_x=[0.5]))
    case("no block", lambda d: [d.pop(b) for b in ("risk_prediction", "latent_recovery",
                                                   "intervention_conformity",
                                                   "cross_host_generalization",
                                                   "structure_recovery")])
    case("unknown node", lambda d: d["structure_recovery"]["source"].__setitem__(0, "x"))
    case("k zero", lambda d: d["structure_recovery"].update(k=0))
    case("k valid", lambda d: d["structure_recovery"].update(k=12))
    case("bad hash", lambda d: d.update(variant_hash="XYZ"))
    case("negative seed", lambda d: d.update(seed=-1))
    case("float seed", lambda d: d.update(seed=1.5))
    case("integral float seed", lambda d: d.update(seed=1.0))
    case("wrong schema version", lambda d: d.update(schema_version="9.9"))
    case("empty array", lambda d: d["risk_prediction"].update(subject_id=[], proba=[]))
    case("model name escape", lambda d: d["model"].update(name="../x"))
    case("unknown variant", lambda d: d.update(variant="nope"))
    case("states empty", lambda d: d["latent_recovery"].update(states={}))
    # $ matches before a final newline in Python, not in JavaScript: the patterns avoid it
    case("name with final newline", lambda d: d["model"].update(name="mbcnet_v0_1\n"))
    case("version with final newline", lambda d: d["model"].update(version="0.1.0\n"))
    case("version with carriage return", lambda d: d["model"].update(version="0.1.0\r"))
    case("language with final newline", lambda d: d["model"].update(language="R\n"))
    case("url with final newline", lambda d: d["model"].update(url="https://x.org/\n"))
    case("javascript url", lambda d: d["model"].update(url="javascript:alert(1)"))
    case("version lone surrogate", lambda d: d["model"].update(version="\ud800"))
    case("oracle without the flag", lambda d: d["model"].update(name="oracle"))
    case("Oracle without the flag", lambda d: d["model"].update(name="OrAcLe"))
    case("oracle with the flag", lambda d: d["model"].update(name="oracle", oracle=True))
    case("oracles with a false flag", lambda d: d["model"].update(name="oracle", oracle=False))
    case("name 64 characters", lambda d: d["model"].update(name="a" * 64))
    case("name 65 characters", lambda d: d["model"].update(name="a" * 65))
    return cases


def _broken_entries() -> list[tuple[str, dict]]:
    base = json.loads((ROOT / "schemas" / "examples" / "leaderboard-entry.json").read_text())
    edits = {
        "valid": {},
        "model name with final newline": {"model_name": "mbcnet_v0_1\n"},
        "oracle entry": {"model_name": "oracle"},
        "ORACLE entry": {"model_name": "ORACLE"},
        "javascript path": {"submission_path": "javascript:alert(1)"},
        "path with final newline": {
            "submission_path": base["submission_path"] + "\n"},
        "path without version": {
            "submission_path": "submissions/mbcnet_v0_1/linear_lowhet__seed1.json.gz"},
        "escaping path": {"submission_path": "submissions/../../etc/passwd"},
        "no tier": {"tier": None},
        "version with carriage return": {"package_version": "0.1.0\r"},
        "old schema version": {"schema_version": "0.1"},
    }
    cases = []
    for name, edit in edits.items():
        doc = {**copy.deepcopy(base), **edit}
        if edit.get("tier", "") is None:
            del doc["tier"]
        cases.append((name, doc))
    return cases


def _ajv(schema: Path, documents: list[Path]) -> list[dict]:
    node = require_tool("node", "install nodejs and run `npm ci` in tools/ajv")
    require((ROOT / "tools" / "ajv" / "node_modules" / "ajv").is_dir(), "ajv",
            "run `npm ci` in tools/ajv")
    result = subprocess.run([node, str(SCRIPT), str(schema), *map(str, documents)],
                            capture_output=True, text=True, check=False, timeout=120)
    verdicts = json.loads(result.stdout)
    assert result.returncode == (0 if all(v["valid"] for v in verdicts) else 1), result.stderr
    return verdicts


def _agreement(schema_name: str, cases: list[tuple[str, dict]], folder: Path) -> list[bool]:
    """Each case's verdict, after checking that ajv and jsonschema give the same one."""
    documents = {}
    for label, doc in cases:
        path = folder / f"{schema_name}_{label.replace(' ', '_')}.json"
        path.write_text(json.dumps(doc))
        documents[path] = doc
    schema = ROOT / "schemas" / f"{schema_name}.schema.json"
    python = Draft7Validator(json.loads(schema.read_text()))
    verdicts = _ajv(schema, list(documents))
    assert len(verdicts) == len(documents)
    for v in verdicts:
        assert v["valid"] == python.is_valid(documents[Path(v["document"])]), v
    return [v["valid"] for v in verdicts]


@pytest.mark.slow  # node runs ajv over every document: the fast suite runs the tool once
def test_ajv_and_jsonschema_agree_on_examples_and_broken_documents(tmp_path):
    # valid, integral float seed, k valid, oracle with the flag, a 64-character name
    assert _agreement("submission", _broken_submissions(), tmp_path).count(True) == 5
    assert _agreement("leaderboard-entry", _broken_entries(), tmp_path).count(True) == 1
    for name in ("submission", "score-report", "leaderboard-entry"):
        example = ROOT / "schemas" / "examples" / f"{name}.json"
        (verdict,) = _ajv(ROOT / "schemas" / f"{name}.schema.json", [example])
        assert verdict["valid"], verdict["errors"]


def test_the_ajv_tool_exits_1_on_an_invalid_or_unreadable_document(tmp_path):
    bad, junk = tmp_path / "bad.json", tmp_path / "junk.json"
    bad.write_text(json.dumps({"schema_version": "1.0"}))
    junk.write_text("{not json")
    schema = ROOT / "schemas" / "submission.schema.json"
    verdicts = _ajv(schema, [ROOT / "schemas" / "examples" / "submission.json", bad, junk])
    assert [v["valid"] for v in verdicts] == [True, False, False]
    assert "not readable JSON" in verdicts[2]["errors"][0]
