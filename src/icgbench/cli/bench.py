"""``icgbench bench ...``: variants, reference runs, audits, sweeps, plots, baselines."""

from __future__ import annotations

import argparse
import csv
import io
import tempfile
from pathlib import Path

from icgbench.bench.calibration import CALIBRATE_BY, DEFAULT_CALIBRATE_BY
from icgbench.cli._common import (
    non_negative_int,
    old_spelling,
    positive_int,
    print_json,
    release_files,
    require_extra,
    say_err,
    variant_arg,
)
from icgbench.errors import UsageError, UserError
from icgbench.generator import all_variants, get_variant, variant_names
from icgbench.io.atomic import check_output, write_text
from icgbench.io.paths import writable_or_temp
from icgbench.models import ALIASES, DECLARATIONS, competitors, resolve
from icgbench.release.tiers import TIERS, UNFROZEN_NOTICE
from icgbench.scheduling import add_scheduler_argument

AUDIT_COHORT = "linear_lowhet"


def register(commands: argparse._SubParsersAction) -> None:
    bench = commands.add_parser("bench", help="benchmark variants and reference runs")
    sub = bench.add_subparsers(dest="bench_command", metavar="SUBCOMMAND", required=True)

    p = sub.add_parser("list", help="registered variants with their hashes")
    p.add_argument("--json", action="store_true", help="print only a JSON list")
    p.set_defaults(func=run_list)

    p = sub.add_parser("info", help="every field of one variant and its flipped signs")
    p.add_argument("variant", help="registered variant name")
    p.add_argument("--json", action="store_true", help="print only a JSON object")
    p.set_defaults(func=run_info)

    p = sub.add_parser("confounding", help="each confounded state's causal sign beside its "
                       "association with the event, per cohort",
                       description="For every cohort of a confounded variant (a truth "
                       "table, hidden_confounders, names its confounded states): the "
                       "state's causal sign on the event beside the correlation of its "
                       "last-visit value with the event over the train subjects, and a "
                       "summary per state. docs/dgp.md shows it for the committed tiers.")
    p.add_argument("--tier", choices=tuple(TIERS), default="small",
                   help="release tier (default small)")
    p.add_argument("--json", action="store_true", help="print only a JSON list")
    p.set_defaults(func=run_confounding)

    p = sub.add_parser("run", help="fit a reference model on one cohort, submit, score",
                       description="Fit MODEL on the public tables of one cohort, write "
                       "submission.json, score it, write report.json, and print one JSON "
                       "document with the wall-clock seconds of every step.")
    _cohort_args(p)
    p.add_argument("--outdir", type=Path, default=None,
                   help="output folder (default: outputs/bench/<cohort>__<model>__seed<S>)")
    p.set_defaults(func=run_run)

    p = sub.add_parser("audit", help="stage-2 sign audit of a bottleneck model")
    _cohort_args(p, default_cohort=AUDIT_COHORT)
    p.add_argument("--csv", type=Path, default=None, help="also write the audit as CSV")
    p.set_defaults(func=run_audit)

    p = sub.add_parser("sweep", help="the canonical grid of models x cohorts x seeds",
                       description="Run every (model, cohort, seed) cell in parallel "
                       "processes or on a Dask cluster (--scheduler), skipping cells already "
                       "finished in OUTDIR; write "
                       "per_seed.csv, summary.csv, failures.csv and sweep.json. A cell that "
                       "raises is recorded in failures.csv and run again by the next sweep; "
                       "the others go on, and the command then exits 1.")
    p.add_argument("--outdir", type=Path, default=None,
                   help="output folder (default: outputs/sweep)")
    p.add_argument("--models", nargs="+", choices=list(DECLARATIONS), default=None,
                   help="models (default: the board's reference models: every model but "
                   "the two that read the truth and the generic discovery methods, "
                   "leaving out, with a note, those whose optional dependencies are not "
                   "installed)")
    p.add_argument("--cohorts", nargs="+", default=None, metavar="VARIANT",
                   help=f"variants (default: all {len(variant_names())})")
    p.add_argument("--seeds", nargs="+", type=non_negative_int, default=None,
                   help="seeds (default: every seed the tier holds)")
    p.add_argument("--tier", choices=list(TIERS), default="small",
                   help="release tier of the cohorts (default small)")
    p.add_argument("--jobs", type=positive_int, default=2,
                   help="parallel workers (processes, or the LocalCluster's workers)")
    add_scheduler_argument(p, "cells", "OUTDIR")
    p.add_argument("--calibrate-by", choices=list(CALIBRATE_BY), default=DEFAULT_CALIBRATE_BY,
                   help="how each model's structure K* is chosen on the calibration cohort: "
                   "the K maximising directed F1 (default, the headline) or the K minimising "
                   "SHD, ties to the smallest K")
    p.set_defaults(func=run_sweep)

    p = sub.add_parser("plots", help="PNG figures from a sweep, or from a board")
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--inputdir", type=Path, help="a sweep's output folder (every figure)")
    source.add_argument("--dir", type=Path, metavar="DIR", dest="board",
                        help="a leaderboard folder: the figures a board can draw (scores by "
                        "variant, AUROC against R^2, transfer gap), for its 12 best models "
                        "overall and the reference lines, as the page draws them")
    old_spelling(source, "--board", "--dir", "board", type=Path)
    p.add_argument("--outdir", type=Path, default=None,
                   help="figure folder (default: outputs/figures)")
    p.set_defaults(func=run_plots)

    p = sub.add_parser("power", help="the smallest difference a board can tell apart, per "
                       "pair of neighbours",
                       description="For every pair of models adjacent in the board's "
                       "overall ranking, and in each variant's: their difference, its "
                       "spread over cohorts (paired, blocked by variant: the board's own "
                       "shares and test) and the smallest true difference 80%% power finds "
                       "at level 0.05. With --resamples, the spread is split into its part "
                       "within a cohort (a bootstrap over the held-out subjects of --sample "
                       "seeds per variant) and between cohorts, and the detectable "
                       "difference of other board shapes is projected (docs/baselines.md).")
    _board_folder(p)
    p.add_argument("--resamples", type=non_negative_int, default=0,
                   help="bootstrap draws per cohort (default 0: no split, no projection)")
    _sample(p)
    p.add_argument("--json", action="store_true", help="print only JSON")
    p.set_defaults(func=run_power)

    p = sub.add_parser("spans", help="floor-to-ceiling span of every variant x category in "
                       "standard errors",
                       description="For every variant and normalized metric of a board: the "
                       "mean span from floor to ceiling over the largest standard error of "
                       "the metric on one cohort (a bootstrap of each fitted reference on "
                       "--sample cohorts per variant) and of the variant's pooled mean "
                       "(docs/baselines.md).")
    _board_folder(p)
    p.add_argument("--resamples", type=positive_int, default=50,
                   help="bootstrap draws per cohort (default 50)")
    _sample(p)
    p.add_argument("--json", action="store_true", help="print only JSON")
    p.set_defaults(func=run_spans)

    p = sub.add_parser("attacks", help="answers without a model, graded per variant and "
                       "category",
                       description="Every answer an attacker who reads the source would "
                       "try (the model-free panel's, the best answer on other cohorts or in "
                       "hindsight, reversals guessed at random over many draws, combinations "
                       "outside the panel, their per-category composite), graded on a "
                       "tier's cohorts and pooled per variant as the board pools; with "
                       "--dir, each model of that board tested against the composite. Exits "
                       "1 when an attack scores above 0.02 in some variant x category.")
    p.add_argument("--tier", choices=list(TIERS), default="full",
                   help="the tier whose cohorts are attacked (default full)")
    p.add_argument("--dir", type=Path, default=None,
                   help="a board whose models are tested against the composite")
    p.add_argument("--draws", type=positive_int, default=2000,
                   help="draws of the random reversal guess (default 2000)")
    p.add_argument("--json", action="store_true", help="print only JSON")
    p.set_defaults(func=run_attacks)

    p = sub.add_parser("report", help="rewrite docs/baselines.md's sections computed from a "
                       "board",
                       description="Rewrite the sections of a page marked `generated: NAME "
                       "(icgbench bench report)` (power, spans, attacks, floors, methods, "
                       "seed, mirror) from a board and the full tier, as `bench power`, `bench "
                       "spans` and `bench attacks` compute them.")
    _board_folder(p)
    p.add_argument("--out", type=Path, default=Path("docs/baselines.md"),
                   help="the page to rewrite in place (default docs/baselines.md)")
    p.add_argument("--resamples", type=positive_int, default=20,
                   help="bootstrap draws per cohort for power and spans (default 20)")
    _sample(p)
    p.add_argument("--draws", type=positive_int, default=1000,
                   help="draws of the random reversal guess (default 1000)")
    p.set_defaults(func=run_report)

    p = sub.add_parser("baselines", help="write docs/baselines.md from a sweep")
    p.add_argument("--inputdir", type=Path, required=True, help="a sweep's output folder")
    p.add_argument("--out", type=Path, default=Path("docs/baselines.md"),
                   help="the page to write (default docs/baselines.md)")
    p.set_defaults(func=run_baselines)


