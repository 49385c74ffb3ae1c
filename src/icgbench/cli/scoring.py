"""``icgbench validate``, ``icgbench score`` and ``icgbench submission template``."""

from __future__ import annotations

import argparse
import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from icgbench.cli._common import (
    non_negative_float,
    non_negative_int,
    positive_int,
    print_json,
    release_files,
    variant_arg,
)
from icgbench.errors import UsageError, UserError
from icgbench.io.untrusted import printable
from icgbench.release.tiers import SEALED_NAME, TIERS
from icgbench.scorer.messages import DEFAULT_MAX_ERRORS
from icgbench.scorer.parse import DEFAULT_MAX_BYTES
from icgbench.tasks.intervention_conformity import RESPONSIVE_THRESHOLD

if TYPE_CHECKING:
    from icgbench.scorer import SubmissionInvalid


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser(
        "validate", help="check a submission against the JSON Schema and the release",
        description="Validate submissions (.json or .json.gz): the JSON Schema, then the "
        "checks no schema can express (ids, lengths, data version, variant hash); each file "
        "is reported on its own. Exit 0 all valid, 1 any invalid, 2 usage error.")
    p.add_argument("files", type=Path, nargs="+", metavar="file",
                   help="submission files (.json or .json.gz), folders of them, or archives "
                   "(.zip, .tar, .tar.gz, .tgz) of them (*.report.json files are score "
                   "reports and left out)")
    _common(p, file=False)
    p.set_defaults(func=run_validate)

    p = commands.add_parser(
        "score", help="validate and grade a submission; write a score report",
        description="Validate and grade every task a submission attempts, against the "
        "hash-verified truth of the release. Exit 0 scored, 1 invalid, 2 usage error.")
    p.add_argument("files", type=Path, nargs="+", metavar="file",
                   help="submission file (.json or .json.gz); several files, a folder or "
                   "an archive (.zip, .tar, .tar.gz, .tgz) of them are each graded, each "
                   "report written beside its file (an archive's in <archive>.reports/)")
    _common(p, file=False)
    p.add_argument("--out", type=Path, default=None,
                   help="report file (default: <submission>.report.json beside it; one "
                   "submission only)")
    p.add_argument("--structure-k", type=positive_int, default=None,
                   help="grade structure_recovery at this K (your K* from the calibration "
                   "cohort); default: the block's k, else this cohort's own best K")
    p.add_argument("--responsive-threshold", type=non_negative_float,
                   default=RESPONSIVE_THRESHOLD, metavar="X",
                   help="for analysis: |risk change| an intervention must reach to count as "
                   f"responsive (default {RESPONSIVE_THRESHOLD}, the only value the "
                   "leaderboard grades at; the report records the value used)")
    p.set_defaults(func=run_score)

    sub = commands.add_parser("submission", help="submission helpers")
    subs = sub.add_subparsers(dest="submission_command", metavar="SUBCOMMAND", required=True)
    p = subs.add_parser("template", help="write a valid submission with every block and "
                        "constant predictions: the starting point in any language")
    p.add_argument("--variant", required=True, help="cohort variant of the template")
    p.add_argument("--seed", type=non_negative_int, default=None,
                   help="cohort seed (default: the tier's first seed of the variant)")
    p.add_argument("--tier", choices=[*TIERS, SEALED_NAME], default="small",
                   help="release tier of the cohort (default small; sealed: a submission "
                   "to the sealed track, from the sealed tier's public tables)")
    p.add_argument("--out", type=Path, required=True, help="file to write")
    p.set_defaults(func=run_template)


def _common(p: argparse.ArgumentParser, file: bool = True) -> None:
    if file:
        p.add_argument("file", type=Path, help="submission file (.json or .json.gz)")
    p.add_argument("--tier", choices=list(TIERS), default=None,
                   help="tier to grade against (default: the submission's own)")
    p.add_argument("--max-bytes", type=positive_int, default=DEFAULT_MAX_BYTES,
                   help="refuse a larger file, as read and again decompressed; parsing may "
                   f"use 8 times this in memory (default {DEFAULT_MAX_BYTES}, 64 MiB)")
    p.add_argument("--release", type=Path, default=None, metavar="DIR",
                   help="release folder to grade against (default: the located release; for "
                   "a cohort simulated on the fly by `bench run`, its OUTDIR/cohort)")
    p.add_argument("--max-errors", type=positive_int, default=DEFAULT_MAX_ERRORS,
                   metavar="N", help="list at most N problems per file, in document order, "
                   f"then how many there are in all (default {DEFAULT_MAX_ERRORS})")
    p.add_argument("--json", action="store_true", help="print only machine-readable JSON "
                   "(validate: one object per file, an array when several files are given)")


def _invalid_verdict(file: Path, exc: SubmissionInvalid) -> dict[str, Any]:
    return {"file": str(file), "valid": False, "stage": exc.stage, "count": exc.count,
            "errors": exc.errors}


