"""docs/cli.md is generated from the parser, so the documented flags are the real ones."""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator

HEADER = """# Command reference

Generated from the argument parser by `make docs` (`python -m icgbench.reference`);
a test fails when this file and the parser disagree.

Exit codes everywhere: 0 success, 1 invalid input (a submission or release that fails
validation or verification) or work done only in part (a sweep whose cells failed), 2 usage
error (bad arguments, missing or unwritable paths), 141 output piped into a closed pipe.

Logging everywhere: every command takes `-v`/`--verbose` (before or after the command
name) to log its steps (load, fit, predict, write, score) on stderr with Python's
`logging`, and `-vv` for detail such as each release file read and hash-checked. By
default only warnings are printed (e.g. that a cohort is being simulated on the fly).

## The vocabulary

One flag for one kind of thing, in every command (`tests/test_cli_vocabulary.py` holds the
parser to it):

| flag | means |
| --- | --- |
| `--out FILE` | the one file a command writes (a report, an archive, a template, a page) |
| `--outdir DIR` | the folder a command writes into (a site, a cohort, a sweep, figures) |
| `--inputdir DIR` | a folder a command reads (a sweep's output) |
| `--dir DIR` | a leaderboard folder (default `leaderboard/`) |
| `--tier NAME` | a release tier (`small`, `full`; `sealed` where it applies) |
| `--json` | print only machine-readable JSON (every command that prints a result) |
| `--jobs N`, `--scheduler` | parallel workers, and where they run |

`bench run` and `bench audit` name the model with `--model` (`--variant`, the seed's
spelling, is kept as an alias). Every option has help text, and `icgbench` alone, or a
command group alone (`icgbench data`), prints its help.

Old spellings work for one more release, hidden from the help, each printing a deprecation
warning on stderr: `leaderboard render --out` and `generate --out` and `demo --out` (now
`--outdir`), `data download --to` (now `--outdir`), `bench plots --board` (now `--dir`),
and the board folder given to `leaderboard verify` as an argument (now `--dir`).
"""


def _walk(parser: argparse.ArgumentParser, path: list[str]) -> Iterator[tuple[list[str], str]]:
    yield path, parser.format_help()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _walk(sub, [*path, name])


def cli_markdown() -> str:
    """The whole command reference as Markdown, formatted at a fixed width."""
    from icgbench.cli import build_parser

    saved = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"
    try:
        sections = [HEADER]
        for path, text in _walk(build_parser(), ["icgbench"]):
            level = "#" * min(len(path) + 1, 4)
            sections.append(f"{level} `{' '.join(path)}`\n\n```text\n{text.rstrip()}\n```\n")
        return "\n".join(sections)
    finally:
        if saved is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = saved

