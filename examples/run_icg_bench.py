"""A tiny end-to-end ICg-Bench run: reference models on three variants, a small leaderboard.

    python examples/run_icg_bench.py OUTDIR [--models NAME ... | --all] [--jobs N] [--root DIR]

Reference models are fitted on the public tables of the committed small-tier cohort of
three variants, each writes a real submission, and the scorer grades it; every submission
is then added to a small-tier leaderboard in OUTDIR/leaderboard, exactly as a pull
request's would be. By default the four quick references (FAST_MODELS: a minute or less on
2 cores, progress drawn on a terminal); ``--all`` fits every reference, the boosted and
sign-constrained MB-CNets included, which takes many minutes. All data are synthetic:
nothing here is a carcinogenicity classification or a statement about real people.

Runs from any folder. The release is, in order: --root DIR; the folder ICGBENCH_RELEASE
names; the working folder or a parent holding the release; the checkout icgbench is
installed from; the repository this script sits in. When none holds one, it says where it
looked and exits 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

try:
    from icgbench.bench.run import run_experiment
    from icgbench.cli import main as icgbench
    from icgbench.errors import UsageError
    from icgbench.io.progress import track
    from icgbench.leaderboard import board
    from icgbench.models import competitors, missing_requirement
    from icgbench.release import locate
except ImportError as err:  # not installed: say so in one sentence, not a traceback
    sys.exit(f"run_icg_bench.py needs the icgbench package ({err}): run `make install` or "
             "`pip install -e .` in the repository first")

VARIANTS = ("linear_lowhet", "nonlinear_mixhost", "misspecified_signs")
#: The default: the references that fit a small cohort in seconds.
FAST_MODELS = ("random", "logistic_direct", "panel_regression", "mbcnet_v0_1")
NOTES = "examples/run_icg_bench.py (small tier)"


def run_one(job: tuple[str, str, str]) -> Path:
    """Fit, submit and score one (model, variant) on the small tier; the submission path."""
    model, variant, outdir = job
    folder = Path(outdir) / "runs" / f"{variant}__{model}"
    return run_experiment(model, variant, None, "small", folder, compress=True).submission_path


def holds_release(folder: Path) -> bool:
    """Whether ``folder`` holds an ICg-Bench ``datapackage.json``."""
    try:
        doc = json.loads((folder / "datapackage.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(doc, dict) and str(doc.get("name", "")).startswith(
        locate.PACKAGE_NAME_PREFIX)


def find_release(root: Path | None) -> Path:
    """The release root (see the module's docstring), or a UsageError of one sentence."""
    variable = locate.RELEASE_ENV
    if root is not None:
        if not holds_release(root):
            raise UsageError(f"--root {root} holds no ICg-Bench datapackage.json: pass the "
                             "folder that holds the release's datapackage.json (the "
                             "repository's root or an unpacked release)")
        return root.resolve()
    try:
        return locate.release_root()
    except UsageError:
        if os.environ.get(variable):  # a release asked for by name: its error is the answer
            raise
    beside = Path(__file__).resolve().parents[1]
    if holds_release(beside):
        return beside
    raise UsageError(
        f"no ICg-Bench release found in {Path.cwd()} or its parents, in the checkout "
        f"icgbench is installed from, or in {beside} (the repository this script sits in): "
        f"pass --root DIR or set {variable} to the folder holding the release's "
        "datapackage.json")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir", type=Path, help="folder for the runs and the leaderboard")
    chosen = parser.add_mutually_exclusive_group()
    chosen.add_argument("--models", nargs="+", default=None,
                        help=f"reference models (default: {', '.join(FAST_MODELS)})")
    chosen.add_argument("--all", action="store_true",
                        help="every reference model but the oracle (many minutes)")
    parser.add_argument("--jobs", type=int, default=2, help="parallel processes")
    parser.add_argument("--root", type=Path, default=None,
                        help=f"the release root (default: ${locate.RELEASE_ENV}, the working "
                        "folder or a parent, the installed checkout, this script's repository)")
    args = parser.parse_args(argv)
    try:
        root = find_release(args.root)
    except UsageError as err:
        print(f"run_icg_bench.py: {err}", file=sys.stderr)
        return 2
    # Every later look-up (the worker processes, the board's grading) reads this release.
    os.environ[locate.RELEASE_ENV] = str(root)
    every = [m for m in competitors() if missing_requirement(m) is None]
    models = every if args.all else args.models or [m for m in FAST_MODELS if m in every]
    jobs = [(m, v, str(args.outdir)) for v in VARIANTS for m in models]
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        submissions = list(track(pool.map(run_one, jobs), len(jobs),
                                 f"fitting {len(models)} models on {len(VARIANTS)} cohorts"))
    folder = args.outdir / "leaderboard"
    for path in board.calibration_first(submissions):
        board.add(path, folder, NOTES, tier="small")
    icgbench(["leaderboard", "show", "--dir", str(folder)])
    print(f"wrote {len(submissions)} runs to {args.outdir / 'runs'} and the leaderboard to "
          f"{folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
