"""Score one task's predictions given as arrays, without writing a submission.

``Evaluator(task, variant).eval(block)`` puts ``block`` (the task's submission block, its
values numpy arrays, pandas objects or lists) into a submission of that one task for the
cohort, at the published precision, and grades it with the scorer: the metrics are the
numbers ``icgbench score`` gives for a file holding the same predictions, because they
come from the same code. ``subject_id`` may be left out: the predictions are then read in
the release's order of the held-out split (the order of :func:`icgbench.load_xy`'s
``X_test``).

    >>> import icgbench
    >>> X_train, y_train, X_test = icgbench.load_xy("linear_lowhet", return_X_y=True)
    >>> evaluator = icgbench.Evaluator("risk_prediction", "linear_lowhet")
    >>> evaluator.keys
    ('subject_id', 'proba')
    >>> metrics = evaluator.eval({"proba": [float(y_train.mean())] * len(X_test)})
    >>> metrics["auroc"]
    0.5
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from icgbench.errors import UnknownNameError, UsageError

if TYPE_CHECKING:
    from icgbench.scorer.report import ScoreReport


def _listed(value: Any) -> Any:
    """Arrays, Series and nested mappings of them as JSON-ready lists, floats rounded to
    the published precision (as :func:`icgbench.write_submission` writes them)."""
    from icgbench.models.base import rounded

    if isinstance(value, Mapping):
        return {str(k): _listed(v) for k, v in value.items()}
    values = np.asarray(value)
    if values.dtype.kind in "fiu" and values.dtype != bool:
        return rounded(values)
    return values.tolist()


class Evaluator:
    """Grades one task's block on one cohort (see the module)."""

    def __init__(self, task: str, variant: str, seed: int | None = None, *,
                 tier: str = "small", root: Path | None = None,
                 structure_k: int | None = None) -> None:
        from icgbench.api.template import build_template
        from icgbench.tasks import TASKS

        if task not in TASKS:
            raise UnknownNameError("task", task, TASKS)
        self.task, self.structure_k, self.root = task, structure_k, root
        template = build_template(variant, seed, tier, root)
        names = [t for t in TASKS if t in template]
        self._base = {k: v for k, v in template.items() if k not in names}
        self._template = template[task]
        self.keys: tuple[str, ...] = tuple(self._template)

    def submission(self, block: Mapping[str, Any]) -> dict[str, Any]:
        """The one-task submission ``block`` stands for (a dict to write or score)."""
        unknown = sorted(set(block) - set(self.keys))
        if unknown:
            raise UsageError(f"{self.task}: unknown key(s) {', '.join(map(repr, unknown))}; "
                             f"the block has {', '.join(self.keys)}")
        filled = {k: _listed(v) for k, v in block.items()}
        if "subject_id" in self.keys and "subject_id" not in filled:
            filled["subject_id"] = self._template["subject_id"]
        missing = [k for k in self.keys if k not in filled]
        if missing:
            raise UsageError(f"{self.task}: missing key(s) {', '.join(missing)}")
        return {**self._base, self.task: {k: filled[k] for k in self.keys}}

    def report(self, block: Mapping[str, Any]) -> ScoreReport:
        """The whole score report of the one-task submission: its ``normalized`` section
        gives the category's score with each part's floor and ceiling (invalid predictions
        raise :class:`icgbench.SubmissionInvalid`, naming each problem and where)."""
        from icgbench.scorer.pipeline import score

        return score(self.submission(block), root=self.root, structure_k=self.structure_k)

    def eval(self, block: Mapping[str, Any]) -> dict[str, float | None]:
        """The task's metrics for ``block`` (see :meth:`report`)."""
        return dict(self.report(block).metrics(self.task))
