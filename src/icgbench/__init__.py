"""ICg-Bench: a frozen, verifiable causal benchmark for mechanism-aware carcinogenicity models.

The data are synthetic by construction; nothing here is a carcinogenicity classification
or a prediction about real people.

The names a model author uses, loaded on first use (so ``import icgbench`` stays cheap)::

    >>> import icgbench
    >>> subjects = icgbench.load_table("linear_lowhet", "subjects")    # a public table
    >>> sub = icgbench.build_template("linear_lowhet")                  # a valid submission
    >>> report = icgbench.score(sub)                                    # validate and grade
    >>> X_train, y_train, X_test = icgbench.load_xy("linear_lowhet", return_X_y=True)
    >>> metrics = icgbench.Evaluator("risk_prediction", "linear_lowhet").eval(
    ...     {"proba": [0.1] * len(X_test)})                             # arrays, one task

The packages, top-down as a submission flows (docs/architecture.md): ``generator`` (the
data-generating process), ``release`` (freezing, describing, verifying the release),
``tasks`` (the five tasks and their metrics), ``scorer`` (checking and grading a
submission), ``models`` (the reference models), ``bench`` and ``leaderboard``, and ``cli``;
beside them ``contract`` (the published schemas and names), ``io`` (untrusted input and
all-or-nothing output) and ``api`` (what this module re-exports).
"""

from icgbench._lazy import exports

__version__ = "0.6.0"

#: The user API: name -> the module that defines it.
_EXPORTS = {
    "list_tables": "api.tables",
    "load_table": "api.tables",
    "load_arrow": "api.tables",
    "tier_descriptor": "api.tables",
    "load_xy": "api.loader",
    "TrainTest": "api.loader",
    "Evaluator": "api.evaluator",
    "build_template": "api.template",
    "predicted_blocks": "api.adapter",
    "write_submission": "api.adapter",
    "validate": "api.verdict",
    "Verdict": "api.verdict",
    "score": "scorer.pipeline",
    "SubmissionInvalid": "scorer.errors",
}

__getattr__, __dir__ = exports(__name__, _EXPORTS)

__all__ = ["__version__", *_EXPORTS]
