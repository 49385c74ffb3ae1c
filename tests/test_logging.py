"""``-v/--verbose`` on every command: the steps are logged on stderr, quiet by default."""

from __future__ import annotations

import argparse

import pytest

from icgbench.cli import build_parser, main


def _leaves(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield path, parser
        return
    for name, child in subs[0].choices.items():
        yield from _leaves(child, (*path, name))


def test_every_command_takes_verbose():
    leaves = list(_leaves(build_parser()))
    assert len(leaves) > 15
    for path, parser in leaves:
        flags = {o for a in parser._actions for o in a.option_strings}
        assert {"-v", "--verbose"} <= flags, " ".join(path)


@pytest.fixture(scope="module")
def submission(tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    assert main(["bench", "run", "--cohort", "linear_lowhet", "--variant", "random",
                 "--outdir", str(out)]) == 0
    return out / "submission.json"


@pytest.mark.parametrize("argv", [["-v", "score"], ["score", "-v"], ["score", "--verbose"]])
def test_verbose_logs_the_scoring_steps(submission, tmp_path, capsys, argv):
    assert main([*argv, str(submission), "--out", str(tmp_path / "r.json")]) == 0
    err = capsys.readouterr().err
    for step in ("read the submission", "the JSON Schema holds", "loaded the hash-checked "
                 "truth", "the release checks hold", "graded risk_prediction"):
        assert step in err, step
    assert "icgbench.scorer:" in err


def test_the_run_steps_are_logged(tmp_path, capsys):
    # the steps are the runner's, whatever the model: the random one fits in milliseconds
    assert main(["bench", "run", "-v", "--cohort", "linear_lowhet", "--variant", "random",
                 "--outdir", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    steps = ["loaded the public tables", "fitting random", "predicting", "wrote", "graded"]
    positions = [err.index(s) for s in steps]
    assert positions == sorted(positions)


def test_quiet_by_default(submission, tmp_path, capsys):
    assert main(["score", str(submission), "--out", str(tmp_path / "r.json")]) == 0
    assert capsys.readouterr().err == ""


def test_debug_detail_with_two_vs(submission, tmp_path, capsys):
    assert main(["-vv", "validate", str(submission)]) == 0
    assert "hash checked" in capsys.readouterr().err
