"""``icgbench bench ...``: the variant registry (list, info)."""

from __future__ import annotations

import argparse

from icgbench.cli._common import print_json
from icgbench.errors import UsageError
from icgbench.generator import UnknownVariantError, all_variants, get_variant
from icgbench.generator.mechanism import PRIOR_SIGNS, risk_coefficients


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


def flipped_signs(variant_name: str) -> list[dict[str, object]]:
    """(state, prior sign, DGP sign) for every state whose DGP sign differs from the prior."""
    variant = get_variant(variant_name)
    beta = dict(zip(PRIOR_SIGNS, risk_coefficients(variant.flipped_signs), strict=True))
    return [
        {"state": s, "prior_sign": PRIOR_SIGNS[s], "dgp_sign": int(beta[s] > 0) * 2 - 1}
        for s in variant.flipped_signs
    ]


def run_info(args: argparse.Namespace) -> int:
    try:
        variant = get_variant(args.variant)
    except UnknownVariantError as exc:
        raise UsageError(str(exc)) from None
    info = variant.as_dict() | {"flipped_signs": flipped_signs(variant.name)}
    if args.json:
        print_json(info)
        return 0
    for key, value in variant.as_dict().items():
        if key == "flipped_signs":
            continue
        shown = ", ".join(map(str, value)) if isinstance(value, list) else value
        print(f"{key:<22} {shown}")
    if info["flipped_signs"]:
        print("flipped signs (state: prior -> DGP):")
        for f in info["flipped_signs"]:
            print(f"  {f['state']}: {f['prior_sign']:+d} -> {f['dgp_sign']:+d}")
    else:
        print("flipped signs: none (the DGP follows the structural prior)")
    return 0
