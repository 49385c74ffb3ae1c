"""The scorer: validate a submission in two layers, then grade every task it attempts.

    >>> from icgbench.scorer import score
    >>> report = score("submission.json")
    >>> report.summary["auroc"]

Works without pandas: parsing is the standard library, validation ``jsonschema`` (with a
vectorised fast path), truth loading pyarrow, metrics numpy and scikit-learn.
"""

from __future__ import annotations

from icgbench._lazy import exports

#: The public names, loaded on first use (PEP 562): importing the scorer package (as the
#: CLI's ``--help`` does) costs nothing until a submission is read.
_EXPORTS = {
    "ScoreReport": "report",
    "SubmissionInvalid": "errors",
    "Validated": "pipeline",
    "grade": "pipeline",
    "incomplete_task_errors": "pipeline",
    "score": "pipeline",
    "task_blocks": "pipeline",
    "check_submission": "pipeline",
}

__getattr__, __dir__ = exports(__name__, _EXPORTS)


__all__ = ["ScoreReport", "SubmissionInvalid", "Validated", "grade", "score", "validate"]
