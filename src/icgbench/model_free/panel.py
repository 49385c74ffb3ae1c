"""Grading the panel on one cohort: every answer's score, and what its floor is chosen by.

Each answer of :mod:`.answers` is graded exactly as a submission of it would be (its blocks
checked and aligned by the scorer's code, every task whose blocks it has; a graph at the K*
of the answer's own graph on the tier's calibration cohort, as every submission's is), and
every normalized metric's value is recorded, beside the score the floor's choice reads
where it reads the train split (:mod:`.floors`): one row (answer, task, metric, value,
selection). A guess made at random records the mean over its equally likely predictions.
``chance`` records each metric's chance level (the random baseline, or the rule the task
names).

The release step grades the panel when it freezes a tier (:mod:`icgbench.release.freeze`),
from the cohort's published (rounded) tables, so that scoring needs nothing but the truth
tables, in any language.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from icgbench.generator.variants import Variant
from icgbench.model_free.answers import (
    ANSWERS,
    STRUCTURE_ANSWERS,
    Blocks,
    Donors,
    Prediction,
    blocks,
    made,
)
from icgbench.model_free.inputs import PanelInputs
from icgbench.tasks.base import Truth

#: Published precision of the table's values.
DECIMALS = 6
#: The name of the chance level's rows.
CHANCE = "chance"


@dataclass(frozen=True)
class Row:
    """One answer's score of one normalized metric on one cohort; ``selection`` is the
    train-split score the floor's choice reads (None where the choice reads other
    cohorts)."""

    answer: str
    task: str
    metric: str
    value: float
    selection: float | None


def _graded(submission: Blocks, truth: Truth) -> dict[tuple[str, str], float]:
    """(task, normalized metric) -> value of one submission's blocks."""
    from icgbench.scorer import semantic
    from icgbench.tasks import TASKS

    aligned = {name: semantic.align(name, block, truth) for name, block in submission.items()}
    out = {}
    for name, task in TASKS.items():
        if task.normalized and set(task.blocks) <= set(aligned):
            result = task.score(aligned, truth)
            for part in task.normalized:
                value = result.metrics.get(part.metric)
                if value is not None and math.isfinite(value):
                    out[(name, part.metric)] = float(value)
    return out


def _selections(inputs: PanelInputs, p: Prediction) -> dict[str, float]:
    """The train-split scores the floor's choice reads, by category (:mod:`.floors`)."""
    from icgbench.model_free.selection import TRAIN_CRITERIA

    out = {}
    for category, (_, criterion) in TRAIN_CRITERIA.items():
        value = criterion(inputs, p)
        if value is not None:
            out[category] = value
    return out


def _mean(values: list[float]) -> float:
    return math.fsum(values) / len(values)


def panel_rows(inputs: PanelInputs, truth: Truth, donors: Donors,
               k_stars: Mapping[str, int] | None = None) -> list[Row]:
    """Every answer's rows on one cohort, then the chance level's; ``k_stars`` gives each
    graph answer's calibrated K (none: graded at its own best K)."""
    from icgbench.tasks import TASKS

    k_stars = k_stars or {}
    rows = []
    for name, prediction in made(inputs, donors).items():
        predictions = prediction if isinstance(prediction, list) else [prediction]
        graded = [_graded(blocks(inputs, p, k_stars.get(name)), truth) for p in predictions]
        chosen_by = [_selections(inputs, p) for p in predictions]
        for key in graded[0]:
            category = TASKS[key[0]].category
            selection = (round(_mean([c[category] for c in chosen_by]), DECIMALS)
                         if category in chosen_by[0] else None)
            rows.append(Row(name, key[0], key[1], round(_mean([g[key] for g in graded]),
                                                        DECIMALS), selection))
    return rows + chosen_on_train(rows) + chance_rows(truth)


#: The answer that picks, on each cohort, the answer whose train score is best.
ON_TRAIN = "chosen_on_train"


