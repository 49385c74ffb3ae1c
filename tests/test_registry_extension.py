"""Adding a task or a variant touches one file: everything that lists them derives.

In a copy of the package, one new module ``tasks/toy_task.py`` (a task and its block's
schema) and one new entry in ``generator/variants.py``'s registry are the only edits; a
fresh interpreter then finds the toy in every list the contract and its readers derive:
the blocks and their splits, the categories, the submission schema (its block, its one-of,
its variant enum), the score report's schema (its category enum and normalized scores),
the checker's published facts (which R reads: its task names, blocks, splits and
categories),
the reference models that answer every block, and the variant hashes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

TOY_TASK = '''
"""A toy task: the mean predicted probability of the test subjects."""

from icgbench.tasks.base import IDS, PROBABILITIES, Metric, Task, TaskResult


def score(blocks, truth):
    return TaskResult({"mean": sum(blocks["toy_task"]["proba"]) / len(blocks["toy_task"]["proba"])})


TASK = Task(name="toy_task", order=60, description="A toy.", blocks=("toy_task",), category="toy",
            truth_tables=("test_outcomes",), headline=("mean",), score=score,
            metrics=(Metric("mean", None, "The mean prediction."),), split="target_test",
            block_schema={"type": "object", "required": ["subject_id", "proba"],
                          "properties": {"subject_id": IDS, "proba": PROBABILITIES}})
'''

TOY_VARIANT = '''
_REGISTRY["toy_variant"] = _variant("toy_variant", "A toy.", host_sd_multiplier=1.5)
'''

PROBE = '''
import json
from icgbench.contract import json_schemas
from icgbench.generator import get_variant, variant_names
from icgbench.leaderboard.checker import static_facts
from icgbench.models import model_class
from icgbench.tasks import BLOCK_SPLITS, BLOCKS, CATEGORIES
from icgbench.tasks.normalized import overall_note
schema = json_schemas.submission_schema()
report = json_schemas.score_report_schema()
facts = static_facts()
print(json.dumps({
    "blocks": list(BLOCKS), "splits": BLOCK_SPLITS,
    "schema_block": "toy_task" in schema["properties"],
    "one_of": [list(a["required"]) for a in schema["anyOf"]],
    "variants": schema["properties"]["variant"]["enum"],
    "facts_tasks": [t[0] for t in facts["tasks"]], "facts_splits": facts["block_splits"],
    "facts_hashes": sorted(facts["variant_hashes"]),
    "oracle": list(model_class("oracle").blocks), "random": list(model_class("random").blocks),
    "hash": get_variant("toy_variant").variant_hash, "registered": variant_names(),
    "categories": list(CATEGORIES), "facts_categories": facts["categories"],
    "facts_task_categories": facts["task_categories"],
    "report_category": report["properties"]["tasks"]["additionalProperties"]["properties"][
        "normalized"]["properties"]["category"]["enum"],
    "report_normalized": report["properties"]["summary"]["properties"]["normalized"][
        "required"],
    "overall_note": overall_note(),
}))
'''


def _probe(src: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(src)}
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, cwd=src.parent,
                         capture_output=True, text=True, timeout=300, check=True).stdout
    return json.loads(out)


def test_a_toy_task_and_a_toy_variant_reach_every_derived_list(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(ROOT / "src" / "icgbench", src / "icgbench",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "schemas", src / "icgbench" / "schemas")  # as a wheel holds it
    (src / "icgbench" / "tasks" / "toy_task.py").write_text(TOY_TASK)
    with open(src / "icgbench" / "generator" / "variants.py", "a") as variants:
        variants.write(TOY_VARIANT)
    seen = _probe(src)
    assert seen["blocks"][-1] == "toy_task" and seen["splits"]["toy_task"] == "target_test"
    assert seen["schema_block"] and ["toy_task"] in seen["one_of"]
    assert seen["variants"][-1] == "toy_variant" == seen["registered"][-1]
    assert seen["facts_tasks"][-1] == "toy_task"
    assert seen["facts_splits"]["toy_task"] == "target_test"
    assert "toy_variant" in seen["facts_hashes"] and len(seen["hash"]) == 12
    assert seen["oracle"][-1] == seen["random"][-1] == "toy_task"
    for listed in ("categories", "facts_categories", "report_category", "report_normalized"):
        assert seen[listed][-1] == "toy" and len(seen[listed]) == 6, (listed, seen[listed])
    assert seen["facts_task_categories"]["toy_task"] == "toy"  # what R reads
    assert "structure, toy)" in seen["overall_note"]
