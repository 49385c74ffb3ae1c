"""``icgbench leaderboard ...``: add, verify, show, render, repair, migrate."""

from __future__ import annotations

import argparse
from pathlib import Path

from icgbench.cli._common import (
    old_spelling,
    positive_float,
    positive_int,
    print_json,
    require_extra,
    required,
    say_err,
)
from icgbench.errors import UsageError, UserError
from icgbench.generator import variant_names
from icgbench.io.untrusted import printable
from icgbench.leaderboard.files import board_folder
from icgbench.leaderboard.queue import ADMISSIONS_PER_PERIOD, PERIOD, QUEUED_PER_PULL_REQUEST
from icgbench.leaderboard.store import (
    BOARD_TIERS,
    DEFAULT_LOCK_TIMEOUT,
    PUBLIC_TIER,
    load_board,
)
from icgbench.release.descriptor import SEALED_KEY_ENV
from icgbench.release.locate import release_root
from icgbench.release.tiers import DATA_VERSION, SEALED_NAME, TIERS
from icgbench.tasks import TASKS

DIR_HELP = "board folder (default: leaderboard/)"


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
                   help="submission files (.json or .json.gz), folders or archives (.zip, "
                   ".tar, .tar.gz, .tgz) of them (score reports, *.report.json, are left "
                   "out); all are added or none")
    p.add_argument("--notes", default="", help="free-form notes recorded on the entry "
                   "(at most 2000 characters)")
    p.add_argument("--dir", type=Path, default=None, help=DIR_HELP)
    p.add_argument("--tier", choices=list(TIERS), default=PUBLIC_TIER,
                   help="tier of a board this creates (an existing board keeps its own; the "
                   "public board is full)")
    _lock_timeout(p)
    p.set_defaults(func=run_add)

    p = sub.add_parser("verify", help="re-score every entry; check files, tier and history",
                       description="Re-score every entry from its stored submission and "
                       "compare every recorded field; check the board's tier, its CSV, its "
                       "files (no orphan, no link) and, with --base, that the board at that "
                       "git ref is a prefix of this one. Exit 0 when everything holds, 1 "
                       "listing each discrepancy, 2 on a usage error.")
    p.add_argument("dir", type=Path, nargs="?", default=None, help=argparse.SUPPRESS)
    p.add_argument("--dir", type=Path, default=None, dest="dir_option", metavar="DIR",
                   help="board folder (default: leaderboard/)")
    p.add_argument("--tier", choices=list(BOARD_TIERS), default=PUBLIC_TIER,
                   help="the tier the board must hold (default: full, the public board; "
                   "sealed: the sealed track's board, re-graded where the key is set)")
    p.add_argument("--base", default=None, metavar="REF",
                   help="git ref of the board's previous state (a pull request's base): it "
                   "must be a prefix of this board, entry for entry and file for file; only "
                   "the entries added since are re-scored (the others were when they merged)")
    p.add_argument("--full", action="store_true",
                   help="with --base, re-score every entry, not only the new ones (what a "
                   "new release or a change of the scorer calls for)")
    p.add_argument("--jobs", type=positive_int, default=2, help="parallel processes")
    p.add_argument("--json", action="store_true", help="print only JSON")
    p.set_defaults(func=run_verify)

    p = sub.add_parser("admit", help="the sealed track: grade queued submissions, add them",
                       description="Check every submission in the sealed board's queue/ "
                       "(schema, header, ids, lengths) and the admission ration (one entry per "
                       "model version and cohort; at most "
                       f"{ADMISSIONS_PER_PERIOD} admissions per model name in "
                       f"{PERIOD.days} days). Without --dry-run (the CI, after a merge, with "
                       "the key): grade each on the public half of its cohort's held-out "
                       "subjects, add its entry and take it out of the queue. A file that "
                       "fails or waits stays queued with its reason. A dry run grades "
                       "nothing and prints no score. Exit 1 when a file is invalid (or, in a "
                       "dry run, would wait for the ration), else 0.")
    p.add_argument("--dir", type=Path, default=None,
                   help="the sealed board's folder (default: leaderboard/sealed/)")
    p.add_argument("--dry-run", action="store_true",
                   help="check the queue only, as a pull request's check does")
    p.add_argument("--base", default=None, metavar="REF",
                   help="with --dry-run: git ref of the pull request's base; the pull request "
                   f"may add or change at most {QUEUED_PER_PULL_REQUEST} queued files, "
                   "whatever their model names")
    p.add_argument("--json", action="store_true", help="print only JSON")
    p.set_defaults(func=run_admit)

    p = sub.add_parser("repair", help="finish what a killed writer left (CSV, orphan files)",
                       description="Render leaderboard.csv again when it lags behind "
                       "leaderboard.json, and remove orphan submission files and temporary "
                       "files. Never changes an entry; refuses a hand-edited CSV.")
    p.add_argument("--dir", type=Path, default=None, help=DIR_HELP)
    _lock_timeout(p)
    p.set_defaults(func=run_repair)

    p = sub.add_parser("migrate", help="rewrite a board at the current schema version",
                       description="Rewrite a board stored at an older schema version at the "
                       "current one, moving each stored submission to its canonical path.")
    p.add_argument("--dir", type=Path, default=None, help=DIR_HELP)
    _lock_timeout(p)
    p.set_defaults(func=run_migrate)

    p = sub.add_parser("regrade", help="grade a board again on a new minor data release",
                       description="Grade every entry graded on an earlier minor release of "
                       "this major data release again, from its stored submission: only its "
                       "scores, data_version and release_fingerprint change. The board is "
                       "written as it goes, so a run cut off resumes. A new major release "
                       "starts a new board instead (docs/leaderboard.md).")
    p.add_argument("--dir", type=Path, default=None, help=DIR_HELP)
    p.add_argument("--jobs", type=positive_int, default=2, help="parallel processes")
    _lock_timeout(p)
    p.set_defaults(func=run_regrade)

    p = sub.add_parser("show", help="ranked tables: overall, then each category's normalized "
                       "score per variant")
    p.add_argument("--variant", choices=variant_names(), default=None,
                   help="only this cohort variant (default: every variant, and the overall "
                   "ranking)")
    p.add_argument("--task", choices=list(TASKS), default=None,
                   help="only this task (default: every task)")
    p.add_argument("--metric", default=None,
                   help="a recorded raw metric (auroc, pehe, ece, ...) instead of each "
                   "task's normalized category score, or overall; a metric a constant "
                   "answer can win (ece, the conformity shares) or a transfer gap is "
                   "listed, never ranked; only tasks that record it are shown")
    p.add_argument("--dir", type=Path, default=None, help=DIR_HELP)
    p.add_argument("--json", action="store_true",
                   help="print only JSON: the ranked rows of every table shown")
    p.set_defaults(func=run_show)

    p = sub.add_parser("render", help="write a static, self-contained web page")
    p.add_argument("--outdir", type=Path, default=None,
                   help="folder for the site (index.html, a page per variant, check.html); "
                   "required")
    old_spelling(p, "--out", "--outdir", "outdir", type=Path)
    p.add_argument("--dir", type=Path, default=None, help=DIR_HELP)
    p.add_argument("--figures", type=Path, default=None,
                   help="a folder of PNG figures to embed after those drawn from the board, "
                   "captioned as not from it (default: none; every figure of the page is "
                   "drawn from the board)")
    p.add_argument("--no-oracle", action="store_true",
                   help="skip the oracle reference lines (they need the release's truth)")
    p.set_defaults(func=run_render)