def _board_folder(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dir", type=Path, default=None,
                   help="board folder (default: the repository's leaderboard/)")


def _sample(p: argparse.ArgumentParser) -> None:
    p.add_argument("--sample", type=positive_int, default=2,
                   help="cohorts (seeds) per variant bootstrapped (default 2)")


def model_arg(text: str) -> str:
    """argparse type: a reference model's name or alias, resolved to its name."""
    try:
        return resolve(text)
    except UsageError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _cohort_args(p: argparse.ArgumentParser, default_cohort: str | None = None) -> None:
    aliases = ", ".join(f"{a} = {m}" for a, m in ALIASES.items())
    if default_cohort is None:
        p.add_argument("--cohort", required=True, metavar="VARIANT", help="variant of the cohort")
    else:
        p.add_argument("--cohort", default=default_cohort, metavar="VARIANT",
                       help=f"variant of the cohort (default: {default_cohort}, the seed's "
                       "example)")
    models = p.add_mutually_exclusive_group(required=True)
    models.add_argument("--model", dest="model", metavar="MODEL", type=model_arg,
                        help=f"reference model: {', '.join(DECLARATIONS)}; the seed's short "
                        f"names are aliases ({aliases})")
    models.add_argument("--variant", dest="model", metavar="MODEL", type=model_arg,
                        help="the seed's name for --model")
    p.add_argument("--seed", type=non_negative_int, default=None,
                   help="cohort seed (default: the tier's first seed); a seed the tier does "
                   "not hold runs on a cohort simulated on the fly, which is not frozen data "
                   "and cannot go on the leaderboard")
    p.add_argument("--tier", choices=list(TIERS), default="small",
                   help="release tier of the cohort (default small)")
    p.add_argument("--n-subjects", type=positive_int, default=None,
                   help="simulate the cohort on the fly with this many subjects, split "
                   "60/20/20 (not frozen data; default: the tier's cohort, or 2,000 "
                   "subjects for an on-the-fly seed)")
    p.add_argument("--months", type=positive_int, default=None,
                   help="simulate the cohort on the fly with this follow-up in months (not "
                   "frozen data; default: the variant's)")