def chosen_on_train(rows: list[Row]) -> list[Row]:
    """A combination the panel makes of its own answers: per normalized metric whose
    category has a train criterion, the score of the answer whose score on the cohort's
    train split (``selection``) is best (the first in panel order among equals). It reads
    the train truth, which is public, and nothing of the held-out subjects: on a
    misspecified variant it picks the reversal guess the train events favour."""
    best: dict[tuple[str, str], Row] = {}
    for r in rows:
        key = (r.task, r.metric)
        if r.selection is not None and (key not in best or r.selection > best[key].selection):
            best[key] = r
    return [Row(ON_TRAIN, r.task, r.metric, r.value, r.selection) for r in best.values()]


def chance_rows(truth: Truth) -> list[Row]:
    """Each normalized metric's chance level on this truth, as the answer ``chance``."""
    from icgbench.model_free.selection import TRAIN_CRITERIA
    from icgbench.tasks import TASKS
    from icgbench.tasks.normalized import chance_level

    rows = []
    for name, task in TASKS.items():
        for part in task.normalized:
            value = chance_level(task, part.metric, truth)
            if value is None:
                continue
            criterion = TRAIN_CRITERIA.get(task.category)
            rows.append(Row(CHANCE, name, part.metric, round(float(value), DECIMALS),
                            None if criterion is None else criterion[0]))
    return rows


def k_stars(calibration: tuple[Variant, Any], donors_of: Callable[[Variant, Any], Donors]
            ) -> dict[str, int]:
    """Each graph answer's K* on the calibration cohort: the K of highest directed F1 of
    its graph there, as the calibration protocol chooses every model's."""
    return dict(_k_stars(*calibration, donors_of))


@lru_cache(maxsize=8)
def _k_stars(variant: Variant, seed: Any, donors_of: Callable[[Variant, Any], Donors]
             ) -> tuple[tuple[str, int], ...]:
    from icgbench.generator import mechanism as mech
    from icgbench.generator.family import prior_graph
    from icgbench.tasks import TASKS

    nodes = tuple(n for n, _ in mech.graph_nodes())
    edges = tuple((e[0], e[1]) for e in _drawn_edges(variant, seed))
    truth = Truth(ids={}, event={}, true_risk={}, end_states={}, counterfactual={},
                  prior_direction={}, dgp_direction={}, edges=edges, nodes=nodes)
    graph_only = _GraphInputs(tuple((e[0], e[1]) for e in prior_graph(variant, seed)))
    donors = donors_of(variant, seed)
    task = TASKS["structure_recovery"]
    out = []
    for name in STRUCTURE_ANSWERS:
        p = ANSWERS[name](graph_only, donors)
        block = blocks(graph_only, p)["structure_recovery"]  # type: ignore[arg-type]
        from icgbench.scorer import semantic

        aligned = {"structure_recovery": semantic.align("structure_recovery", block, truth)}
        out.append((name, int(task.score(aligned, truth).details["best_k_in_sample"])))
    return tuple(out)


@dataclass(frozen=True)
class _GraphInputs:
    """What a graph answer reads of a cohort: its public prior graph."""

    prior_graph: tuple[tuple[str, str], ...]


def _drawn_edges(variant: Variant, seed: Any) -> list[tuple]:
    from icgbench.generator.family import draw_mechanism

    return draw_mechanism(variant, seed).edges()


def cohort_rows(variant: Variant, seed: Any, tables: Mapping[str, Any],
                calibration: tuple[Variant, Any]) -> list[Row]:
    """The panel's rows of one cohort from its tables (every other table of the cohort, in
    memory); graphs graded at their K* on ``calibration`` (on the calibration cohort
    itself, at their own best K: the category is not normalized there)."""
    from icgbench import contract
    from icgbench.model_free.donors import donors
    from icgbench.release.encode import conform
    from icgbench.scorer.truth import truth_from_tables

    conformed = {name: conform(t, contract.table_schema(name), name)
                 for name, t in tables.items()}
    truth = truth_from_tables(conformed)
    inputs = PanelInputs.from_tables(variant, conformed)
    on_calibration = (calibration[0].name, calibration[1]) == (variant.name, seed)
    ks = {} if on_calibration else k_stars(calibration, donors)
    return panel_rows(inputs, truth, donors(variant, seed), ks)
