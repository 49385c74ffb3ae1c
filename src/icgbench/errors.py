"""Errors a user can cause, with the exit code the CLI turns them into.

Every one is a :class:`UserError`, which is a ``ValueError`` (so ``except ValueError`` in a
user's script catches a bad value given to the package, as it would from scikit-learn or
pandas), with a machine-readable ``code``:

- ``usage``: bad arguments, a missing file, an unwritable place (exit 2);
- ``unknown_name``: a variant, model, table or task that is not registered (exit 2; also a
  ``KeyError``, since it is a failed lookup);
- ``invalid_input``: input that was read but is wrong, a tampered release, a board that does
  not re-grade (exit 1); a submission's is ``submission_invalid``, a file over its budget
  ``too_large``.

Exit codes: 0 success, 1 invalid input or work that finished only in part (a sweep with
failed cells), 2 usage errors, 141 a closed pipe.
"""

from __future__ import annotations

from collections.abc import Iterable


class UserError(ValueError):
    """A problem with the user's input; the CLI prints the message, never a traceback."""

    exit_code = 2
    code = "user_error"

    def __init__(self, message: str, exit_code: int | None = None) -> None:
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code


class UsageError(UserError):
    """Bad arguments, a missing file or an unwritable place (exit 2)."""

    exit_code = 2
    code = "usage"


class UnknownNameError(UsageError, KeyError):
    """A name its registry does not hold: ``kind`` (variant, model, table, task), ``name``,
    and the message lists the registered names."""

    code = "unknown_name"

    def __init__(self, kind: str, name: str, known: Iterable[str], hint: str = "") -> None:
        self.kind, self.name = kind, name
        listed = ", ".join(known)
        super().__init__(f"unknown {kind} {name!r}; registered {kind}s: {listed}{hint}")

    def __str__(self) -> str:  # KeyError's would quote the message
        return str(self.args[0])


class InvalidInputError(UserError):
    """Input that was read but is wrong: a submission, a tampered release (exit 1)."""

    exit_code = 1
    code = "invalid_input"