def _check_cohorts(names: list[str]) -> None:
    for name in names:
        variant_arg(name)


def run_run(args: argparse.Namespace) -> int:
    from icgbench.bench.run import run_experiment

    _check_cohorts([args.cohort])
    default = Path("outputs/bench") / f"{args.cohort}__{args.model}__seed{args.seed or 0}"
    outdir = writable_or_temp(args.outdir, default)
    result = run_experiment(args.model, args.cohort, args.seed, args.tier, outdir,
                            n_subjects=args.n_subjects, months=args.months)
    print_json(result.as_json())
    if not result.frozen:
        say_err(f"icgbench: {UNFROZEN_NOTICE}")
    say_err(f"wrote {result.submission_path.name} and {result.report_path.name} to {outdir}")
    return 0


def run_audit(args: argparse.Namespace) -> int:
    from icgbench.bench.audit import audit
    from icgbench.bench.run import prepare_cohort

    _check_cohorts([args.cohort])
    if args.csv is not None:
        check_output(args.csv, release_files(args.tier), "audit")
    with tempfile.TemporaryDirectory(prefix="icgbench-audit-") as tmp:
        tier, root = prepare_cohort(args.cohort, args.seed, args.tier, None, Path(tmp),
                                    args.n_subjects, args.months)
        result = audit(args.model, args.cohort, args.seed, tier, root)
    base = ", ".join(f"{k}={_fmt(v)}" for k, v in result.base.items())
    frozen = "" if result.frozen else f" [{UNFROZEN_NOTICE}]"
    print(f"{result.model} on {result.cohort} seed {result.seed}{frozen}: {base}")
    columns = list(result.rows[0])
    widths = {c: max(len(c), *(len(_fmt(r.get(c))) for r in result.rows)) for c in columns}
    print("  ".join(c.rjust(widths[c]) for c in columns))
    for row in result.rows:
        print("  ".join(_fmt(row.get(c)).rjust(widths[c]) for c in columns))
    if args.csv is not None:
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(result.rows)
        write_text(args.csv, buffer.getvalue(), release_files(args.tier))
        print(f"wrote the audit to {args.csv}")
    return 0