def _lock_timeout(p: argparse.ArgumentParser) -> None:
    p.add_argument("--lock-timeout", type=positive_float, default=DEFAULT_LOCK_TIMEOUT,
                   metavar="SECONDS",
                   help="give up waiting for another writer's board lock after this long "
                   f"(default {DEFAULT_LOCK_TIMEOUT:g})")


def _dir(args: argparse.Namespace, attr: str = "dir") -> Path:
    chosen = getattr(args, attr)
    return chosen if chosen is not None else _default_board()


def run_add(args: argparse.Namespace) -> int:
    from icgbench.cli.scoring import unpacked
    from icgbench.leaderboard import board
    from icgbench.scorer.files import submission_files

    folder = _dir(args)
    try:
        with unpacked() as unpack_into:
            entries = board.add_all(submission_files(args.submission, unpack_into).files,
                                    folder, args.notes, tier=args.tier,
                                    lock_timeout=args.lock_timeout)
    except board.FilesInvalid as exc:
        for path, problem in exc.invalid:
            print(f"INVALID {printable(str(path))} ({problem.stage}):")
            for line in problem.errors:
                print(f"  {line}")
        print(f"added nothing: {len(exc.invalid)} file(s) invalid (an add is all or nothing)")
        return 1
    for entry in entries:
        print(f"added {entry.label}: {entry.submission_path}")
    print(f"wrote {len(entries)} entr{'y' if len(entries) == 1 else 'ies'} to "
          f"{folder / 'leaderboard.json'} and {folder / 'leaderboard.csv'}")
    return 0


