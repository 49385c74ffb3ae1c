"""Conformance fixtures: tiny truth + submission pairs with hand-computed expected metrics.

Each ``schemas/conformance/<case>.json`` holds ``truth``, ``blocks`` (the submission's task
blocks) and ``expected`` (task -> metric -> value, null for undefined), and may hold
``expected_baselines`` (task -> metric -> the random baseline's value). ``truth`` is either
the parsed form (per split: subject_id, event, true_risk; end_states; counterfactual;
prior_direction; dgp_direction; nodes; edges) or ``tables``: truth tables in the release's
own column layout, which a port reads exactly as it reads the release's files (so the
fixture also pins the rules of reading them). A port of the scorer to another language
should reproduce every expected value; this module is the Python scorer's own check (run
by the test suite).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from icgbench.contract import package_schema_dir
from icgbench.scorer import semantic
from icgbench.scorer.truth import truth_from_tables
from icgbench.tasks import TASKS
from icgbench.tasks.base import Truth
from icgbench.tasks.normalized import category_score, mean_normalized, overall

TOLERANCE = 1e-9


def case_paths() -> list[Path]:
    """Every conformance case shipped with the package."""
    return sorted((package_schema_dir() / "conformance").glob("*.json"))


def truth_from_json(t: dict[str, Any]) -> Truth:
    """A :class:`Truth` from a fixture's ``truth`` object (absent parts are empty)."""
    if "tables" in t:
        return truth_from_tables({name: pa.table(columns)
                                  for name, columns in t["tables"].items()})
    splits = {s: t[s] for s in ("test", "target_test") if s in t}
    return Truth(
        ids={s: pa.array(v["subject_id"], type=pa.string()) for s, v in splits.items()},
        event={s: np.asarray(v["event"], dtype=np.float64) for s, v in splits.items()},
        true_risk={s: np.asarray(v["true_risk"], dtype=np.float64) for s, v in splits.items()},
        end_states={k: np.asarray(v, dtype=np.float64)
                    for k, v in t.get("end_states", {}).items()},
        counterfactual={k: np.asarray(v, dtype=np.float64)
                        for k, v in t.get("counterfactual", {}).items()},
        prior_direction=t.get("prior_direction", {}),
        dgp_direction=t.get("dgp_direction", {}),
        edges=tuple(tuple(e) for e in t.get("edges", [])),
        nodes=tuple(t.get("nodes", [])),
    )


@dataclass(frozen=True)
class Check:
    """One expected metric against the scorer's value."""

    case: str
    task: str
    metric: str
    expected: float | str | None
    actual: float | str | None

    @property
    def ok(self) -> bool:
        if self.expected is None or self.actual is None:
            return self.expected is None and self.actual is None
        if isinstance(self.expected, str) or isinstance(self.actual, str):
            return self.expected == self.actual
        return math.isclose(self.expected, self.actual, rel_tol=TOLERANCE, abs_tol=TOLERANCE)


def run_case(path: Path) -> list[Check]:
    """Score one fixture and compare every expected value: metrics, random baselines,
    normalized parts (``expected_normalized``: task -> ``<metric>.<floor|ceiling|
    normalized>`` or ``score``), the answers that set the floors, ``overall``, and the
    normalized means over cohorts (``means``: name -> higher_is_better, cohorts as
    (score, floor, ceiling), expected)."""
    case = json.loads(Path(path).read_text())
    if "means" in case:
        return [Check(path.stem, "mean", name, spec["expected"], mean_normalized(
            [tuple(c) for c in spec["cohorts"]], spec["higher_is_better"]))
            for name, spec in case["means"].items()]
    truth = truth_from_json(case["truth"])
    errors = [e for name, block in case["blocks"].items()
              for e in semantic.block_errors(name, block, truth)]
    if errors:
        raise ValueError(f"{path.name}: fixture blocks are invalid: {errors}")
    blocks = {name: semantic.align(name, block, truth) for name, block in case["blocks"].items()}
    checks = []
    for task, expected in case["expected"].items():
        result = TASKS[task].score(blocks, truth)
        for metric, value in expected.items():
            checks.append(Check(path.stem, task, metric, value, result.metrics.get(metric)))
    for task, expected in case.get("expected_baselines", {}).items():
        metrics = {m.name: m for m in TASKS[task].metrics}
        for metric, value in expected.items():
            checks.append(Check(path.stem, task, f"{metric} (random baseline)", value,
                                metrics[metric].baseline(truth)))
    return checks + _normalized_checks(path.stem, case, blocks, truth)


def _normalized_checks(name: str, case: dict[str, Any], blocks: dict[str, Any],
                       truth: Truth) -> list[Check]:
    if not {"expected_normalized", "expected_floor_answers", "expected_overall"} & set(case):
        return []
    results = {t: task.score(blocks, truth) for t, task in TASKS.items()
               if set(task.blocks) <= set(blocks)}
    sections = {t: category_score(TASKS[t], truth, r) for t, r in results.items()}
    checks = []
    for task, expected in case.get("expected_normalized", {}).items():
        for key, value in expected.items():
            if key == "score":
                actual = sections[task]["score"]
            else:
                metric, field = key.split(".")
                actual = sections[task]["parts"][metric][field]
            checks.append(Check(name, task, f"{key} (normalized)", value, actual))
    for task, answers in case.get("expected_floor_answers", {}).items():
        for metric, answer in answers.items():
            checks.append(Check(name, task, f"{metric} (floor answer)", answer,
                                sections[task]["parts"][metric]["floor_answer"]))
    if "expected_overall" in case:
        categories = {TASKS[t].category: s["score"] for t, s in sections.items()}
        checks.append(Check(name, "summary", "overall", case["expected_overall"],
                            overall(categories)))
    return checks