def _fmt(value: object) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:+.4f}" if abs(value) < 10 else f"{value:.3g}"
    return str(value)


def run_sweep(args: argparse.Namespace) -> int:
    from icgbench.bench.sweep import FAILURES, grid, runnable, sweep

    models, hints = runnable(args.models or competitors())
    if args.models and hints:
        raise UsageError("; ".join(hints))
    for hint in hints:
        say_err(f"icgbench: note: left out of the sweep: {hint}")
    cohorts = args.cohorts or variant_names()
    _check_cohorts(cohorts)
    outdir = writable_or_temp(args.outdir, Path("outputs/sweep"))
    cells = grid(models, cohorts, args.seeds, args.tier)
    result = sweep(cells, outdir, args.jobs, calibrate_by=args.calibrate_by,
                   scheduler=args.scheduler)
    for f in result.failures:
        say_err(f"icgbench: {f.model} on {f.cohort} seed {f.seed} failed: "
                f"{f.error_type}: {f.error}")
    rescored = f", {result.regraded} re-scored at K*" if result.regraded else ""
    print(f"{len(cells)} cells ({result.ran} run now, {len(cells) - result.ran} already "
          f"finished{rescored}); {result.per_seed.total_seconds.sum():.1f} s of cell time "
          f"in all; structure K* by {args.calibrate_by}")
    print(f"wrote per_seed.csv, summary.csv, {FAILURES} and sweep.json to {outdir}")
    if result.failures:
        say_err(f"icgbench: {len(result.failures)} of {len(cells)} cells failed; see "
                f"{outdir / FAILURES}")
        return 1
    return 0


def run_plots(args: argparse.Namespace) -> int:
    import pandas as pd

    require_extra("plots", "icgbench bench plots")
    from icgbench.bench.plots import draw_all

    if args.board is not None:
        return _plots_from_board(args)
    source = _sweep_file(args.inputdir, "per_seed.csv")
    try:
        per_seed = pd.read_csv(source)
    except (pd.errors.EmptyDataError, pd.errors.ParserError) as exc:
        raise UsageError(f"{source} is not a sweep's per_seed.csv: {exc}") from None
    if per_seed.empty:
        raise UsageError(f"no finished cells in {source} (see failures.csv beside it)")
    outdir = writable_or_temp(args.outdir, Path("outputs/figures"))
    paths = draw_all(per_seed, outdir, args.inputdir)
    print(f"wrote {len(paths)} figures to {outdir}: {', '.join(p.name for p in paths)}")
    return 0