def run_verify(args: argparse.Namespace) -> int:
    from icgbench.leaderboard.verify import verify

    if args.dir is not None:
        say_err(f"icgbench: warning: the board folder as an argument ({args.dir}) is "
                f"deprecated and goes in the next release; use --dir {args.dir}")
    if args.dir is not None and args.dir_option is not None and args.dir != args.dir_option:
        raise UsageError(f"two board folders given: {args.dir} and --dir {args.dir_option}")
    folder = _dir(args, "dir_option" if args.dir is None else "dir")
    if args.full and args.base is None:
        raise UsageError("--full goes with --base: without it every entry is re-scored")
    entries, problems = verify(folder, args.jobs, tier=args.tier, base=args.base,
                               full=args.full)
    if args.json:
        print_json({"board": str(folder), "entries": len(entries), "ok": not problems,
                    "discrepancies": [{"entry": p.entry, "field": p.field,
                                       "recorded": p.recorded, "recomputed": p.recomputed}
                                      for p in problems]})
        return 1 if problems else 0
    for p in problems:
        print(f"MISMATCH {p}")
    status = "OK" if not problems else f"FAILED ({len(problems)} discrepancies)"
    how = ("re-scored from their submissions" if args.base is None or args.full else
           f"checked against {args.base}; the entries added since re-scored from their "
           "submissions")
    print(f"{status}: {len(entries)} entries of {folder} {how}")
    return 1 if problems else 0


def run_show(args: argparse.Namespace) -> int:
    from icgbench.leaderboard import ranking

    folder = board_folder(_dir(args))
    loaded = load_board(folder, new_tier=None)
    entries = loaded.entries
    out = (lambda *a: None) if args.json else print
    if loaded.tier == SEALED_NAME:
        out("sealed track: every score is on the public half of each cohort's held-out "
            "subjects (the private half is published when the generation is retired)")
    variants = [args.variant] if args.variant else list(dict.fromkeys(
        e.variant_name for e in entries))
    tasks = [args.task] if args.task else list(TASKS)
    overall_only = args.metric == OVERALL
    if args.metric is not None and not overall_only:
        recorded = sorted({m for t in tasks for m in TASKS[t].headline})
        tasks = [t for t in tasks if args.metric in TASKS[t].headline]
        if not tasks:
            raise UsageError(f"no task{' ' + args.task if args.task else ''} records metric "
                             f"{args.metric!r}; recorded: {OVERALL}, {', '.join(recorded)}")
    about = _entry_labels(folder, entries)
    floors = ranking.floors_of(entries)
    out("normalized means over every cohort (a missing cohort counts as the floor) "
        "[95% interval] ± sd, negative below the floor; places follow the means; two "
        "models sharing a group letter are not separable (each pair's own paired t-test "
        "over its cohorts, blocked by variant, 5%); 'partial' rows cover fewer cohorts "
        "and follow the complete ones; 'ref' a reference line")
    tables = []
    if args.metric is None or overall_only:
        if args.task is None:
            scope = [args.variant] if args.variant else None
            tables.append(_table("overall" + (f" on {args.variant}" if args.variant else
                                              " over every cohort"),
                                 ranking.rank_overall(entries, scope, floors), True, floors))
        if overall_only and args.variant is None:
            tables += [_table(f"overall on {v}", ranking.rank_overall(entries, [v], floors),
                              True, floors) for v in variants]
    if not overall_only:
        for variant in variants:
            for task in tasks:
                spec = TASKS[task]
                if args.metric is None:
                    ranked = ranking.rank_category(entries, variant, spec.category, floors)
                    title = f"{variant} / {task}: normalized {spec.category}"
                    tables.append(_table(title, ranked, True, floors))
                    continue
                metric = spec.metric(args.metric)
                ranked = ranking.rank_metric(entries, variant, task, metric.name,
                                             metric.ranked, metric.higher_is_better, floors)
                direction = metric.higher_is_better if metric.ranked else None
                tables.append(_table(f"{variant} / {task}: {metric.name}", ranked,
                                     direction, floors))
    tables = [table for table in tables if table["rows"]]
    if args.json:
        print_json({"board": str(folder), "entries": len(entries), "tables": tables})
        return 0
    for table in tables:
        _print_table(table, about)
    print(f"read {len(entries)} entr{'y' if len(entries) == 1 else 'ies'} from {folder}")
    return 0


