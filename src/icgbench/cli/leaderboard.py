"""``icgbench leaderboard ...``: add, verify, show, render."""

from __future__ import annotations

import argparse
from pathlib import Path

from icgbench.cli._common import positive_int, print_json
from icgbench.errors import UsageError
from icgbench.generator import variant_names
from icgbench.leaderboard import board, read_entries
from icgbench.release.locate import release_root
from icgbench.scorer import SubmissionInvalid
from icgbench.tasks import TASKS


def _default_board() -> Path:
    try:
        return release_root() / "leaderboard"
    except UsageError:
        return Path("leaderboard")


def register(commands: argparse._SubParsersAction) -> None:
    lb = commands.add_parser("leaderboard", help="the public leaderboard")
    sub = lb.add_subparsers(dest="leaderboard_command", metavar="SUBCOMMAND", required=True)

    p = sub.add_parser("add", help="validate, score and store submissions; append entries",
                       description="Validate and score each submission, store it under "
                       "submissions/, append its entry. Files for the release's calibration "
                       "cohort are added first (structure_recovery's K* is chosen there).")
    p.add_argument("submission", type=Path, nargs="+",
                   help="submission files (.json or .json.gz)")
    p.add_argument("--notes", default="", help="free-form notes recorded on the entry")
    p.add_argument("--dir", type=Path, default=None, help="board folder (default: leaderboard/)")
    p.set_defaults(func=run_add)

    p = sub.add_parser("verify", help="re-score every entry and compare every recorded field")
    p.add_argument("dir", type=Path, nargs="?", default=None,
                   help="board folder (default: leaderboard/)")
    p.add_argument("--jobs", type=positive_int, default=2, help="parallel processes")
    p.add_argument("--json", action="store_true", help="print only JSON")
    p.set_defaults(func=run_verify)

    p = sub.add_parser("show", help="a ranked table: mean and sample std over seeds")
    p.add_argument("--variant", choices=variant_names(), default=None)
    p.add_argument("--task", choices=list(TASKS), default=None)
    p.add_argument("--dir", type=Path, default=None)
    p.set_defaults(func=run_show)

    p = sub.add_parser("render", help="write a static, self-contained web page")
    p.add_argument("--out", type=Path, required=True, help="folder for index.html")
    p.add_argument("--dir", type=Path, default=None)
    p.add_argument("--figures", type=Path, default=None,
                   help="PNG figures to embed (default: docs/figures of the repository)")
    p.add_argument("--no-oracle", action="store_true",
                   help="skip the oracle reference lines (they need the release's truth)")
    p.set_defaults(func=run_render)


def _dir(args: argparse.Namespace, attr: str = "dir") -> Path:
    chosen = getattr(args, attr)
    return chosen if chosen is not None else _default_board()


def run_add(args: argparse.Namespace) -> int:
    folder = _dir(args)
    added = 0
    for path in board.calibration_first(args.submission):
        try:
            entry = board.add(path, folder, args.notes)
        except SubmissionInvalid as exc:
            print(f"INVALID {path} ({exc.stage}):")
            for line in exc.errors:
                print(f"  {line}")
            return 1
        added += 1
        print(f"added {entry.label}: {entry.submission_path}")
    print(f"wrote {added} entr{'y' if added == 1 else 'ies'} to {folder / 'leaderboard.json'} "
          f"and {folder / 'leaderboard.csv'}")
    return 0


def run_verify(args: argparse.Namespace) -> int:
    folder = _dir(args)
    entries, problems = board.verify(folder, args.jobs)
    if args.json:
        print_json({"board": str(folder), "entries": len(entries), "ok": not problems,
                    "discrepancies": [{"entry": p.entry, "field": p.field,
                                       "recorded": p.recorded, "recomputed": p.recomputed}
                                      for p in problems]})
        return 1 if problems else 0
    for p in problems:
        print(f"MISMATCH {p}")
    status = "OK" if not problems else f"FAILED ({len(problems)} discrepancies)"
    print(f"{status}: {len(entries)} entries of {folder} re-scored from their submissions")
    return 1 if problems else 0


def run_show(args: argparse.Namespace) -> int:
    folder = _dir(args)
    entries = read_entries(folder)
    variants = [args.variant] if args.variant else list(dict.fromkeys(
        e.variant_name for e in entries))
    tasks = [args.task] if args.task else list(TASKS)
    for variant in variants:
        for task in tasks:
            spec = TASKS[task]
            metric = spec.metric(spec.headline[0])
            ranked = [r for r in board.rank(entries, variant, task, metric.name,
                                            metric.higher_is_better) if r.seeds]
            if not ranked:
                continue
            arrow = {True: "higher is better", False: "lower is better"}.get(
                metric.higher_is_better, "descriptive")
            print(f"{variant} / {task}: {metric.name} ({arrow})")
            for i, r in enumerate(ranked, start=1):
                std = f" ± {r.std:.4f}" if r.std is not None else ""
                mean = "n/a" if r.mean is None else f"{r.mean:.4f}"
                print(f"  {i:>2}. {r.model:<26} {r.package_version:<8} {mean}{std} "
                      f"({r.seeds} seed{'s' if r.seeds != 1 else ''})")
    print(f"read {len(entries)} entries from {folder}")
    return 0


def run_render(args: argparse.Namespace) -> int:
    from icgbench.leaderboard.page import render

    folder = _dir(args)
    figures = args.figures
    if figures is None:
        try:
            figures = release_root() / "docs" / "figures"
        except UsageError:
            figures = None
    page = render(folder, args.out, figures, with_oracle=not args.no_oracle)
    print(f"rendered {page.entries} entries ({page.oracle_rows} oracle reference rows); "
          f"wrote {args.out / 'index.html'}")
    return 0