def _print_invalid(verdict: dict[str, Any]) -> None:
    count = verdict["count"]
    print(f"INVALID {printable(str(verdict['file']))} ({verdict['stage']}): {count} "
          f"problem{'s' if count != 1 else ''}")
    for line in verdict["errors"]:
        print(f"  {line}")


def _verdict(file: Path, args: argparse.Namespace, several: bool) -> tuple[int, dict[str, Any]]:
    """(exit code, verdict) of one file; with several files a usage error is per file too."""
    from icgbench.api.verdict import USAGE_STAGE, validate

    v = validate(file, tier=args.tier, release=args.release, max_bytes=args.max_bytes,
                 max_errors=args.max_errors)
    if v.stage == USAGE_STAGE and not several:
        raise UserError(v.errors[0], v.exit_code)
    return v.exit_code, v.to_dict()


def run_validate(args: argparse.Namespace) -> int:
    from icgbench.scorer import files

    several = files.several(args.files)
    with unpacked() as folder:
        args.files = files.submission_files(args.files, folder, args.max_bytes).files
        results = [_verdict(file, args, several) for file in args.files]
    if args.json:
        verdicts = [verdict for _, verdict in results]
        print_json(verdicts if several else verdicts[0])
    for code, verdict in ([] if args.json else results):
        if verdict["valid"]:
            print(f"VALID {printable(str(verdict['file']))}: {verdict['variant']} seed "
                  f"{verdict['seed']} "
                  f"({verdict['tier']} tier), blocks: {', '.join(verdict['blocks'])}")
        elif code == 1:
            _print_invalid(verdict)
        else:
            print(f"ERROR {verdict['file']}: {verdict['errors'][0]}")
    codes = [code for code, _ in results]
    if several and not args.json:
        bad = sum(code != 0 for code in codes)
        print(f"{len(codes) - bad} of {len(codes)} files valid")
    return max(codes)


