"""``icgbench demo``: the flow a new user wants to see, on the embedded small tier.

The mechanism-bottleneck model and the random baseline are fitted on one cohort's public
tables, their submissions validated and scored like anybody's, and their headline scores
printed side by side, with where every file went.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from icgbench.cli._common import non_negative_int, old_spelling, variant_arg
from icgbench.io.paths import writable_or_temp

DEFAULT_OUT = Path("icgbench-demo")
MODELS = ("mbcnet_v0_1", "random")
ROWS = (
    ("risk_prediction", "auroc", "AUROC (risk prediction)"),
    ("risk_prediction", "brier", "Brier score"),
    ("latent_recovery", "r2_mean", "mean R^2 of the nine states"),
    ("intervention_conformity", "prior_conformity", "prior conformity"),
    ("intervention_conformity", "dgp_conformity", "DGP conformity"),
    ("intervention_conformity", "responsive_dgp_conformity", "responsive DGP conformity"),
    ("cross_host_generalization", "auroc_target", "AUROC on target hosts"),
    ("cross_host_generalization", "transfer_gap", "transfer gap"),
)


def _cell(value: object) -> str:
    return f"{value:>12.3f}" if isinstance(value, float) else f"{'n/a':>12}"


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("demo", help="fit, submit, validate and score a reference model "
                            "beside the random baseline on the embedded data")
    p.add_argument("--variant", default="misspecified_signs",
                   help="cohort variant (default misspecified_signs)")
    p.add_argument("--seed", type=non_negative_int, default=None,
                   help="cohort seed (default: the small tier's)")
    p.add_argument("--outdir", type=Path, default=None,
                   help=f"output folder (default: ./{DEFAULT_OUT}, or a temporary folder "
                   "when that is not writable)")
    old_spelling(p, "--out", "--outdir", "outdir", type=Path)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from icgbench.bench.run import run_experiment

    variant = variant_arg(args.variant)
    out = writable_or_temp(args.outdir, DEFAULT_OUT)
    results = {m: run_experiment(m, variant.name, args.seed, "small", out / m) for m in MODELS}
    first = results[MODELS[0]]
    print(f"ICg-Bench demo: {variant.name} ({variant.variant_hash}) seed {first.seed}, small "
          f"tier, data release {first.report.document['data_version']}. Synthetic data: "
          "no statement about real agents or people.")
    print("Each model was fitted on the public train tables, wrote a submission, and was "
          "validated and scored against the hash-verified truth.\n")
    width = max(len(label) for *_, label in ROWS)
    print(f"{'metric':<{width}}  " + "  ".join(f"{m:>12}" for m in MODELS))
    for task, metric, label in ROWS:
        cells = []
        for m in MODELS:
            value = results[m].report.document["tasks"].get(task, {}).get("metrics", {}).get(
                metric)
            cells.append(_cell(value))
        print(f"{label:<{width}}  " + "  ".join(cells))
    print("\nWhat the board ranks: each category normalized, 0 = the model-free floor "
          "(rules, decoders and their combinations built from the docs, one per variant), "
          "1 = the ceiling, negative below the floor:")
    for category in results[MODELS[0]].report.document["summary"]["normalized"]:
        cells = [_cell(results[m].report.document["summary"]["normalized"].get(category))
                 for m in MODELS]
        print(f"{category:<{width}}  " + "  ".join(cells))
    print(f"{'overall':<{width}}  " + "  ".join(
        _cell(results[m].report.document["summary"]["overall"]) for m in MODELS))
    print("(A raw conformity share can favour a model that changes nothing, the random "
          "baseline included: the board lists such metrics and ranks by the normalized "
          "scores.)\n")
    for m, r in results.items():
        print(f"{m}: submission {r.submission_path}, report {r.report_path} "
              f"({r.seconds['total']:.1f} s)")
    print(f"wrote the demo's submissions and reports to {out}")
    return 0
