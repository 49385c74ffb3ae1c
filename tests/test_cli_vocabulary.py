"""One set of CLI conventions (docs/cli.md): every option explained, the same flag for the
same kind of thing, old spellings working for one release with a warning."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from icgbench.cli import build_parser, main

# Pages here are read for their tables, links and files: built without the board's figures.
pytestmark = pytest.mark.usefixtures("no_board_figures")

ROOT = Path(__file__).resolve().parents[1]


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ("icgbench",)):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _commands(sub, (*path, name))


def _options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions if not isinstance(
        a, argparse._HelpAction | argparse._SubParsersAction | argparse._VersionAction)]


def test_every_option_of_every_command_has_help_text():
    missing = [f"{' '.join(path)} {'/'.join(a.option_strings) or a.dest}"
               for path, parser in _commands(build_parser()) for a in _options(parser)
               if not a.help]
    assert missing == []


#: The vocabulary: what each of these flags must mean wherever it appears.
FOLDER_FLAGS = {"--outdir": "folder", "--inputdir": "folder", "--dir": "folder"}


def test_the_same_flag_means_the_same_kind_of_thing_everywhere():
    """--out is a file, --outdir an output folder, --inputdir an input folder, --dir a board
    (bench sweep/run/plots/etc. write folders with --outdir; nothing writes with --to)."""
    seen = {}
    for path, parser in _commands(build_parser()):
        for a in _options(parser):
            if a.help == argparse.SUPPRESS:
                continue  # an old spelling, kept for one release
            for flag in a.option_strings:
                assert flag not in ("--to", "--board"), (path, flag)
                if flag in FOLDER_FLAGS:
                    assert "folder" in a.help or "DIR" in (a.metavar or "DIR"), (path, flag)
                if flag == "--out":
                    assert "folder" not in a.help.split("(")[0], (path, a.help)
                seen.setdefault(flag, []).append(" ".join(path[1:]))
    assert len(seen["--dir"]) >= 8 and "leaderboard verify" in seen["--dir"]
    assert "bench plots" in seen["--dir"]


def test_every_command_that_prints_a_result_can_print_json():
    wanted = {"validate", "score", "leaderboard verify", "leaderboard admit",
              "leaderboard show", "data list", "data verify", "bench list", "bench info"}
    have = {" ".join(path[1:]) for path, parser in _commands(build_parser())
            if any("--json" in a.option_strings for a in _options(parser))}
    assert wanted <= have, wanted - have


def test_bare_icgbench_and_a_bare_group_print_their_help(capsys):
    assert main([]) == 0
    assert "usage: icgbench" in capsys.readouterr().out
    with pytest.raises(SystemExit) as done:
        main(["leaderboard"])
    assert done.value.code == 0
    assert "usage: icgbench leaderboard" in capsys.readouterr().out
    result = subprocess.run([sys.executable, "-m", "icgbench"], capture_output=True, text=True,
                            check=False)
    assert result.returncode == 0 and "COMMAND" in result.stdout and not result.stderr


@pytest.mark.parametrize(("argv", "old", "new"), [
    (["data", "download", "--to", "{tmp}/d", "--url", "{tmp}/missing.tar.gz"], "--to",
     "--outdir"),
    (["leaderboard", "render", "--dir", "{tmp}/none", "--out", "{tmp}/site"], "--out",
     "--outdir"),
    (["bench", "plots", "--board", "{tmp}/none", "--outdir", "{tmp}/f"], "--board", "--dir"),
    (["generate", "--variant", "nope", "--seed", "1", "--out", "{tmp}/g"], "--out", "--outdir"),
])
def test_an_old_spelling_still_works_and_says_what_replaced_it(argv, old, new, tmp_path,
                                                                capsys):
    code = main([a.format(tmp=tmp_path) for a in argv])
    err = capsys.readouterr().err
    assert f"warning: {old} is deprecated and goes in the next release; use {new}" in err
    assert code in (1, 2) and "unrecognized arguments" not in err


def test_bench_run_names_the_model_with_model_and_keeps_the_seeds_variant(capsys):
    parser = build_parser()
    for flag in ("--model", "--variant"):
        args = parser.parse_args(["bench", "run", "--cohort", "linear_lowhet", flag, "v0_1"])
        assert args.model == "mbcnet_v0_1"
    assert capsys.readouterr().err == ""  # the seed's spelling is an alias, not deprecated


def test_the_board_folder_as_an_argument_is_deprecated(tmp_path, capsys):
    assert main(["leaderboard", "verify", str(tmp_path / "none")]) == 2
    assert "use --dir" in capsys.readouterr().err


def test_leaderboard_show_json_holds_the_table_show_prints(capsys):
    argv = ["leaderboard", "show", "--dir", str(ROOT / "leaderboard"), "--variant",
            "linear_lowhet", "--task", "risk_prediction"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert main([*argv, "--json"]) == 0
    import json

    doc = json.loads(capsys.readouterr().out)  # only JSON on stdout
    (table,) = doc["tables"]
    assert table["title"] == "linear_lowhet / risk_prediction: normalized risk" in text
    ranked = [r for r in table["rows"] if r["place"] is not None]
    assert [r["place"] for r in ranked] == sorted(r["place"] for r in ranked)
    leader = ranked[0]
    assert leader["place"] == 1 and leader["group"] == "A"
    assert f"1. A  {leader['model']}" in text and f"{leader['mean']:.4f}" in text
    assert all(r["reference"] for r in table["rows"] if r["place"] is None)