def _plots_from_board(args: argparse.Namespace) -> int:
    from icgbench.bench.plots import board_figures
    from icgbench.bench.ranking_figures import ranking_figures
    from icgbench.leaderboard.files import board_folder
    from icgbench.leaderboard.page import FIGURE_MODELS
    from icgbench.leaderboard.references import oracle_entries
    from icgbench.leaderboard.store import load_board

    entries = load_board(board_folder(args.board), new_tier=None).entries
    outdir = writable_or_temp(args.outdir, Path("outputs/figures"))
    paths = [*ranking_figures(entries, outdir, FIGURE_MODELS),
             *board_figures(entries, oracle_entries(entries), outdir, FIGURE_MODELS)]
    print(f"wrote {len(paths)} figures of {len(entries)} entries to {outdir}: "
          f"{', '.join(p.name for p in paths)}")
    return 0


#: The files of a sweep's output folder that ``bench baselines`` reads.
SWEEP_FILES = ("summary.csv", "sweep.json", "per_seed.csv")


def _sweep_file(inputdir: Path, name: str) -> Path:
    """``inputdir/name``, a regular file, or a UsageError saying what is wrong."""
    from icgbench.io import untrusted

    path = inputdir / name
    try:
        return untrusted.regular_file(path)
    except FileNotFoundError:
        raise UsageError(f"no {name} in {inputdir} (run `icgbench bench sweep`)") from None
    except untrusted.InputProblem as problem:
        raise UsageError(str(problem)) from None


def _board_entries(folder: Path | None) -> tuple[Path, list]:
    from icgbench.leaderboard.files import board_folder
    from icgbench.leaderboard.store import load_board
    from icgbench.release.locate import release_root

    folder = board_folder(folder or release_root() / "leaderboard")
    entries = load_board(folder, new_tier=None).entries
    if not entries:
        raise UsageError(f"{folder} holds no entries: nothing to analyse")
    return folder, entries


def run_spans(args: argparse.Namespace) -> int:
    from icgbench.bench import spans

    folder, entries = _board_entries(args.dir)
    rows = spans.measure(entries, folder, resamples=args.resamples, sample=args.sample)
    if args.json:
        print_json([r.as_dict() for r in rows])
        return 0
    print("variant | category | metric | cohorts | span | per-cohort SE (median over the "
          "references; largest, model), ratio | pooled SE (largest, model), ratio")
    for r in rows:
        print(f"{r.variant} | {r.category} | {r.metric} | {r.cohorts} | {r.span:.4f} | "
              f"{r.se_cohort:.4f} ({r.se_cohort_largest:.4f}, {r.se_cohort_model}), "
              f"{r.per_cohort:.1f} | {r.se_pooled:.4f} ({r.se_pooled_model}), "
              f"{r.pooled:.1f}"
              + "".join(f" | beyond the span: {m} {n:.2f}, {b:.1f} SE below the floor"
                        for m, n, b in r.beyond))
    print(f"measured {len(rows)} variant x metric spans of {folder} ({args.resamples} "
          f"resamples on {args.sample} cohort(s) per variant); nothing written")
    return 0


def run_report(args: argparse.Namespace) -> int:
    from icgbench.bench import board_report
    from icgbench.io import untrusted
    from icgbench.io.atomic import write_text

    folder, _ = _board_entries(args.dir)
    try:
        text = untrusted.regular_file(args.out).read_text(encoding="utf-8")
    except (FileNotFoundError, untrusted.InputProblem) as exc:
        raise UsageError(f"cannot read {args.out}: {exc}") from None
    made = board_report.sections(folder, args.resamples, args.sample, args.draws)
    try:
        new = board_report.regenerate(text, made)
    except UserError:  # already the user's error, with its own exit code
        raise
    except ValueError as exc:
        raise UsageError(f"{args.out}: {exc}") from None
    write_text(args.out, new)
    print(f"rewrote {len(made)} section(s) of {args.out} from {folder}")
    return 0


