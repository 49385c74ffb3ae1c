"""A tiny end-to-end ICg-Bench run: reference models on three variants, a small leaderboard.

    python examples/run_icg_bench.py OUTDIR [--models NAME ...] [--jobs N]

Each reference model is fitted on the public tables of the committed small-tier cohort of
three variants, writes a real submission, and is graded by the scorer; every submission is
then added to a small-tier leaderboard in OUTDIR/leaderboard, exactly as a pull request's
would be. Runs in well under a minute on 2 cores. All data are synthetic: nothing here is a
carcinogenicity classification or a statement about real people.
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from icgbench.bench.run import run_experiment
from icgbench.cli import main as icgbench
from icgbench.leaderboard import board
from icgbench.models import competitors, missing_requirement

VARIANTS = ("linear_lowhet", "nonlinear_mixhost", "misspecified_signs")
NOTES = "examples/run_icg_bench.py (small tier)"


def run_one(job: tuple[str, str, str]) -> Path:
    """Fit, submit and score one (model, variant) on the small tier; the submission path."""
    model, variant, outdir = job
    folder = Path(outdir) / "runs" / f"{variant}__{model}"
    return run_experiment(model, variant, None, "small", folder, compress=True).submission_path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir", type=Path, help="folder for the runs and the leaderboard")
    parser.add_argument("--models", nargs="+", default=None,
                        help="reference models (default: every one but the oracle)")
    parser.add_argument("--jobs", type=int, default=2, help="parallel processes")
    args = parser.parse_args(argv)
    models = args.models or [m for m in competitors() if missing_requirement(m) is None]
    jobs = [(m, v, str(args.outdir)) for v in VARIANTS for m in models]
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        submissions = list(pool.map(run_one, jobs))
    folder = args.outdir / "leaderboard"
    for path in board.calibration_first(submissions):
        board.add(path, folder, NOTES, tier="small")
    icgbench(["leaderboard", "show", "--dir", str(folder)])
    print(f"wrote {len(submissions)} runs to {args.outdir / 'runs'} and the leaderboard to "
          f"{folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
