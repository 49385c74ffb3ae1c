"""Choosing the floors without hindsight on any one cohort: the table ``model_free_scores``.

The floor of a normalized metric is the score of **one** model-free answer per variant:
the answer with the best mean score over every cohort of the variant in the board's tier
(``floor_choices.json`` ships the choice; each cohort's ``model_free_scores`` marks it).
Every cohort of the variant, in every tier, is graded against that same answer, so no
cohort's floor is the best of many answers graded on that cohort alone (which its noise
would push up, and which no submission could know): a cohort's own subjects are one in the
variant's sixty of the choice. And no fixed answer can beat the floor over a variant's
cohorts: the floor is the best of them there. Ties go to the earlier answer in the panel's
order; the chance level is one of the answers (``chance``), and so is the answer chosen on
each cohort's own train split (:func:`icgbench.model_free.panel.chosen_on_train`).

Choosing per cohort instead, on the other cohorts (leave one out), looks cleaner but is
worse: where two answers nearly tie, leaving out a cohort on which one of them did well
tips the choice to the other exactly there, so the floors fall below both and either
answer, submitted on every cohort, scores above 0 (``icgbench bench attacks`` tries that
choice as an attack).

The table also publishes each answer's score on the cohort's train split where its truth
is public (``selection``, :mod:`icgbench.model_free.selection`: risk and transfer, the
train events; latent, the train states). Every row is published, the floor's marked, so anybody can
recompute the choice.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from icgbench.generator.variants import Variant
from icgbench.model_free.panel import Row

#: The shipped per-variant choices (for cohorts outside the board's tier).
FLOOR_CHOICES = "floor_choices.json"

#: A cohort: (variant name, seed).
Cohort = tuple[str, Any]
Part = tuple[str, str]


def _higher(part: Part) -> bool:
    from icgbench.tasks.normalized import higher_is_better

    return higher_is_better(part)


def _best(candidates: Sequence[tuple[str, float]], higher: bool) -> str | None:
    """The first answer with the best value (panel order)."""
    best: tuple[str, float] | None = None
    for name, value in candidates:
        if best is None or (value > best[1] if higher else value < best[1]):
            best = (name, value)
    return None if best is None else best[0]


def on_cohorts(rows_by_cohort: Mapping[Cohort, Sequence[Row]]) -> dict[Part, str]:
    """Per normalized metric: the answer with the best mean value over ``rows_by_cohort``
    (an answer missing on one of them is not a candidate)."""
    values: dict[Part, dict[str, list[float]]] = {}
    for rows in rows_by_cohort.values():
        for r in rows:
            values.setdefault((r.task, r.metric), {}).setdefault(r.answer, []).append(r.value)
    n = len(rows_by_cohort)
    out = {}
    for part, by_answer in values.items():
        candidates = [(a, math.fsum(v) / n) for a, v in by_answer.items() if len(v) == n]
        name = _best(candidates, _higher(part))
        if name is not None:
            out[part] = name
    return out


def choose(rows: Mapping[Cohort, Sequence[Row]], board: bool,
           shipped: Mapping[str, Mapping[str, str]] | None = None
           ) -> dict[Cohort, dict[Part, str]]:
    """Every cohort's floor answer per normalized metric (see the module): ``rows`` holds
    the panel's rows of every cohort of one tier; on the board's tier (``board``) the
    choice is made over its cohorts of each variant, elsewhere it is ``shipped``'s (the
    shipped file by default)."""
    chosen = variant_choices(rows) if board else (
        shipped_choices() if shipped is None else shipped)
    out = {}
    for cohort in rows:
        out[cohort] = {(k.split("/", 1)[0], k.split("/", 1)[1]): name
                       for k, name in chosen.get(cohort[0], {}).items()}
    return out


def table(rows: Sequence[Row], chosen: Mapping[Part, str]) -> pa.Table:
    """The ``model_free_scores`` table of one cohort: every row, the floors marked (a
    metric whose chosen answer has no row there falls back to ``chance``)."""
    from icgbench.io.arrow import table as arrow_table
    from icgbench.model_free.panel import CHANCE

    present = {(r.answer, r.task, r.metric) for r in rows}
    floor = {part: (name if (name, *part) in present else CHANCE)
             for part, name in chosen.items()}
    floor.update({(r.task, r.metric): CHANCE for r in rows
                  if r.answer == CHANCE and (r.task, r.metric) not in floor})
    return arrow_table({
        "answer": [r.answer for r in rows], "task": [r.task for r in rows],
        "metric": [r.metric for r in rows],
        "value": np.array([r.value for r in rows], dtype=np.float64),
        "selection": pa.array([r.selection for r in rows], type=pa.float64()),
        "floor": [floor.get((r.task, r.metric)) == r.answer for r in rows],
    })


@functools.cache
def shipped_choices() -> dict[str, dict[str, str]]:
    """The shipped per-variant choices: variant -> "task/metric" -> answer."""
    text = resources.files(__package__).joinpath(FLOOR_CHOICES).read_text(encoding="utf-8")
    return json.loads(text)


def variant_choices(rows: Mapping[Cohort, Sequence[Row]]) -> dict[str, dict[str, str]]:
    """The choice made over every cohort of each variant in ``rows`` (what the shipped
    file holds for the board's tier)."""
    out = {}
    for variant in dict.fromkeys(c[0] for c in rows):
        mine = {c: r for c, r in rows.items() if c[0] == variant}
        out[variant] = {f"{t}/{m}": a for (t, m), a in sorted(on_cohorts(mine).items())}
    return out


def write_choices(choices: Mapping[str, Mapping[str, str]]) -> Path:
    """Rewrite the shipped choices."""
    from icgbench.io.atomic import write_text

    path = Path(__file__).with_name(FLOOR_CHOICES)
    write_text(path, json.dumps(choices, indent=1, sort_keys=True) + "\n")
    shipped_choices.cache_clear()
    return path


def rows_from_table(data: pa.Table) -> list[Row]:
    """A published ``model_free_scores`` table's rows."""
    return [Row(r["answer"], r["task"], r["metric"], float(r["value"]),
                None if r["selection"] is None else float(r["selection"]))
            for r in data.to_pylist()]


def single_cohort_table(variant: Variant, seed: Any, tables: Mapping[str, pa.Table],
                        calibration: tuple[Variant, Any]) -> pa.Table:
    """The ``model_free_scores`` table of a cohort graded alone (a tier with one cohort of
    its variant: the small, sealed and unfrozen tiers): its floors are the shipped
    choices."""
    from icgbench.model_free.panel import cohort_rows

    rows = cohort_rows(variant, seed, tables, calibration)
    key = (variant.name, seed)
    return table(rows, choose({key: rows}, board=False)[key])


def board_tier_choices(root: Path | None = None) -> dict[str, dict[str, str]]:
    """:func:`variant_choices` over the board's tier as built (its ``model_free_scores``)."""
    from icgbench.api.tables import load_table, tier_descriptor
    from icgbench.release.tiers import BOARD_TIER

    rows = {(c["variant"], c["seed"]): rows_from_table(pa.Table.from_pandas(load_table(
        c["variant"], "model_free_scores", c["seed"], BOARD_TIER, role="truth", root=root),
        preserve_index=False)) for c in tier_descriptor(BOARD_TIER, root).cohorts()}
    return variant_choices(rows)
