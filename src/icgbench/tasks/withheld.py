"""What the sealed track's public standings withhold until a generation is retired.

A sealed cohort's held-out subjects are split into a public half (scored at admission) and
a private half (scored when the key is retired), so that probing the public half reveals
nothing the private half is graded on. That holds for what is measured subject by subject
(an outcome, a state, an individual effect), not for a truth the whole cohort shares: the
true graph, each intervention's true direction and average effect are the same in both
halves, and a stream of probes of them (23 admissions of 8 candidate edges each recover a
cohort's graph) would decode them. An individual effect's error carries its cohort's
average effect too: PEHE moves by (2c mean(predicted - true) + c^2)/k when a probe adds c to
one of k interventions, so eight probes read every average effect and its sign, and a
centred PEHE still reads the sign through the effects' spread (a harmful intervention moves
the riskiest subjects most). So on the public half every metric a task declares
``cohort_level`` (:class:`.base.Metric`) is withheld, with the details a task declares
(:attr:`.base.Task.cohort_level_details`); a task all of whose metrics, or all of whose
category's normalized metrics, are cohort-level (structure_recovery and
intervention_conformity) is not graded there at all: no intervention feedback before the
key is out. ``overall`` is the mean over the categories shown. The private half, graded
once the key is published, shows everything.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from icgbench.tasks.base import Task, TaskResult
from icgbench.tasks.normalized import categories

WITHHELD_NOTE = ("withheld until the sealed generation is retired: a metric of a truth the "
                 "whole cohort shares (the graph, an intervention's true direction or average "
                 "effect) would let probes of the public half decode what the private half is "
                 "graded on")


def cohort_level(task: Task) -> frozenset[str]:
    """The task's metrics of a truth the whole cohort shares."""
    return frozenset(m.name for m in task.metrics if m.cohort_level)


def fully_withheld(task: Task) -> bool:
    """Whether ``task`` is not graded on a public half: every metric of it, or every metric
    its category's normalized score is made of, is cohort-level."""
    hidden = cohort_level(task)
    return (all(m.name in hidden for m in task.metrics)
            or (bool(task.normalized) and all(p.metric in hidden for p in task.normalized)))


def shown_categories(tasks: Iterable[Task]) -> tuple[str, ...]:
    """The categories a public half shows: every category but those of fully withheld
    tasks (the categories ``overall`` averages over there)."""
    hidden = {t.category for t in tasks if t.category and fully_withheld(t)}
    return tuple(c for c in categories() if c not in hidden)


def _without(details: Any, keys: frozenset[str]) -> Any:
    if isinstance(details, Mapping):
        return {k: _without(v, keys) for k, v in details.items() if k not in keys}
    return details


def public_half(results: Mapping[str, TaskResult], tasks: Mapping[str, Task]
                ) -> tuple[dict[str, TaskResult], list[str]]:
    """``results`` as a public half may show them, and the ``task.metric`` names withheld
    (a fully withheld task keeps an empty section, named ``task.*``)."""
    shown: dict[str, TaskResult] = {}
    withheld: list[str] = []
    for name, result in results.items():
        task = tasks[name]
        if fully_withheld(task):
            withheld.append(f"{name}.*")
            shown[name] = TaskResult({})
            continue
        hidden = cohort_level(task)
        withheld += [f"{name}.{m}" for m in result.metrics if m in hidden]
        shown[name] = TaskResult({m: v for m, v in result.metrics.items() if m not in hidden},
                                 _without(result.details,
                                          frozenset(task.cohort_level_details)))
    return shown, withheld
