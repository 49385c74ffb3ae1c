"""The error a submission raises when it cannot be scored."""

from __future__ import annotations

from icgbench.errors import InvalidInputError


class SubmissionInvalid(InvalidInputError):
    """A submission that fails parsing, the JSON Schema or the semantic checks (exit 1).

    ``errors`` holds one ``$.path: message`` line per problem, most relevant first.
    """

    def __init__(self, errors: list[str], stage: str) -> None:
        self.errors = errors
        self.stage = stage
        shown = "\n  ".join(errors)
        super().__init__(f"invalid submission ({stage}):\n  {shown}")