def run_attacks(args: argparse.Namespace) -> int:
    from icgbench.bench import attacks

    board = None
    if args.dir is not None:
        board, _ = _board_entries(args.dir)
    result = attacks.report(args.tier, board=board, draws=args.draws)
    above = [(v, c, w["score"], w["attack"]) for v, cats in result["worst"].items()
             for c, w in cats.items() if w["score"] > attacks.TOLERANCE]
    if args.json:
        print_json(result)
        return 1 if above else 0
    print("variant | category | the best attack's normalized score (the attack)")
    for variant, cats in result["worst"].items():
        for category, w in cats.items():
            print(f"{variant} | {category} | {w['score']:.4f} ({w['attack']})")
    print("random reversal guesses (mean, 95th percentile, largest over "
          f"{args.draws} draws):")
    for variant, cats in result["random_guesses"].items():
        for category, g in cats.items():
            print(f"{variant} | {category} | {g['mean']:.4f}, {g['p95']:.4f}, {g['max']:.4f}")
    print(f"the composite: overall {result['composite']['overall']:.4f}")
    for row in result.get("separable", []):
        p = "-" if row["p_value"] is None else f"{row['p_value']:.3g}"
        print(f"{row['model']}: overall {row['overall']:.4f}, paired p against the "
              f"composite {p}, " + ("apart" if row["apart"] else "NOT APART"))
    print(f"attacked the {args.tier} tier's {result['cohorts']} cohorts with "
          f"{result['attacks']} answers; "
          + (f"{len(above)} above {attacks.TOLERANCE}" if above else
             f"none above {attacks.TOLERANCE}") + "; nothing written")
    return 1 if above else 0


#: The board shapes ``bench power --resamples`` projects: seeds per variant, test size.
DESIGN_SEEDS = (5, 10, 20, 30, 40, 60)
DESIGN_TEST_SIZES = (250, 500, 1000, 2000)


def run_power(args: argparse.Namespace) -> int:
    from icgbench.bench import power

    folder, entries = _board_entries(args.dir)
    analysed = power.analyse(entries, folder, resamples=args.resamples, sample=args.sample)
    m0 = power.test_size(entries)
    variants = len({e.variant_name for e in entries})
    shapes = (power.designs(analysed, m0, variants, DESIGN_SEEDS, DESIGN_TEST_SIZES)
              if args.resamples else [])
    if args.json:
        print_json({"pairs": [p.as_dict() for p in analysed],
                    "designs": [d.as_dict() for d in shapes], "test_size": m0})
        return 0
    print("scope: better > worse | cohorts | difference | sd | p | detectable at 80%"
          + (" | within, between" if args.resamples else ""))
    for p in analysed:
        split = (f" | {p.within:.5f}, {p.between:.5f}" if p.within is not None else "")
        pv = "-" if p.p_value is None else f"{p.p_value:.3g}"
        print(f"{p.scope}: {p.better} > {p.worse} | {p.cohorts} | {p.difference:.4f} | "
              f"{p.sd:.4f} | {pv} | {p.detectable:.4f}{split}")
    if shapes:
        print(f"projected (largest over the pairs; test size now {m0}): seeds per variant, "
              "test size | detectable overall | in a variant")
        for d in shapes:
            print(f"{d.seeds}, {d.test_size} | {d.overall:.4f} | {d.variant:.4f}")
    print(f"analysed {len(analysed)} adjacent pair(s) of {folder}"
          + (f" ({args.resamples} resamples per cohort, {args.sample} seed(s) per variant)"
             if args.resamples else "") + "; nothing written")
    return 0


def run_baselines(args: argparse.Namespace) -> int:
    inputs = [_sweep_file(args.inputdir, name) for name in SWEEP_FILES]
    check_output(args.out, inputs, "baselines page")
    from icgbench.bench.baselines_doc import markdown

    write_text(args.out, markdown(args.inputdir), inputs)
    print(f"wrote the baselines page to {args.out}; fill its board sections with `icgbench "
          "bench report`")
    return 0