#: ``--metric`` value of the overall ranking.
OVERALL = "overall"
NOTE_CHARS = 60


def _table(title: str, ranked: list, higher_is_better: bool | None,
           floors: set[tuple[str, str]] = frozenset()) -> dict:
    """One table as data: mean, 95% interval, std and cohorts per row, its place and group
    (None for a reference line and for a metric that is listed, not ranked) and whether the
    row is partial."""
    from icgbench.leaderboard.ranking import group_label

    rows = []
    for r in ranked:
        reference = (r.model, r.package_version) in floors
        rows.append({"place": None if higher_is_better is None or reference else r.place,
                     "group": None if higher_is_better is None or reference else
                     group_label(r.group),
                     "partial": bool(r.partial), "reference": reference, "model": r.model,
                     "version": r.package_version, "mean": r.mean, "low": r.low,
                     "high": r.high, "std": r.std, "cohorts": r.seeds})
    return {"title": title, "higher_is_better": higher_is_better, "rows": rows}


def _print_table(table: dict, about: dict[tuple[str, str], str]) -> None:
    """A table as ``show`` prints it: place and group (docs/leaderboard.md), ``ref`` a
    reference line, ``-`` a row of a metric listed without ranks."""
    arrow = {True: "higher is better", False: "lower is better"}.get(
        table["higher_is_better"], "listed, not ranked: a constant can win it")
    print(f"{table['title']} ({arrow})")
    rows = table["rows"]
    width = max(len(r["model"]) for r in rows)
    for r in rows:
        std = f" ± {r['std']:.4f}" if r["std"] is not None else ""
        mean = "n/a" if r["mean"] is None else f"{r['mean']:.4f}"
        span = f" [{r['low']:.4f}, {r['high']:.4f}]" if r["low"] is not None else ""
        extra = about.get((r["model"], r["version"]), "")
        if r["reference"]:
            mark = "ref"
        elif r["place"] is None:
            mark = "  -"
        else:
            mark = f"{r['place']:>3}"
        group = f"{r['group']:<2}" if r["group"] else "  "
        partial = " partial" if r["partial"] else ""
        cohorts = f"{r['cohorts']} cohort{'s' if r['cohorts'] != 1 else ''}"
        print(f"  {mark}. {group} {r['model']:<{width}} {r['version']:<8} {mean}{span}{std} "
              f"({cohorts}{partial}){extra}")


def one_line(text: str, limit: int = NOTE_CHARS) -> str:
    """Untrusted text as one printable line of at most ``limit`` characters (every
    control visibly escaped: :func:`icgbench.io.untrusted.printable`)."""
    flat = printable(text)
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _entry_labels(folder: Path, entries: list) -> dict[tuple[str, str], str]:
    """`` [language] notes`` per (model, version), from its stored submissions' headers."""
    from icgbench.io import untrusted
    from icgbench.leaderboard.files import inside
    from icgbench.scorer.parse import DEFAULT_MAX_BYTES, json_bytes, parse_json

    out: dict[tuple[str, str], str] = {}
    for e in entries:
        key = (e.model_name, e.package_version)
        if key in out:
            continue
        try:
            data = untrusted.read_regular(inside(folder, e.submission_path), DEFAULT_MAX_BYTES,
                                          follow_symlinks=False)
            model = parse_json(json_bytes(data))["model"]
            language = model.get("language", "") if isinstance(model, dict) else ""
        except (UserError, OSError, untrusted.InputProblem, KeyError, TypeError):
            language = ""
        parts = [f"[{one_line(str(language), 32)}]" if language else "",
                 one_line(e.notes) if e.notes else ""]
        out[key] = "".join(f"  {p}" for p in parts if p)
    return out