def _default_report_path(file: Path) -> Path:
    name = file.name
    for suffix in (".json.gz", ".json"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    return file.with_name(f"{name}.report.json")


def run_score(args: argparse.Namespace) -> int:
    from icgbench.scorer import files as inputs

    several = inputs.several(args.files)
    if several and args.out is not None:
        raise UsageError("--out names one report: with several submissions each report is "
                         "written beside its file")
    with unpacked() as folder:
        unit = inputs.submission_files(args.files, folder, args.max_bytes)
        files = unit.files
        outs = [_beside_archive(file, unit.archive_of.get(file)) if several else args.out
                for file in files]
        _refuse_shared_reports(files, outs, unit.archive_of)
        results = [_grade_file(file, args, out) for file, out in zip(files, outs, strict=True)]
    if args.json:
        documents = [document for _, document, _ in results]
        print_json(documents if several else documents[0])
    for file, (code, document, out) in zip(files, [] if args.json else results, strict=False):
        if code != 0:
            _print_invalid(document)
        elif several:
            print(f"SCORED {printable(str(file))}: {document['variant']} seed "
                  f"{document['seed']}, overall={_fmt(document['summary']['overall'])}")
        else:
            _print_report(document, args)
            print(f"wrote the score report to {out}")
    if several and not args.json:
        bad = sum(code != 0 for code, _, _ in results)
        where = ("beside its submission (<name>.report.json)" if not unit.archive_of else
                 "beside its submission, or in <archive>.reports/ for an archive's")
        print(f"scored {len(results) - bad} of {len(results)} files; each report is {where}")
    return max(code for code, _, _ in results)


@contextlib.contextmanager
def unpacked() -> Iterator[Path]:
    """A private temporary folder for the archives a command line names, removed after."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="icgbench-unpacked-") as folder:
        yield Path(folder)


def _refuse_shared_reports(files: list[Path], outs: list[Path | None],
                           archive_of: dict[Path, Path]) -> None:
    """A UsageError, before anything is written, where two submissions would write one
    report (``x.json`` beside ``x.json.gz``, a file named twice): one would overwrite the
    other."""
    seen: dict[Path, Path | str] = {}
    for file, out in zip(files, outs, strict=True):
        report = (out or _default_report_path(file)).resolve()
        archive = archive_of.get(file)
        shown_as = file if archive is None else f"{archive} (member {file.name})"
        if report in seen:
            raise UsageError(f"{printable(str(seen[report]))} and {printable(str(shown_as))} "
                             f"would both write {printable(str(report.name))}: score them "
                             "apart (--out), or rename one")
        seen[report] = shown_as


def _beside_archive(file: Path, archive: Path | None) -> Path | None:
    """Where the report of an archive's submission goes: ``<archive>.reports/`` beside the
    archive (None: beside the submission itself)."""
    if archive is None:
        return None
    from icgbench.io.atomic import ensure_writable_dir

    folder = archive.with_name(f"{archive.name}.reports")
    ensure_writable_dir(folder)
    return folder / _default_report_path(file).name


def _grade_file(file: Path, args: argparse.Namespace, out: Path | None
                ) -> tuple[int, dict[str, Any], Path]:
    """(exit code, the report or the invalid verdict, the report's path) of one file; the
    report is written."""
    from icgbench.io.atomic import check_output, write_text
    from icgbench.io.paths import outside_boards
    from icgbench.scorer import SubmissionInvalid, score

    out = check_output(out or _default_report_path(file), [file], "report")
    try:
        report = score(file, tier=args.tier, root=args.release, max_bytes=args.max_bytes,
                       structure_k=args.structure_k,
                       responsive_threshold=args.responsive_threshold,
                       max_errors=args.max_errors)
    except SubmissionInvalid as exc:
        return 1, _invalid_verdict(file, exc), out
    # after grading, so that a sealed submission first says it needs the board's key
    outside_boards(out.parent, "the report's folder")
    write_text(out, report.to_json(),
               [file, *release_files(report.document["tier"], args.release)])
    return 0, report.document, out


def _print_report(doc: dict[str, Any], args: argparse.Namespace) -> None:
    print(f"{doc['model']['name']} {doc['model']['version']} on {doc['variant']} seed "
          f"{doc['seed']} ({doc['tier']} tier, data {doc['data_version']})")
    if not doc["frozen"]:
        print(f"  NOTE: {doc['notice']}")
    if args.responsive_threshold != RESPONSIVE_THRESHOLD and "intervention_conformity" in (
            doc["tasks"]):
        print(f"  NOTE: responsive_threshold {args.responsive_threshold} (the board grades at "
              f"{RESPONSIVE_THRESHOLD})")
    for task, section in doc["tasks"].items():
        shown = ", ".join(f"{k}={_fmt(v)}" for k, v in section["metrics"].items()
                          if "__" not in k)
        print(f"  {task}: {shown}")
    s = doc["summary"]
    print("  summary: " + ", ".join(f"{k}={_fmt(s[k])}" for k in
                                     ("auroc", "r2_mean", "conformity", "auroc_target",
                                      "transfer_gap", "composite")))
    overall = (f"overall=n/a ({s['overall_note']})" if s["overall"] is None
               else f"overall={_fmt(s['overall'])} (a category not attempted counts 0)")
    print("  normalized: " + ", ".join(f"{c}={_fmt(v)}" for c, v in s["normalized"].items())
          + f"; {overall}")
    for line in why_lines(doc):
        print(f"    {line}")
    if doc.get("withheld"):
        print(f"  withheld: {doc['withheld']['note']}")


def why_lines(doc: dict[str, Any]) -> list[str]:
    """Why each normalized category is at or below 0, or not computed, from a score report:
    the category's own note (a graph at its own best K), the part no better than its floor
    (and the model-free answer that set it), the part whose floor already reaches its
    ceiling, the category not attempted."""
    out = []
    graded = {section["normalized"]["category"]: section["normalized"]
              for section in doc["tasks"].values() if section.get("normalized")}
    for category, value in doc["summary"]["normalized"].items():
        if category not in graded:
            if value is not None and value == 0:
                out.append(f"{category}: not attempted, counts 0")
            continue
        if graded[category].get("note"):
            out.append(f"{category}: {graded[category]['note']}")
            continue
        reasons = []
        for metric, part in graded[category]["parts"].items():
            floor, answer = _fmt(part["floor"]), part.get("floor_answer") or "chance"
            if part["normalized"] is None:
                reasons.append(f"{metric} left out: its floor {floor} ({answer}) already "
                               f"reaches the ceiling {_fmt(part['ceiling'])}")
            elif part["normalized"] <= 0:
                reasons.append(f"{metric} {_fmt(part['score'])} is no better than its floor "
                               f"{floor} ({answer})")
        if reasons and ((value is not None and value <= 0)
                        or any("left out" in r for r in reasons)):
            out.append(f"{category}: " + "; ".join(reasons))
    return out


def _fmt(value: object) -> str:
    return "n/a" if value is None else f"{value:.4f}" if isinstance(value, float) else str(value)


def run_template(args: argparse.Namespace) -> int:
    from icgbench.api.template import build_template
    from icgbench.io.atomic import check_output, write_text
    from icgbench.io.paths import outside_boards
    from icgbench.release.locate import require_tier

    require_tier(args.tier)
    inputs = release_files(args.tier)
    check_output(args.out, inputs, "template")
    outside_boards(Path(args.out).parent, "--out's folder")
    doc = build_template(variant_arg(args.variant).name, args.seed, args.tier)
    write_text(args.out, json.dumps(doc, allow_nan=False) + "\n", inputs)
    print(f"wrote a {doc['variant']} seed {doc['seed']} template with every block to {args.out}")
    return 0
