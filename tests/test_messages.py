"""Messages a non-Python user can act on: short, and naming the usual serialisation slips."""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import pytest

from icgbench.cli import BROKEN_PIPE, main
from icgbench.scorer import SubmissionInvalid, check_submission
from scoring_helpers import template

LIMIT = 400  # "no message longer than a few hundred characters"


def _errors(doc: dict) -> list[str]:
    with pytest.raises(SubmissionInvalid) as exc:
        check_submission(doc)
    return exc.value.errors


def _rowwise(doc: dict) -> dict:
    block = doc["risk_prediction"]
    doc["risk_prediction"] = [{"subject_id": s, "proba": p}
                              for s, p in zip(block["subject_id"], block["proba"], strict=True)]
    return doc


def test_a_row_wise_block_is_named_columnar_not_quoted():
    errors = _errors(_rowwise(template()))
    assert errors == [e for e in errors if len(e) <= LIMIT]
    assert any(e.startswith("/risk_prediction: an array of 400 row objects, but blocks are "
                            "columnar") for e in errors), errors
    assert not any("TE000001" in e for e in errors)


@pytest.mark.parametrize(("field", "value"), [("seed", [0]), ("tier", ["small"]),
                                              ("variant", ["linear_lowhet"])])
def test_a_boxed_scalar_is_told_to_unbox(field, value):
    doc = template()
    doc[field] = value
    (error,) = _errors(doc)
    assert error.startswith(f"/{field}: ")
    assert "one-element array where a single value is expected: unbox scalars" in error


@pytest.mark.parametrize(("field", "value", "expected"), [
    ("seed", [0, 1], "/seed: [0,1] is not of type integer"),
    ("tier", ["small", "full"], '/tier: ["small","full"] is not one of ["small",')],
    ids=["seed", "tier"])
def test_a_longer_array_for_a_scalar_is_not_told_to_unbox(field, value, expected):
    """Unboxing fixes a one-element array only: several values where one is expected get
    the schema's own error (the type, or the values allowed), not the unbox hint."""
    doc = template()
    doc[field] = value
    (error,) = _errors(doc)
    assert error.startswith(expected), error
    assert "unbox" not in error


def test_a_tier_mismatch_is_reported_against_the_tier():
    doc = template()
    doc["tier"] = "full"
    (error,) = _errors(doc)
    assert error.startswith('/tier: "full" has no cohort (linear_lowhet, seed 0) but the '
                            "small tier has")


BREAKAGES = {
    "rowwise": _rowwise,
    "huge string": lambda d: d["model"].update(name="x" * 100_000) or d,
    "huge unknown key": lambda d: d.update({"k" * 50_000: 1}) or d,
    "array for model": lambda d: d.update(model=[d["model"]] * 500) or d,
    "states as rows": lambda d: d["latent_recovery"].update(
        states=[{"ROS": 0.1}] * 400) or d,
    "string probas": lambda d: d["risk_prediction"].update(
        proba=[str(p) for p in d["risk_prediction"]["proba"]]) or d,
}


@pytest.mark.parametrize("name", list(BREAKAGES))
def test_every_message_stays_short(name):
    for error in _errors(BREAKAGES[name](copy.deepcopy(template()))):
        assert len(error) <= LIMIT, error[:200]


def test_validate_reports_each_of_several_files(tmp_path, capsys):
    good, boxed = tmp_path / "good.json", tmp_path / "boxed.json"
    doc = template()
    good.write_text(json.dumps(doc))
    boxed.write_text(json.dumps({**doc, "seed": [0]}))
    missing = tmp_path / "missing.json"
    assert main(["validate", str(good), str(boxed)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"VALID {good}")
    assert out[1] == f"INVALID {boxed} (schema): 1 problem"
    assert out[-1] == "1 of 2 files valid"
    assert main(["validate", str(good), str(missing)]) == 2
    assert f"ERROR {missing}: no such file" in capsys.readouterr().out
    assert main(["validate", "--json", str(good), str(boxed)]) == 1
    verdicts = json.loads(capsys.readouterr().out)
    assert [v["valid"] for v in verdicts] == [True, False]


def test_a_closed_pipe_ends_quietly(tmp_path):
    empty = tmp_path / "empty.json"
    empty.write_text("{}")
    proc = subprocess.Popen([sys.executable, "-m", "icgbench", "validate", *[str(empty)] * 400],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout.readline().startswith(b"INVALID")
    proc.stdout.close()  # the reader leaves, as `| head -1` does
    _, err = proc.communicate(timeout=120)
    assert err == b""
    assert proc.returncode == BROKEN_PIPE


def test_a_command_leaves_the_package_logger_as_it_found_it(capsys):
    """A command's log handler writes to the standard error it ran with: left installed, a
    later call in the same process (a notebook, a test) would log into a stream its caller
    has since closed, and print logging's own traceback instead."""
    import io
    import logging

    logger = logging.getLogger("icgbench")
    before = (logger.handlers[:], logger.level, logger.propagate)
    assert main(["-v", "data", "cite"]) == 0
    assert (logger.handlers, logger.level, logger.propagate) == before
    closed = io.StringIO()
    closed.close()
    old, sys.stderr = sys.stderr, closed
    try:
        logging.getLogger("icgbench.release").warning("after the command")
    finally:
        sys.stderr = old
    assert "Logging error" not in capsys.readouterr().err
