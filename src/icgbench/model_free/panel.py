"""Grading the panel on one cohort: the truth table ``model_free_scores``.

Each answer of :mod:`.answers` is graded exactly as a submission of it would be (its blocks
checked and aligned by the scorer's code, every task whose blocks it has, structure at the
answer's own best K in hindsight), and every normalized metric's value is recorded: one row
(answer, task, metric, value). A guess's row is the mean over its equally likely
submissions. The floor of a normalized metric on the cohort is the best value in the table
(or the metric's chance level when that is higher; :mod:`icgbench.tasks.normalized`).

The table is computed when the cohort is generated, from its published (rounded) tables,
so that scoring needs nothing but the truth tables, in any language.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

import numpy as np
import pyarrow as pa

from icgbench.generator.variants import Variant
from icgbench.model_free.answers import ANSWERS, Blocks, Donors, applies
from icgbench.model_free.inputs import PanelInputs
from icgbench.tasks.base import Truth

#: Published precision of the table's values.
DECIMALS = 6


def _graded(blocks: Blocks, truth: Truth) -> dict[tuple[str, str], float]:
    """(task, normalized metric) -> value of one submission's blocks."""
    from icgbench.scorer import semantic
    from icgbench.tasks import TASKS

    aligned = {name: semantic.align(name, block, truth) for name, block in blocks.items()}
    out = {}
    for name, task in TASKS.items():
        if task.normalized and set(task.blocks) <= set(aligned):
            result = task.score(aligned, truth)
            for part in task.normalized:
                value = result.metrics.get(part.metric)
                if value is not None and math.isfinite(value):
                    out[(name, part.metric)] = float(value)
    return out


def panel_rows(inputs: PanelInputs, truth: Truth, donors: Donors
               ) -> list[tuple[str, str, str, float]]:
    """(answer, task, metric, value) for every answer of the panel on one cohort."""
    rows = []
    for name, answer in ANSWERS.items():
        if not applies(name, inputs):
            continue
        made = answer(inputs, truth, donors)
        submissions = made if isinstance(made, list) else [made]
        graded = [_graded(blocks, truth) for blocks in submissions]
        for key in graded[0]:
            value = math.fsum(g[key] for g in graded) / len(graded)
            rows.append((name, key[0], key[1], round(value, DECIMALS)))
    return rows


def panel_table(rows: list[tuple[str, str, str, float]]) -> pa.Table:
    """The rows as the ``model_free_scores`` table."""
    from icgbench.io.arrow import table

    return table({"answer": [r[0] for r in rows], "task": [r[1] for r in rows],
                  "metric": [r[2] for r in rows],
                  "value": np.array([r[3] for r in rows], dtype=np.float64)})


#: A cohort's published test-split average effect per intervention, as ``intervention_effects``
#: holds it (:func:`icgbench.generator.simulator.published_effects`).
EffectsOf = Callable[[Variant, int], Mapping[str, float]]


def donors(variant: Variant, seed: Any, effects_of: EffectsOf) -> Donors:
    """The other frozen cohorts' truth a copying answer reads: every other frozen cohort's
    graph, and the test-split average effects of the other frozen cohorts of the variant
    (``seed`` names the cohort left out)."""
    from icgbench.generator.reference import frozen_cohorts

    others = [(v, s) for v, s in frozen_cohorts() if (v.name, s) != (variant.name, seed)]
    return Donors(graphs=tuple(_graph(v, s) for v, s in others),
                  effects=tuple(effects_of(v, s) for v, s in others
                                if v.name == variant.name))


@lru_cache(maxsize=256)
def _graph(variant: Variant, seed: int) -> frozenset[tuple[str, str]]:
    """The cohort's true edges (its ``graph`` table's: rescaling the outcome weights, which
    :func:`~icgbench.generator.reference.cohort_mechanism` adds, changes no edge)."""
    from icgbench.generator.family import draw_mechanism

    return frozenset((e[0], e[1]) for e in draw_mechanism(variant, seed).edges())


def model_free_scores(variant: Variant, seed: Any, tables: Mapping[str, pa.Table],
                      effects_of: EffectsOf) -> pa.Table:
    """The ``model_free_scores`` table of a cohort from its other tables."""
    from icgbench import contract
    from icgbench.release.encode import conform
    from icgbench.scorer.truth import truth_from_tables

    conformed = {name: conform(t, contract.table_schema(name), name)
                 for name, t in tables.items()}
    truth = truth_from_tables(conformed)
    inputs = PanelInputs.from_tables(variant, conformed)
    return panel_table(panel_rows(inputs, truth, donors(variant, seed, effects_of)))
