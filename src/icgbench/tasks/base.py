"""What a task is: the submission blocks it needs, the metrics it returns, how it scores.

A task is data plus one pure function. It declares its blocks (and therefore which split of
subjects it grades), and for each metric its name, direction (higher is better, lower is
better, or descriptive) and its value for a random baseline, which may depend on the truth
(the expected AUPRC of a random predictor is the prevalence). It also declares its category
and how its headline metrics make the category's normalized score (:class:`Normalized`),
and, where the best reachable answer is below perfect, the submission that reaches it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

Baseline = float | Callable[["Truth"], float | None] | None

#: The submission schema's shared definitions a block schema refers to.
IDS = {"$ref": "#/definitions/subject_ids"}
PROBABILITIES = {"$ref": "#/definitions/probabilities"}


@dataclass(frozen=True)
class Metric:
    """One number a task returns."""

    name: str
    higher_is_better: bool | None  # None: descriptive, not a score
    description: str
    random_baseline: Baseline = None
    best: float | None = None
    baseline_text: str | None = None  # how a truth-dependent baseline is computed (docs)
    #: False for a metric a constant answer can win (a conformity share, ECE): the board
    #: lists it, never ranks by it.
    ranked: bool = True
    #: True for a metric of a truth the whole cohort shares (the graph, an intervention's
    #: true direction or average effect) rather than of each held-out subject: probes of
    #: it on one half would reveal what the other half is graded on, so the sealed track's
    #: public standings withhold it (:mod:`icgbench.tasks.withheld`).
    cohort_level: bool = False

    def baseline(self, truth: Truth) -> float | None:
        """The random baseline's value for this truth."""
        value = self.random_baseline(truth) if callable(self.random_baseline) else (
            self.random_baseline)
        return None if value is None else float(value)


@dataclass(frozen=True)
class Truth:
    """The ground truth one cohort is graded against, aligned by subject order.

    ``ids`` and every per-subject array follow the release's order of each split.
    """

    ids: Mapping[str, Any]  # split -> subject ids (an Arrow string array)
    event: Mapping[str, np.ndarray]  # split -> 0/1
    true_risk: Mapping[str, np.ndarray]  # split -> true event probability
    end_states: Mapping[str, np.ndarray]  # state -> end-of-follow-up value, test split
    counterfactual: Mapping[str, np.ndarray]  # intervention -> true risk under it, test split
    prior_direction: Mapping[str, int]
    dgp_direction: Mapping[str, int]
    edges: tuple[tuple[str, str], ...] = ()  # true directed edges (structure recovery)
    nodes: tuple[str, ...] = ()
    #: split -> risk with the frailty integrated out (``reachable_risks``)
    reachable_risk: Mapping[str, np.ndarray] = field(default_factory=dict)
    #: intervention -> reachable risk under it, test split
    reachable_counterfactual: Mapping[str, np.ndarray] = field(default_factory=dict)
    #: (task, metric) -> (best value of the model-free panel, the answer that has it)
    #: (``model_free_scores``; empty without the table)
    panel: Mapping[tuple[str, str], tuple[float, str]] = field(default_factory=dict)


@dataclass(frozen=True)
class TaskResult:
    """A task's metrics (None where undefined, e.g. AUROC with one class) and details."""

    metrics: dict[str, float | None]
    details: dict[str, Any] = field(default_factory=dict)


Blocks = Mapping[str, Mapping[str, Any]]  # block name -> {array name -> np.ndarray or dict}

@dataclass(frozen=True)
class Normalized:
    """How one metric enters its category's normalized score (:mod:`.normalized`).

    The floor is the model-free panel's best value on the cohort or the metric's chance
    level, whichever is better; ``floor`` gives the chance level where it is not the
    metric's random baseline (``floor_text`` says how, for the docs). The ceiling is the
    task's ``reachable`` submission's score when the task has one, else the metric's best
    value.
    """

    metric: str
    floor: Callable[[Truth], float | None] | None = None
    floor_text: str | None = None


@dataclass(frozen=True)
class Task:
    """A scored task: its blocks, metrics and scoring function."""

    name: str
    order: int
    description: str
    blocks: tuple[str, ...]
    truth_tables: tuple[str, ...]
    metrics: tuple[Metric, ...]
    headline: tuple[str, ...]  # the metrics a leaderboard entry records
    score: Callable[[Blocks, Truth], TaskResult]
    #: The category the task's normalized score counts for, and how it is made.
    category: str = ""
    normalized: tuple[Normalized, ...] = ()
    #: The blocks of the best answer reachable from the states, where that is below perfect
    #: (the frailty no state reveals); None: the metrics' best values are reachable.
    reachable: Callable[[Truth], Blocks] | None = None
    #: The headline metric the board ranks by (default: the first headline metric).
    rank_by: str | None = None
    #: Why a result cannot be normalized (its floors and ceilings are for other settings),
    #: or None: the normalized score is then left out, with the reason in the report.
    unnormalizable: Callable[[TaskResult], str | None] | None = None
    #: Keys of ``details`` (at any depth) that hold a truth the whole cohort shares: the
    #: sealed track's public half withholds them with the cohort-level metrics.
    cohort_level_details: tuple[str, ...] = ()
    #: The split whose subjects the task's own block (named as the task) covers exactly
    #: (None: a block that is not per subject, such as a graph).
    split: str | None = "test"
    #: The JSON Schema of the task's own block in a submission (its ``$ref``s name the
    #: submission schema's shared definitions: subject_ids, probabilities, numbers, node).
    block_schema: Mapping[str, Any] = field(default_factory=dict)

    @property
    def ranking_metric(self) -> Metric:
        """The metric ``leaderboard show`` ranks this task by unless told otherwise."""
        return self.metric(self.rank_by or self.headline[0])

    def metric(self, name: str) -> Metric:
        for m in self.metrics:
            if m.name == name:
                return m
        raise KeyError(name)


def finite_or_none(value: float) -> float | None:
    """A float for the report: None instead of NaN or infinity."""
    value = float(value)
    return value if np.isfinite(value) else None
