"""A submission's verdict as a value: what ``icgbench validate --json`` prints.

Evaluators that users already know (OGB's, scikit-learn's metrics) return values; so does
:func:`validate`. ``raise_invalid=True`` raises :class:`~icgbench.scorer.SubmissionInvalid`
(or the usage error) instead, for code that wants to stop at the first bad file.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from icgbench.errors import UserError
from icgbench.scorer.messages import DEFAULT_MAX_ERRORS
from icgbench.scorer.parse import DEFAULT_MAX_BYTES

#: The stage of a verdict that is about the call, not the file (no such tier, no file).
USAGE_STAGE = "usage"


@dataclass(frozen=True)
class Verdict:
    """One file's verdict: ``valid``, the ``stage`` that refused it (``parse``, ``size``,
    ``schema``, ``semantic`` or ``usage``), how many problems (``count``), the first of them
    (``errors``), and for a valid file its cohort and blocks."""

    file: str
    valid: bool
    stage: str | None = None
    count: int = 0
    errors: list[str] = field(default_factory=list)
    variant: str | None = None
    seed: int | None = None
    tier: str | None = None
    blocks: list[str] = field(default_factory=list)
    exit_code: int = field(default=0, repr=False, compare=False)

    def __bool__(self) -> bool:
        return self.valid

    def to_dict(self) -> dict[str, Any]:
        """The JSON object ``icgbench validate --json`` prints."""
        out = asdict(self)
        del out["exit_code"]
        if not self.valid:
            for key in ("variant", "seed", "tier", "blocks"):
                del out[key]
        return out


def validate(source: str | Path, *, tier: str | None = None, release: Path | None = None,
             max_bytes: int = DEFAULT_MAX_BYTES, max_errors: int = DEFAULT_MAX_ERRORS,
             raise_invalid: bool = False) -> Verdict:
    """The verdict on a submission file (.json or .json.gz): the JSON Schema, then every
    check against the release (``release``: a release folder; default the located one)."""
    from icgbench.scorer import SubmissionInvalid
    from icgbench.scorer.pipeline import check_submission as check

    file = str(source)
    try:
        v = check(Path(source), tier=tier, root=release, max_bytes=max_bytes,
                  max_errors=max_errors)
    except SubmissionInvalid as exc:
        if raise_invalid:
            raise
        return Verdict(file, False, exc.stage, exc.count, list(exc.errors), exit_code=1)
    except UserError as exc:
        if raise_invalid:
            raise
        return Verdict(file, False, USAGE_STAGE, 1, [str(exc)], exit_code=exc.exit_code)
    d = v.document
    return Verdict(file, True, variant=d["variant"], seed=d["seed"], tier=d["tier"],
                   blocks=sorted(v.blocks))
