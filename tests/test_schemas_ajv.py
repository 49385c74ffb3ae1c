"""Another implementation, ajv (draft-07, what R's jsonvalidate uses), gives the same verdicts."""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path

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
    return cases


def _ajv(schema: Path, documents: list[Path]) -> list[dict]:
    node = require_tool("node", "install nodejs and run `npm ci` in tools/ajv")
    require((ROOT / "tools" / "ajv" / "node_modules" / "ajv").is_dir(), "ajv",
            "run `npm ci` in tools/ajv")
    result = subprocess.run([node, str(SCRIPT), str(schema), *map(str, documents)],
                            capture_output=True, text=True, check=False, timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_ajv_and_jsonschema_agree_on_examples_and_broken_submissions(tmp_path):
    jobs = []
    for name in ("submission", "score-report", "leaderboard-entry"):
        jobs.append((name, ROOT / "schemas" / "examples" / f"{name}.json"))
    documents = {}
    for label, doc in _broken_submissions():
        path = tmp_path / f"{label.replace(' ', '_')}.json"
        path.write_text(json.dumps(doc))
        documents[path] = doc
    submission_schema = ROOT / "schemas" / "submission.schema.json"
    verdicts = _ajv(submission_schema, list(documents))
    python = Draft7Validator(json.loads(submission_schema.read_text()))
    assert len(verdicts) == len(documents)
    for v in verdicts:
        expected = python.is_valid(documents[Path(v["document"])])
        assert v["valid"] == expected, (v["document"], v["errors"])
    assert sum(v["valid"] for v in verdicts) == 3  # valid, integral float seed, k valid
    for name, example in jobs:
        (verdict,) = _ajv(ROOT / "schemas" / f"{name}.schema.json", [example])
        assert verdict["valid"], verdict["errors"]
