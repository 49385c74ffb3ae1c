"""The ``icgbench`` command: one module per command group, each registering its parsers."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import logging
import os
import sys
from collections.abc import Iterator, Sequence

from icgbench import __version__
from icgbench.errors import UserError

#: Exit code when stdout's reader closed the pipe: 128 + SIGPIPE, as a shell reports it.
BROKEN_PIPE = 141

#: Command group modules (``icgbench.cli.<name>``), in the order ``icgbench --help``
#: lists them, with the top-level commands each registers. A command's run builds only
#: its own group's parsers, so it imports nothing the other groups need (a test checks
#: this table against what the groups register).
COMMAND_GROUPS: dict[str, tuple[str, ...]] = {
    "demo": ("demo",),
    "scoring": ("validate", "score", "submission"),
    "leaderboard": ("leaderboard",),
    "generate": ("generate",),
    "data": ("freeze", "data"),
    "bench": ("bench",),
}


def _invoked_group(argv: Sequence[str]) -> str | None:
    """The group of the command ``argv`` names (after any global options), else None."""
    first = next((a for a in argv if a == "--" or not a.startswith("-")), None)
    return next((g for g, commands in COMMAND_GROUPS.items() if first in commands), None)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser (also used to generate docs/cli.md); ``only`` names the one
    command group to register (the others' commands are then unknown to it)."""
    parser = argparse.ArgumentParser(
        prog="icgbench",
        description=(
            "ICg-Bench: a frozen, verifiable causal benchmark for mechanism-aware "
            "carcinogenicity models. All data are synthetic."
        ),
    )
    parser.add_argument("--version", action="version", version=f"icgbench {__version__}")
    parser.add_argument(*VERBOSE, action="count", default=0, help=VERBOSE_HELP)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for group in COMMAND_GROUPS if only is None else (only,):
        importlib.import_module(f"{__name__}.{group}").register(commands)
    _add_verbose(commands)
    return parser


VERBOSE = ("-v", "--verbose")
VERBOSE_HELP = "log each step (load, fit, predict, write, score) on stderr; -vv for detail"


def _add_verbose(commands: argparse._SubParsersAction) -> None:
    """Give every (sub)command ``-v/--verbose`` too, so it may follow the command name."""
    for sub in dict.fromkeys(commands.choices.values()):
        sub.add_argument(*VERBOSE, action="count", default=argparse.SUPPRESS,
                         help=VERBOSE_HELP)
        for action in sub._actions:
            if isinstance(action, argparse._SubParsersAction):
                _add_verbose(action)


def _has_subcommands(parser: argparse.ArgumentParser, command: str) -> bool:
    """Whether ``command`` is a group of subcommands (``data``, ``leaderboard``, ...)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            return any(isinstance(a, argparse._SubParsersAction)
                       for a in action.choices[command]._actions)
    return False


def configure_logging(verbosity: int) -> None:
    """Warnings only by default; -v logs the steps (INFO), -vv every detail (DEBUG)."""
    level = logging.WARNING if verbosity <= 0 else logging.INFO if verbosity == 1 else (
        logging.DEBUG)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(
        "icgbench: %(message)s" if verbosity <= 0 else
        "%(asctime)s.%(msecs)03d %(name)s: %(message)s", datefmt="%H:%M:%S"))
    root = logging.getLogger("icgbench")
    root.handlers[:] = [handler]
    root.setLevel(level)
    root.propagate = False


#: Options whose value is free text: a value that starts with "-" (``--notes -2+3``) is
#: still their value, not an option.
FREE_TEXT_OPTIONS = ("--notes",)


def joined_free_text(argv: list[str]) -> list[str]:
    """``argv`` with each free-text option joined to its value (``--notes=VALUE``), so that
    argparse never reads a value that starts with "-" as an option."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        if argv[i] in FREE_TEXT_OPTIONS and i + 1 < len(argv):
            out.append(f"{argv[i]}={argv[i + 1]}")
            i += 2
        else:
            out.append(argv[i])
            i += 1
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (0 ok, 1 invalid input, 2 usage error). What it
    prints cannot drive the terminal (:mod:`icgbench.io.terminal`)."""
    from icgbench.io.terminal import printable_streams

    for stream in (sys.stdout, sys.stderr):  # a message may quote undecodable input
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    with printable_streams(), _logging_restored(), _terminated_cleanly():
        return _main(argv)


@contextlib.contextmanager
def _terminated_cleanly() -> Iterator[None]:
    """SIGTERM ends the command as an exception would (exit 143), so that its temporary
    folders and half-written files are removed on the way out; where the process has its
    own handler, or this is not the main thread, nothing changes."""
    import signal
    import threading

    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL):
        yield
        return

    def terminate(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


@contextlib.contextmanager
def _logging_restored() -> Iterator[None]:
    """The package logger as it was before the command: its handler writes to the standard
    error the command ran with, which a caller running commands in its own process (a
    notebook, a test) may close or replace afterwards."""
    root = logging.getLogger("icgbench")
    saved = (root.handlers[:], root.level, root.propagate)
    try:
        yield
    finally:
        root.handlers[:], root.level, root.propagate = saved


def _main(argv: Sequence[str] | None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if not [a for a in argv if a not in VERBOSE]:  # bare `icgbench`: the help, not an error
        build_parser().print_help()
        return 0
    argv = joined_free_text(argv)
    parser = build_parser(only=_invoked_group(argv))
    if len(argv) == 1 and _has_subcommands(parser, argv[0]):
        argv = [argv[0], "--help"]  # `icgbench data`: that group's help
    args = parser.parse_args(argv)
    configure_logging(args.verbose)
    try:
        code = args.func(args)
    except UserError as exc:
        print(f"icgbench: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:  # the reader left (`icgbench ... | head`): end quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return BROKEN_PIPE
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename else ""
        print(f"icgbench: error: {exc.strerror or exc}{where}", file=sys.stderr)
        return 2
    except MemoryError:
        print("icgbench: error: out of memory (the input or the requested size is too large "
              "for this machine)", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("icgbench: interrupted", file=sys.stderr)
        return 130
    return int(code or 0)


def entry_point() -> None:
    """Console-script entry point."""
    sys.exit(main())
