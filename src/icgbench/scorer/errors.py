"""The error a submission raises when it cannot be scored."""

from __future__ import annotations

from icgbench.errors import InvalidInputError


class SubmissionInvalid(InvalidInputError):
    """A submission that fails parsing, the JSON Schema or the semantic checks (exit 1).

    ``errors`` lists ``POINTER: message`` lines in document order (the first few, then a
    line saying how many more); ``count`` is how many problems were found in all.
    """

    code = "submission_invalid"

    def __init__(self, errors: list[str], stage: str, count: int | None = None) -> None:
        self.errors = errors
        self.stage = stage
        self.count = len(errors) if count is None else count
        shown = "\n  ".join(errors)
        super().__init__(f"invalid submission ({stage}):\n  {shown}")
