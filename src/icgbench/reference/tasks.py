"""docs/tasks.md, generated from the task registry (definitions, directions, baselines)."""

from __future__ import annotations

import inspect

from icgbench.tasks import BLOCK_SPLITS, TASKS, graph_metrics
from icgbench.tasks.base import Metric

HEADER = """# Tasks and metrics

Generated from the task registry (`src/icgbench/tasks/`) by `make docs`; a test fails when
this file and the code disagree. Each task declares the submission blocks it needs, the
truth tables it reads, and for every metric its direction and its value for a random
baseline. A task is graded when every block it needs is present.

**Random baseline** is the expected score of a predictor that carries no information:
uniform random probabilities (for risk metrics, conformity and individual effects), the
constant mean (for R^2, which a uniform guess on another scale would push far below 0).
Where it depends on the cohort (prevalence, test-split size, true effects), the formula is
given and the score report records its value. The data are synthetic: these are scores of
models on simulated cohorts, never statements about real agents or people.

Direction: **higher** or **lower** is better; **-** means descriptive (not a score).
"""


def _direction(m: Metric) -> str:
    return {True: "higher", False: "lower", None: "-"}[m.higher_is_better]


def _baseline(m: Metric) -> str:
    if m.baseline_text:
        return m.baseline_text
    if m.random_baseline is None:
        return "-"
    return f"{float(m.random_baseline):.4g}"


def markdown() -> str:
    """The task reference as Markdown."""
    out = [HEADER]
    for task in TASKS.values():
        module = inspect.getmodule(task.score)
        doc = inspect.cleandoc(module.__doc__ or "") if module else ""
        blocks = ", ".join(f"`{b}` ({BLOCK_SPLITS.get(b) or 'not per subject'})"
                           for b in task.blocks)
        out.append(f"## `{task.name}`\n\n{doc}\n")
        out.append(f"Blocks: {blocks}. Truth: {', '.join(f'`{t}`' for t in task.truth_tables)}."
                   "\n")
        out.append("| metric | direction | best | random baseline | definition |")
        out.append("| --- | --- | --- | --- | --- |")
        for m in task.metrics:
            best = "-" if m.best is None else f"{m.best:g}"
            cells = [f"`{m.name}`", _direction(m), best, _baseline(m), m.description]
            out.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
        out.append("")
    out.append(SUMMARY)
    out.append("## Structure recovery conventions\n")
    out.append(inspect.cleandoc(graph_metrics.__doc__ or "").split("\n\n", 1)[1] + "\n")
    return "\n".join(out)


SUMMARY = """## `score_summary`

The headline numbers of a report: `auroc` (risk_prediction), `r2_mean` (latent_recovery),
`conformity` (= `responsive_dgp_conformity`), `auroc_target` and `transfer_gap`
(cross_host_generalization), `prior_conformity_tolerant` (the seed reference's tolerant
prior conformity, so numbers can be compared with ICg-CaST), and `composite`, the mean of
`(auroc, r2_mean, conformity)` over the tasks attempted. The composite is **explicitly not
the canonical metric**: it is a ranking convenience; compare the task metrics themselves. A
task not attempted gives `null`. Every number a submission carries is checked to be a
finite double before any metric, and a submitted block never yields a `null` headline
metric (see R^2 below), so a block made worse can only lower the composite. Means (of R^2
over states, of the composite's parts) are summed left to right and divided; when that sum
would overflow, each part is divided first.

## Definitions used above

- **AUROC**: area under the ROC curve of the predicted probability against the outcome,
  a tied (positive, negative) pair counting one half; undefined (`null`) with one class.
- **AUPRC**: average precision, `sum_n (R_n - R_{n-1}) P_n` over the distinct thresholds
  from the highest score down (scikit-learn's `average_precision_score`).
- **Brier**: mean of `(p - y)^2`. **Log loss**: mean of `-(y log p + (1 - y) log(1 - p))`,
  `p` clipped to `[1e-15, 1 - 1e-15]`.
- **ECE**: bins `[0, .1), [.1, .2), ..., [.9, 1]`; sum over non-empty bins of
  `(n_b / n) |mean p_b - mean y_b|`.
- **R^2**: `1 - SS_res / SS_tot` against the true end-of-follow-up state (can be negative).
  When `SS_res` overflows a double, it is computed rescaled (`(y/2 - yhat/2)` divided by its
  largest magnitude); an R^2 below `-1.7976931348623157e308` is reported as that number.
- **delta**: mean over test subjects of (predicted risk under the intervention - predicted
  risk without). Conformity compares `sign(delta)` with +1 or -1; a zero or missing delta
  fails, except in `prior_conformity_tolerant`, where `|delta| <= 1e-3` passes.
- **Responsive**: `|delta| >= 0.005` (the `responsive_threshold`, recorded in the report).
- **PEHE**: `sqrt(mean over subjects and interventions of (predicted effect - true
  effect)^2)`, with effect = risk under the intervention - risk without; a missing
  intervention predicts no change.
"""
