"""Errors a user can cause, with the exit code the CLI turns them into.

Exit codes: 0 success, 1 invalid input (a submission, a release that fails
verification, a board that does not re-grade) or work that finished only in part (a sweep
with failed cells), 2 usage errors (bad arguments, missing files, unwritable places),
141 a closed pipe.
"""

from __future__ import annotations


class UserError(Exception):
    """A problem with the user's input; the CLI prints the message, never a traceback."""

    exit_code = 2

    def __init__(self, message: str, exit_code: int | None = None) -> None:
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code


class UsageError(UserError):
    """Bad arguments, a missing file or an unwritable place (exit 2)."""

    exit_code = 2


class InvalidInputError(UserError):
    """Input that was read but is wrong: a submission, a tampered release (exit 1)."""

    exit_code = 1
