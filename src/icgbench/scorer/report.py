"""The score report: every metric, the summary, provenance and timings."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft7Validator

from icgbench import __version__, contract
from icgbench.release.tiers import UNFROZEN_NOTICE
from icgbench.tasks import TASKS
from icgbench.tasks.base import TaskResult, Truth


@dataclass(frozen=True)
class ScoreReport:
    """A validated score report (``document`` follows schemas/score-report.schema.json)."""

    document: dict[str, Any]

    @property
    def summary(self) -> dict[str, Any]:
        return self.document["summary"]

    def metrics(self, task: str) -> dict[str, float | None]:
        return self.document["tasks"][task]["metrics"]

    def to_json(self) -> str:
        return json.dumps(self.document, indent=2, allow_nan=False) + "\n"


def _clean(value: Any) -> Any:
    """JSON-safe: numpy scalars to Python, non-finite floats to None."""
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, str):
        value = value.item()
    if (isinstance(value, float) and value != value) or value in (float("inf"), float("-inf")):
        return None
    return value


def build_report(header: dict[str, Any], results: dict[str, TaskResult],
                 summary: dict[str, Any], truth: Truth, provenance: dict[str, Any],
                 timings: dict[str, float],
                 categories: dict[str, dict[str, Any]] | None = None,
                 withheld: list[str] | None = None) -> ScoreReport:
    """Assemble and validate a report; each task's section carries its category's
    normalized score with each part's chance level and ceiling. ``withheld`` names what a
    sealed public half does not show (:mod:`icgbench.tasks.withheld`): neither its value
    nor its truth-dependent baseline is in the report."""
    from icgbench.tasks.withheld import WITHHELD_NOTE

    categories = categories or {}
    info = {
        name: {m.name: {"higher_is_better": m.higher_is_better,
                        "random_baseline": m.baseline(truth), "best": m.best}
               for m in TASKS[name].metrics if m.name in r.metrics or not m.cohort_level}
        for name, r in results.items()
    }
    document = _clean({
        "schema_version": contract.json_schema("score-report")["properties"]["schema_version"][
            "const"],
        "scorer_version": __version__,
        "data_version": provenance["data_version"],
        "tier": header["tier"],
        "frozen": provenance["frozen"],
        **({} if provenance["frozen"] else {"notice": UNFROZEN_NOTICE}),
        "variant": header["variant"],
        "variant_hash": header["variant_hash"],
        "seed": header["seed"],
        "release_fingerprint": provenance["release_fingerprint"],
        "submission": provenance["submission"],
        "model": header["model"],
        "tasks": {name: {"metrics": r.metrics, "details": r.details,
                         **({"normalized": {"category": TASKS[name].category,
                                            **categories[TASKS[name].category]}}
                            if TASKS[name].category in categories else {})}
                  for name, r in results.items()},
        "summary": summary,
        **({"withheld": {"note": WITHHELD_NOTE, "metrics": withheld}} if withheld else {}),
        "metric_info": info,
        "timings": timings,
    })
    errors = sorted(Draft7Validator(contract.json_schema("score-report")).iter_errors(document),
                    key=lambda e: list(e.absolute_path))
    if errors:  # a bug in the scorer, never the user's fault
        raise AssertionError(f"score report violates its schema: {errors[0].message} at "
                             f"{list(errors[0].absolute_path)}")
    return ScoreReport(document)