def run_list(args: argparse.Namespace) -> int:
    rows = [
        {"name": v.name, "variant_hash": v.variant_hash, "description": v.description}
        for v in all_variants()
    ]
    if args.json:
        print_json(rows)
        return 0
    width = max(len(r["name"]) for r in rows)
    for r in rows:
        print(f"{r['name']:<{width}}  {r['variant_hash']}  {r['description']}")
    return 0


def sign_reversals(variant_name: str) -> dict[str, object]:
    """What the variant says about reversed signs: the candidates and how many a cohort
    draws (which ones is in each cohort's truth tables only, never printed here)."""
    from icgbench.generator.mechanism import PRIOR_SIGNS

    variant = get_variant(variant_name)
    return {"count": variant.n_flips,
            "candidates": [{"state": s, "prior_sign": PRIOR_SIGNS[s]}
                           for s in variant.flip_candidates]}


def hidden_confounding(variant_name: str) -> dict[str, object]:
    """The variant's family of hidden confounders: the candidates, how many a cohort draws
    and the ranges their strengths are drawn from (which states and how strongly is each
    cohort's ``hidden_confounders`` truth table only, never printed here)."""
    from icgbench.generator.family import CONFOUNDER_HAZARD, CONFOUNDER_STATE_GAIN
    from icgbench.generator.mechanism import PRIOR_SIGNS

    variant = get_variant(variant_name)
    return {"count": variant.n_confounded,
            "candidates": [{"state": s, "prior_sign": PRIOR_SIGNS[s]}
                           for s in variant.confound_candidates],
            "state_gain": list(CONFOUNDER_STATE_GAIN),
            "hazard_coefficient": [-CONFOUNDER_HAZARD[1], -CONFOUNDER_HAZARD[0]]}


def run_confounding(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from icgbench.bench.confounding import cohort_markdown, signs, summary_markdown

    rows = signs(args.tier)
    if args.json:
        print_json([asdict(r) | {"reversed": r.reversed} for r in rows])
        return 0
    print(cohort_markdown(rows))
    print()
    print(summary_markdown(rows))
    print(f"{sum(r.reversed for r in rows)} of {len(rows)} confounded states of the "
          f"{args.tier} tier have an association of the opposite sign to their effect")
    return 0


def run_info(args: argparse.Namespace) -> int:
    variant = variant_arg(args.variant)
    info = variant.as_dict() | {"sign_reversals": sign_reversals(variant.name),
                                "hidden_confounding": hidden_confounding(variant.name)}
    if args.json:
        print_json(info)
        return 0
    for key, value in variant.as_dict().items():
        shown = ", ".join(map(str, value)) if isinstance(value, list) else value
        print(f"{key:<26} {shown}")
    reversals = info["sign_reversals"]
    if reversals["count"]:
        names = ", ".join(f"{c['state']} (prior {c['prior_sign']:+d})"
                          for c in reversals["candidates"])
        print(f"sign reversals: each cohort reverses {reversals['count']} of {names}; "
              "which ones is in the cohort's truth tables only")
    else:
        print("sign reversals: none (every path to the event has the prior's sign)")
    hidden = info["hidden_confounding"]
    if hidden["count"]:
        names = ", ".join(f"{c['state']} (prior {c['prior_sign']:+d})"
                          for c in hidden["candidates"])
        gain, hazard = hidden["state_gain"], hidden["hazard_coefficient"]
        print(f"hidden confounding: each cohort confounds {hidden['count']} of {names}: an "
              "unobserved host factor (standard normal per subject) pushes the state in its "
              f"risk-raising direction by {gain[0]}-{gain[1]} state sds and enters the "
              f"log-hazard with a coefficient in [{hazard[0]}, {hazard[1]}], through no "
              "state; which state and how strongly is in the cohort's truth tables only")
    else:
        print("hidden confounding: none (no unobserved factor acts on both a state and the "
              "event)")
    print("causal graph: drawn per cohort from the family in docs/dgp.md; the cohort's graph "
          "is a truth table, its public prior_graph a noisy view of the family")
    return 0
