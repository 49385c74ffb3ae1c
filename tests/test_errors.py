"""One error family: every mistake a user can make is a ``ValueError`` with a code.

An unknown variant, model, table, task or tier raises the same kind of error, which is also
a ``KeyError`` (a failed lookup) and lists the registered names; the CLI turns each into
exit 2 with its one-line message. There is one public ``validate``.
"""

from __future__ import annotations

import pytest

import icgbench
from icgbench import contract, errors
from icgbench.cli import main
from icgbench.generator import get_variant, variant_names
from icgbench.models import DECLARATIONS, model_class, resolve
from icgbench.release.download import TooLargeError
from icgbench.release.tiers import TIERS, get_tier
from icgbench.scorer import SubmissionInvalid

CODES = {"usage", "unknown_name", "invalid_input", "submission_invalid", "too_large"}


def _subclasses(cls: type) -> list[type]:
    return [cls, *(c for sub in cls.__subclasses__() for c in _subclasses(sub))]


def test_every_user_error_is_a_value_error_with_a_documented_code() -> None:
    family = _subclasses(errors.UserError)
    assert {SubmissionInvalid, TooLargeError, errors.UnknownNameError} <= set(family)
    for cls in family[1:]:
        assert issubclass(cls, ValueError) and cls.code in CODES, cls
    assert SubmissionInvalid(["/: x"], "schema").exit_code == 1
    assert errors.UsageError("x").exit_code == 2


@pytest.mark.parametrize(("kind", "lookup", "known"), [
    ("variant", lambda: get_variant("nope"), variant_names()),
    ("model", lambda: model_class("nope"), list(DECLARATIONS)),
    ("model", lambda: resolve("nope"), list(DECLARATIONS)),
    ("table", lambda: contract.table_schema("nope"), list(contract.table_names())),
    ("task", lambda: icgbench.Evaluator("nope", "linear_lowhet"), None),
    ("tier", lambda: get_tier("nope"), list(TIERS)),
])
def test_an_unknown_name_is_one_kind_of_error_that_lists_the_names(kind, lookup, known):
    with pytest.raises(errors.UnknownNameError) as caught:
        lookup()
    exc = caught.value
    assert isinstance(exc, KeyError) and isinstance(exc, ValueError)
    assert (exc.kind, exc.name, exc.code, exc.exit_code) == (kind, "nope", "unknown_name", 2)
    assert str(exc).startswith(f"unknown {kind} 'nope'; registered {kind}s: ")
    assert known is None or all(name in str(exc) for name in known)


@pytest.mark.parametrize("argv", [
    ["generate", "--variant", "nope", "--seed", "0", "--outdir", "unused"],
    ["bench", "run", "--model", "nope", "--cohort", "linear_lowhet"],
    ["data", "list", "--tier", "nope"],
])
def test_the_cli_says_an_unknown_name_in_one_line_and_exits_2(argv, capsys, tmp_path,
                                                               monkeypatch):
    monkeypatch.chdir(tmp_path)
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own refusal of a choice
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2 and "'nope'" in err and "Traceback" not in err, err
    assert "unknown " in err or "invalid choice" in err, err


def test_there_is_one_public_validate() -> None:
    from icgbench import scorer

    assert icgbench.validate.__module__ == "icgbench.api.verdict"
    assert not hasattr(scorer, "validate")