def run_render(args: argparse.Namespace) -> int:
    require_extra("page", "icgbench leaderboard render")
    from icgbench.leaderboard.page import render

    folder = _dir(args)
    figures = args.figures
    if figures is not None and not figures.is_dir():
        raise UsageError(f"--figures {figures}: not a folder")
    outdir = required(args.outdir, "--outdir")
    page = render(folder, outdir, figures, with_oracle=not args.no_oracle)
    print(f"rendered {page.entries} entries ({page.oracle_rows} oracle reference rows); "
          f"wrote {outdir / 'index.html'}")
    return 0


def run_admit(args: argparse.Namespace) -> int:
    from icgbench.leaderboard.files import SEALED_BOARD
    from icgbench.leaderboard.queue import admit
    from icgbench.release.sealed import key_from_env

    folder = args.dir if args.dir is not None else _default_board() / SEALED_BOARD
    if (folder.exists() and not folder.is_dir()) or folder.is_symlink():
        raise UsageError(f"--dir {folder}: not a folder (the sealed board's folder)")
    if not args.dry_run and key_from_env() is None:
        raise UsageError(f"admitting grades the queued submissions, which needs the board's "
                         f"key ({SEALED_KEY_ENV}); --dry-run checks them without it")
    if args.base is not None and not args.dry_run:
        raise UsageError("--base is for a pull request's check: use it with --dry-run")
    results = admit(folder, dry_run=args.dry_run, base=args.base)
    waiting = [a for a in results if a.problem is not None]
    # after the merge a file waiting for the ration is expected; in a pull request it is not
    failed = [a for a in waiting if args.dry_run or not a.waiting]
    if args.json:
        print_json({"board": str(folder), "dry_run": args.dry_run, "queued": len(results),
                    "ok": not failed,
                    "files": [{"file": a.file, "admitted": a.entry is not None,
                               "entry": a.entry.label if a.entry else None,
                               "problem": a.problem, "waiting": a.waiting}
                              for a in results]})
        return 1 if failed else 0
    for a in results:
        if a.problem is not None:
            print(f"STAYS QUEUED {one_line(a.file, 120)}: {a.problem}")
        elif a.entry is not None:
            print(f"admitted {one_line(a.file, 120)} as {a.entry.label}")
        else:
            print(f"valid {one_line(a.file, 120)}: graded and admitted after the merge")
    verb = "checked" if args.dry_run else "admitted"
    done = len(results) - len(waiting)
    print(f"{verb} {done} of {len(results)} queued file(s) of {folder / 'queue'}" + (
        "" if args.dry_run else f"; wrote {folder / 'leaderboard.json'}"))
    return 1 if failed else 0


def run_repair(args: argparse.Namespace) -> int:
    from icgbench.leaderboard.maintenance import repair

    folder = _dir(args)
    actions = repair(folder, args.lock_timeout)
    for line in actions:
        print(line)
    print(f"{folder} is consistent ({len(actions)} repair(s) made)")
    return 0


def run_migrate(args: argparse.Namespace) -> int:
    from icgbench.leaderboard.maintenance import migrate

    folder = _dir(args)
    moved = migrate(folder, args.lock_timeout)
    print(f"{folder} is at the current schema version ({moved} stored file(s) moved); wrote "
          f"{folder / 'leaderboard.json'} and {folder / 'leaderboard.csv'}")
    return 0


def run_regrade(args: argparse.Namespace) -> int:
    from icgbench.leaderboard.regrade import regrade

    folder = _dir(args)
    done, total = regrade(folder, args.jobs, args.lock_timeout)
    print(f"{folder}: {done} of {total} entries graded again on data release {DATA_VERSION}; "
          f"wrote {folder / 'leaderboard.json'} and {folder / 'leaderboard.csv'}")
    return 0
